#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bpf/'s headers stand alone, in layers (test bpf_headers).

Three checks over every bpf/*.bpf.h:
  - it compiles alone: a file holding only `#include "<header>"` builds with the BPF objects'
	own flags, in each variant of the objects (as is, and -DLL_PRE_5_12), so each header
	includes what it uses and an include cycle cannot build (the header a cycle reaches first
	is seen before what it calls);
  - no forward declaration of a function that another header defines (a call up the layers);
  - the layers: the base (BASE) reaches no protocol header, and no protocol header reaches the
	request path (DISPATCH) that dispatches to them.

Usage: check_bpf_headers.py BPF_DIR -- CLANG FLAGS...   (exit 0: all hold; 1: one line a fault)
"""
import os
import re
import subprocess
import sys
import tempfile

# The request path's base: socket state and clocks; it calls no protocol.
BASE = ("req_sk.bpf.h", "req_rec.bpf.h", "req_scope.bpf.h", "req_tcp.bpf.h")
# One file (or family: req_h2_*) per protocol, each built on the base.
PROTOCOLS = ("req_turns", "req_tls", "req_ssl", "req_h2", "req_lean", "req_udp", "req_hello",
			 "payload")
# The dispatcher: the entry points, over every protocol.
DISPATCH = "req.bpf.h"
VARIANTS = ([], ["-DLL_PRE_5_12"])

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def strip_comments(text):
	return COMMENT.sub(" ", text)


def top_level(text):
	"""The text at brace depth 0, with preprocessor lines dropped."""
	out, depth = [], 0
	for line in text.split("\n"):
		if line.lstrip().startswith("#"):
			continue
		kept = []
		for ch in line:
			if ch == "{":
				depth += 1
			elif ch == "}":
				depth -= 1
			elif depth == 0:
				kept.append(ch)
		out.append("".join(kept))
	return "\n".join(out)


FUNC_DEF = re.compile(r"\b(\w+)\s*\([^;{)]*(?:\([^)]*\)[^;{)]*)*\)\s*\{", re.S)
PROTO = re.compile(r"(?:^|;|\n)\s*(?:static|extern|LL_GLOBAL)[^;()]*?\b(\w+)\s*\([^;{]*\)\s*;", re.S)


def definitions(text):
	"""Names of the functions a header defines (a body follows the parameter list)."""
	return set(FUNC_DEF.findall(strip_comments(text))) - {"if", "for", "while", "switch",
														   "sizeof", "return"}


def prototypes(text):
	"""Names declared at file scope without a body."""
	return set(PROTO.findall(top_level(strip_comments(text))))


def includes(text):
	return INCLUDE.findall(strip_comments(text))


def closure(name, graph):
	seen, todo = set(), [name]
	while todo:
		n = todo.pop()
		for m in graph.get(n, ()):
			if m not in seen:
				seen.add(m)
				todo.append(m)
	return seen


def is_protocol(name):
	return any(name == p + ".bpf.h" or name.startswith(p + "_") for p in PROTOCOLS)


def check_layers(texts):
	"""Faults of the forward-declaration and layer rules (texts: header name -> text)."""
	faults = []
	defs = {n: definitions(t) for n, t in texts.items()}
	for n, t in sorted(texts.items()):
		for f in sorted(prototypes(t)):
			owners = [o for o, d in defs.items() if f in d and o != n]
			if owners and f not in defs[n]:
				faults.append("%s: forward declaration of %s(), defined in %s" %
							  (n, f, ", ".join(sorted(owners))))
	graph = {n: [i for i in includes(t) if i in texts] for n, t in texts.items()}
	for b in BASE:
		if b not in texts:
			continue
		for m in sorted(closure(b, graph)):
			if is_protocol(m) or m == DISPATCH:
				faults.append("%s: the base reaches %s (a protocol's)" % (b, m))
	for n in sorted(texts):
		if is_protocol(n) and DISPATCH in closure(n, graph):
			faults.append("%s: a protocol reaches the request path %s" % (n, DISPATCH))
	return faults


def compile_alone(bpf_dir, name, cmd):
	"""None, or the first error line of compiling `#include "name"` alone."""
	with tempfile.TemporaryDirectory() as tmp:
		src = os.path.join(tmp, "alone.c")
		with open(src, "w") as f:
			f.write('#include "%s"\n' % name)
		r = subprocess.run(cmd + ["-I", bpf_dir, "-fsyntax-only", src],
						   capture_output=True, text=True)
	if r.returncode == 0:
		return None
	lines = [l for l in r.stderr.splitlines() if "error" in l] or r.stderr.splitlines() or ["?"]
	return lines[0].replace(tmp, "")


def main(argv):
	if "--" not in argv or len(argv) < 4:
		print("usage: check_bpf_headers.py BPF_DIR -- CLANG FLAGS...", file=sys.stderr)
		return 64
	sep = argv.index("--")
	bpf_dir, cmd = argv[1], argv[sep + 1:]
	names = sorted(n for n in os.listdir(bpf_dir) if n.endswith(".bpf.h"))
	texts = {}
	for n in names:
		with open(os.path.join(bpf_dir, n)) as f:
			texts[n] = f.read()
	faults = check_layers(texts)
	for n in names:
		for v in VARIANTS:
			err = compile_alone(bpf_dir, n, cmd + v)
			if err:
				faults.append("%s%s does not compile alone: %s" %
							  (n, " (" + " ".join(v) + ")" if v else "", err))
	for f in faults:
		print(f)
	print("bpf_headers: %d headers, %d variant(s): %s" %
		  (len(names), len(VARIANTS), "%d fault(s)" % len(faults) if faults else "all hold"))
	return 1 if faults else 0


if __name__ == "__main__":
	sys.exit(main(sys.argv))
