#!/usr/bin/env python3
"""Fail on a reference to a repository file that does not exist.

Reads every tracked text file (git ls-files) and finds the paths it names that begin with one of
the repository's top-level folders (driver/x.c, docs/observer.md, tests/integration/lib.sh...), or
with a folder of the observer or the driver read from inside it (features/netns.c in observer/),
and paths outside the repository (../shared/...), which a reader of the repository cannot open.
Build outputs (*.skel.h, *.bpf.o, build/...), glob patterns, system headers (#include <...>) and
paths of the kernel's or the system's own trees (include/net/..., lib/systemd/...) are not
references.

    tools/check_refs.py [REPO]      exit 0: none stale; 1: each stale one printed as FILE:LINE: PATH
"""
import os
import re
import subprocess
import sys

EXTS = r"(?:c|h|md|py|sh|json|cmake|txt|service|conf|svg|png|html|1|8)"
TOP = ("bench", "bpf", "cmake", "docs", "driver", "include", "lib", "observer", "packaging",
       "tests", "tools", ".ci")
# folders named from inside their parent part, e.g. observer/features as features/
SUB = {"features": "observer", "kernel": "observer", "rules": "observer", "output": "observer"}
PATH = re.compile(r"(?<![\w./-])((?:\.\./)*[\w.-]+(?:/[\w.-]+)+\." + EXTS + r")(?![\w/-])")
NOT_REFS = re.compile(r"(\.skel\.h|\.bpf\.o)$|^build[/-]|[*{]")
# this checker and its test name example paths on purpose
SELF = ("tools/check_refs.py", "tests/tools/test_check_refs.py")
TEXT = (".c", ".h", ".md", ".py", ".sh", ".txt", ".cmake", ".service", ".in", ".1", ".8")


def tracked(repo):
	out = subprocess.run(["git", "-C", repo, "ls-files", "-z"], check=True,
			     stdout=subprocess.PIPE).stdout.decode()
	return [f for f in out.split("\0") if f]


def resolves(repo, src, ref):
	"""Does ref name a tracked file (or a folder holding one)?"""
	first = ref.split("/")[0]
	cands = []
	if first in TOP:
		cands.append(ref)
	if first in SUB:
		cands.append(SUB[first] + "/" + ref)
	# relative to the referring file's own folder (a README naming its neighbours)
	cands.append(os.path.normpath(os.path.join(os.path.dirname(src), ref)))
	return any(os.path.exists(os.path.join(repo, c)) for c in cands)


def stale(repo):
	bad = []
	for f in tracked(repo):
		if not f.endswith(TEXT) and os.path.basename(f) not in ("CMakeLists.txt", "run"):
			continue
		if f in SELF:
			continue
		try:
			with open(os.path.join(repo, f), encoding="utf-8") as fh:
				lines = fh.read().splitlines()
		except (OSError, UnicodeDecodeError):
			continue
		for n, line in enumerate(lines, 1):
			if re.match(r"\s*#\s*include\s*<", line):
				continue  # a system header (<bpf/libbpf.h>)
			for m in PATH.finditer(line):
				ref = m.group(1).rstrip(".")
				if ref.startswith("../"):
					if "/shared/" in "/" + ref.lstrip("./") + "/" or ref.startswith("../"):
						bad.append((f, n, ref, "outside the repository"))
					continue
				first = ref.split("/")[0]
				if (first not in TOP and first not in SUB) or NOT_REFS.search(ref):
					continue
				# the kernel's include/net/..., an installed lib/systemd/...: not ours
				parent = os.path.dirname(ref)
				if (first in ("include", "lib") or first in SUB) and not any(
						os.path.isdir(os.path.join(repo, d, parent))
						for d in ("", SUB.get(first, ""))):
					continue
				if not resolves(repo, f, ref):
					bad.append((f, n, ref, "no such file"))
	return bad


def main():
	repo = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..")
	bad = stale(os.path.abspath(repo))
	for f, n, ref, why in bad:
		print(f"{f}:{n}: {ref}: {why}")
	if bad:
		print(f"{len(bad)} stale reference(s)")
	return 1 if bad else 0


if __name__ == "__main__":
	sys.exit(main())
