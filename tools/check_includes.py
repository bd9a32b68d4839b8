#!/usr/bin/env python3
"""Fail on an include loop between the modules, or between the folders, of a part of the tree.

A module is a .c file and its .h (driver/scheduling/waker.c and waker.h are one). Module A
depends on module B when one of A's files includes B's header with #include "...": a path from
the part's root ("scheduling/waker.h"), from the including file's folder, or a bare name found
once in the part. Headers outside the part (lib/, include/, system, generated) are not modules.
A folder depends on another when one of its modules does. Every loop is printed: a set of two or
more modules (or folders) each reachable from the others.

With --objects OBJDIR (the compiled DIR: DIR/x/y.c built as OBJDIR/x/y.c.o, as CMake lays them
out; given again for each library the part's files are built in), calls are checked too: module
A depends on B when A's object uses a symbol B's defines (nm). That finds a loop a shared header
hides (two .c files calling each other through one .h).

--allow-folders A:B lets folders A and B depend on each other (a stated design: two folders
whose files call each other on purpose); a module loop, or a folder loop through a third folder,
still fails.

--layers A:B:C says the folders' order from the bottom: each listed folder depends (by include
or, with --objects, by call) only on the listed folders before it, never on one after it or on a
folder not listed (the observer's kernel/, then sources/: what a tick reads stays below what
uses it). Folders not listed are free.

--only A:B:C says folder A depends (by include or, with --objects, by call) only on folders B
and C: narrower than its place in the layers (the observer's output/ reads only tick/'s types,
so its objects use no symbol of sources/, kernel/ or features/, though those are below it).

    tools/check_includes.py DIR [--objects OBJDIR]... [--graph] [--allow-folders A:B]...
                            [--layers A:B...] [--only A:B...]...
    exit 0: no loop, no break; 1: each printed; 64: usage
"""
import os
import re
import subprocess
import sys

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def graph(root):
	"""{module: set of modules it includes}, modules as paths under root without extension."""
	files, headers = {}, {}
	for d, _, names in os.walk(root):
		for name in names:
			if name.endswith((".c", ".h")):
				path = os.path.relpath(os.path.join(d, name), root)
				files.setdefault(path[:-2], []).append(path)
				if name.endswith(".h"):
					headers.setdefault(name, []).append(path[:-2])
	edges = {m: set() for m in files}
	for mod, paths in files.items():
		for path in paths:
			with open(os.path.join(root, path), encoding="utf-8") as f:
				text = f.read()
			for inc in INCLUDE.findall(text):
				if not inc.endswith(".h"):
					continue
				here = os.path.normpath(os.path.join(os.path.dirname(path), inc))[:-2]
				if inc[:-2] in files:
					dep = inc[:-2]
				elif here in files:
					dep = here
				elif "/" not in inc and len(headers.get(inc, [])) == 1:
					dep = headers[inc][0]
				else:
					continue
				if dep != mod:
					edges[mod].add(dep)
	return edges


def symbols(root, objdirs):
	"""{module: (symbols its object defines, symbols it uses)}, from the objects of OBJDIRS (a
	directory or a list of them) whose source is in root (nm -P)."""
	objs = {}
	for objdir in [objdirs] if isinstance(objdirs, str) else objdirs:
		for d, _, names in os.walk(objdir):
			for name in names:
				rel = os.path.relpath(os.path.join(d, name), objdir)
				if name.endswith(".c.o") and os.path.exists(os.path.join(root, rel[:-2])):
					objs[rel[:-4]] = os.path.join(d, name)
	tables = {}
	for mod, path in sorted(objs.items()):
		out = subprocess.run(["nm", "-P", path], check=True, stdout=subprocess.PIPE,
				     universal_newlines=True).stdout
		defined, used = set(), set()
		for line in out.splitlines():
			f = line.split()
			if len(f) >= 2 and f[1] == "U":
				used.add(f[0])
			elif len(f) >= 2 and f[1] in "TDBRV":
				defined.add(f[0])
		tables[mod] = (defined, used)
	return tables


def call_edges(tables):
	"""{module: set of modules whose symbols it uses}, from symbols()' tables."""
	owner = {s: m for m, (defined, _) in sorted(tables.items()) for s in defined}
	return {m: {owner[s] for s in used if s in owner and owner[s] != m}
		for m, (_, used) in tables.items()}


_CALLS = {}


def calls(root, objdirs):
	"""{module: set of modules whose symbols its object uses}, from OBJDIRS' objects (nm -P),
	read once per run."""
	key = (root, objdirs if isinstance(objdirs, str) else tuple(objdirs))
	if key not in _CALLS:
		_CALLS[key] = call_edges(symbols(root, objdirs))
	return _CALLS[key]


def cycles(edges):
	"""The strongly connected sets of two or more nodes (Tarjan), each sorted, in order."""
	index, low, stack, on, out = {}, {}, [], set(), []

	def visit(v):
		index[v] = low[v] = len(index)
		stack.append(v)
		on.add(v)
		for w in sorted(edges.get(v, ())):
			if w not in index:
				visit(w)
				low[v] = min(low[v], low[w])
			elif w in on:
				low[v] = min(low[v], index[w])
		if low[v] == index[v]:
			comp = []
			while True:
				w = stack.pop()
				on.discard(w)
				comp.append(w)
				if w == v:
					break
			if len(comp) > 1:
				out.append(sorted(comp))

	sys.setrecursionlimit(max(1000, 4 * len(edges)))
	for v in sorted(edges):
		if v not in index:
			visit(v)
	return sorted(out)


def folders(edges):
	"""{folder: set of other folders its modules include}; the part's root is "."."""
	out = {}
	for mod, deps in edges.items():
		here = os.path.dirname(mod) or "."
		out.setdefault(here, set()).update(
			os.path.dirname(d) or "." for d in deps if (os.path.dirname(d) or ".") != here)
	return out


def loops(root, objdir=None):
	"""Every loop in root, one line each ("module loop: a <-> b", "folder loop: x <-> y")."""
	edges = graph(root)
	out = (["module loop: " + " <-> ".join(c) for c in cycles(edges)] +
	       ["folder loop: " + " <-> ".join(c) for c in cycles(folders(edges))])
	if objdir:
		edges = calls(root, objdir)
		out += (["call loop: " + " <-> ".join(c) for c in cycles(edges)] +
			["folder call loop: " + " <-> ".join(c) for c in cycles(folders(edges))])
	return out


def folder_edges(kinds):
	"""Each dependency across folders: (how, module, its folder, the module it depends on, that
	one's folder); kinds: [(how, {module: modules it depends on})]."""
	for kind, edges in kinds:
		for mod, deps in sorted(edges.items()):
			here = os.path.dirname(mod) or "."
			for dep in sorted(deps):
				there = os.path.dirname(dep) or "."
				if there != here:
					yield kind, mod, here, dep, there


def layer_breaks(root, layers, objdir=None):
	"""Each dependency of a listed folder on a folder not below it in layers, one line each."""
	rank = {f: i for i, f in enumerate(layers)}
	kinds = [("includes", graph(root))]
	if objdir:
		kinds.append(("calls", calls(root, objdir)))
	return ["layer break: %s %s %s (%s/ is not below %s/)" % (mod, kind, dep, there, here)
		for kind, mod, here, dep, there in folder_edges(kinds)
		if here in rank and rank.get(there, len(layers)) > rank[here]]


def only_breaks(kinds, only):
	"""Each dependency of a folder of only ({folder: the folders it may depend on}) on another
	folder, one line each; kinds: [(how, {module: modules it depends on})]."""
	return ["only break: %s %s %s (%s/ depends only on %s)" %
		(mod, kind, dep, here, ", ".join(f + "/" for f in only[here]))
		for kind, mod, here, dep, there in folder_edges(kinds)
		if here in only and there not in only[here]]


def main(argv):
	args, objdirs, graph_too, allowed, layers, only = argv[2:], [], False, set(), [], {}
	while args:
		if args[0] == "--objects" and len(args) > 1 and os.path.isdir(args[1]):
			objdirs, args = objdirs + [args[1]], args[2:]
		elif args[0] == "--graph":
			graph_too, args = True, args[1:]
		elif args[0] == "--allow-folders" and len(args) > 1 and args[1].count(":") == 1:
			allowed.add(" <-> ".join(sorted(args[1].split(":"))))
			args = args[2:]
		elif args[0] == "--layers" and len(args) > 1 and all(args[1].split(":")):
			layers, args = args[1].split(":"), args[2:]
		elif (args[0] == "--only" and len(args) > 1 and ":" in args[1] and
		      all(args[1].split(":"))):
			only[args[1].split(":")[0]] = args[1].split(":")[1:]
			args = args[2:]
		else:
			break
	if len(argv) < 2 or not os.path.isdir(argv[1]) or args:
		print("usage: tools/check_includes.py DIR [--objects OBJDIR]... [--graph] "
		      "[--allow-folders A:B]... [--layers A:B...] [--only A:B...]...",
		      file=sys.stderr)
		return 64
	root, objdir = argv[1], objdirs or None
	if graph_too:
		for folder, deps in sorted(folders(graph(root)).items()):
			print("%s/ -> %s" % (folder, ", ".join(sorted(deps)) or "-"))
	# an allowed pair of folders (a stated design: --allow-folders A:B) may depend on each
	# other, and only those two: a loop through a third folder, or any module loop, still fails
	bad = [l for l in loops(root, objdir)
	       if not (l.startswith(("folder loop: ", "folder call loop: ")) and
		       l.split(": ", 1)[1] in allowed)]
	bad += layer_breaks(root, layers, objdir) if layers else []
	if only:
		kinds = [("includes", graph(root))]
		kinds += [("calls", calls(root, objdir))] if objdir else []
		bad += only_breaks(kinds, only)
	for line in bad:
		print("%s: %s" % (root, line))
	return 1 if bad else 0


if __name__ == "__main__":
	sys.exit(main(sys.argv))
