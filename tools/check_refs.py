#!/usr/bin/env python3
"""Fail on a reference to a repository file that does not exist.

Reads every tracked text file (git ls-files) and finds the paths it names that begin with one of
the repository's top-level folders (driver/x.c, docs/observer.md, tests/integration/lib.sh...), or
with a folder of the observer or the driver read from inside it (sources/netns.c in observer/);
paths relative to the file (../README.md in docs/), which must stay inside the repository
(../shared/... is outside: a reader of the repository cannot open it); every relative link of a
Markdown file ([text](kernels.md#anchor)); and in Markdown code spans, extensionless paths under a
top-level folder (`tools/loadlens`, `.ci/run`, `bench/event_cost/`). A section named after a
Markdown page (docs/observer.md, "Kernels"; BENCHMARKS.md ("Driver: pacer", ...)) and a link's
anchor (kernels.md#how) must be a heading of that page, or a bold run-in head that opens a
paragraph (**When a response is timed.**): a title matches one that equals it or begins with it
("Layout" names "## Layout (where things are)"), backticks and case aside.
Build outputs (*.skel.h, *.bpf.o, build/...), glob patterns, system headers (#include <...>) and
paths of the kernel's or the system's own trees (include/net/..., lib/systemd/...) are not
references.

    tools/check_refs.py [REPO]      exit 0: none stale; 1: each stale one printed as FILE:LINE: PATH
"""
import os
import re
import subprocess
import sys

EXTS = r"(?:c|h|md|py|sh|json|cmake|txt|service|conf|svg|png|html|js|go|ya?ml|toml|in|1|8)"
TOP = ("bench", "bpf", "cmake", "docs", "driver", "include", "lib", "observer", "packaging",
       "tests", "tools", ".ci")
# folders named from inside their parent part, e.g. observer/features as features/
SUB = {"features": "observer", "kernel": "observer", "rules": "observer", "output": "observer",
       "sources": "observer", "metrics": "observer"}
PATH = re.compile(r"(?<![\w./-])((?:\.\./)*[\w.-]+(?:/[\w.-]+)+\." + EXTS + r")(?![\w/-])")
NOT_REFS = re.compile(r"(\.skel\.h|\.bpf\.o)$|^build[/-]|[*{]")
# a Markdown link's target, and a code span
MD_LINK = re.compile(r"\]\(([^()\s]+)\)")
CODE = re.compile(r"`([^`]+)`")
TOP_TOKEN = re.compile(r"^(?:%s)/[\w./-]*$" % "|".join(re.escape(t) for t in TOP))
# this checker and its test name example paths on purpose
SELF = ("tools/check_refs.py", "tests/tools/test_check_refs.py")
# a section after its page, on one line: PAGE.md, "Title"; PAGE.md ("Title", "Other")
SECTION = re.compile(r'((?<![\w/.-])(?:\.\./)*(?:[\w.-]+/)*[\w.-]+\.md)`?,?\s*\(?((?:"[^"\n]+"(?:,\s*)?)+)')
TITLE = re.compile(r'"([^"\n]+)"')
HEADING = re.compile(r"^#{1,6}\s+(.*?)\s*$")
RUN_IN = re.compile(r"^\*\*([^*]+?)\.?\*\*")
TEXT = (".c", ".proto", ".h", ".md", ".py", ".sh", ".txt", ".cmake", ".service", ".in", ".1", ".8")


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


def relative(repo, src, ref):
	"""A path relative to the referring file: None if it resolves, else why not."""
	path = os.path.normpath(os.path.join(os.path.dirname(src), ref))
	if not path.startswith("../") and os.path.exists(os.path.join(repo, path)):
		return None
	# ../shared/STYLE.md in a comment means the folder beside the repository's root
	if path.startswith("../") or os.path.normpath(ref).startswith("../"):
		return "outside the repository"
	return "no such file"


def headings(repo, page, cache={}):
	"""The headings and run-in heads of a Markdown page (outside code blocks), backticks dropped,
	casefolded: [(title, is a heading)]."""
	if page not in cache:
		titles, fence = [], False
		with open(os.path.join(repo, page), encoding="utf-8") as fh:
			for line in fh:
				if line.startswith("```"):
					fence = not fence
				for kind in ((HEADING, True), (RUN_IN, False)) if not fence else ():
					m = kind[0].match(line)
					if m:
						titles.append((m.group(1).replace("`", "").casefold(), kind[1]))
		cache[page] = titles
	return cache[page]


def slug(title):
	"""A heading's anchor as GitHub makes it: lower case, punctuation dropped, spaces as '-'."""
	return re.sub(r"[^\w\- ]", "", title).replace(" ", "-")


def page_of(repo, src, ref):
	"""The tracked Markdown page ref names from src (by the top or relative to src), or None."""
	for cand in (ref, os.path.normpath(os.path.join(os.path.dirname(src), ref))):
		if not cand.startswith("../") and os.path.isfile(os.path.join(repo, cand)):
			return cand
	return None


def sections(repo, src, line):
	"""Sections and anchors of this line that their page lacks: [(ref, why)]."""
	bad = []
	for m in SECTION.finditer(line):
		page = page_of(repo, src, m.group(1))
		if not page:
			continue  # the path itself is checked elsewhere
		have = headings(repo, page)
		for title in TITLE.findall(m.group(2)):
			want = title.replace("`", "").casefold()
			if not any(h == want or (h.startswith(want) and h[len(want)] in " :(,")
				   for h, _ in have):
				bad.append((f'{m.group(1)}, "{title}"', "no such section"))
	if src.endswith(".md"):
		for m in MD_LINK.finditer(line):
			ref, _, anchor = m.group(1).partition("#")
			if not anchor or re.match(r"^[a-z][\w+.-]*:", ref):
				continue
			page = page_of(repo, src, ref) if ref else src
			if page and page.endswith(".md") and anchor not in (slug(h) for h, head in headings(repo, page)
								if head):
				bad.append((m.group(1), "no such section"))
	return bad


def markdown(repo, src, line):
	"""Stale relative links and code-span paths of one Markdown line: [(ref, why)]."""
	bad = []
	for m in MD_LINK.finditer(line):
		ref = m.group(1).split("#")[0]
		if not ref or re.match(r"^[a-z][\w+.-]*:", ref) or ref.startswith("/"):
			continue  # an anchor in the page, a URL, mailto:, an absolute system path
		why = relative(repo, src, ref)
		if why:
			bad.append((ref, why))
	for m in CODE.finditer(line):
		if m.group(1).startswith("ctest "):
			continue  # its arguments are test names (tools/stale_refs), not paths
		for tok in m.group(1).split():
			tok = tok.rstrip(".,:;)")
			if not TOP_TOKEN.match(tok) or NOT_REFS.search(tok) or PATH.fullmatch(tok):
				continue  # not a path of ours, or a path with an extension (checked below)
			if not os.path.exists(os.path.join(repo, tok.rstrip("/"))):
				bad.append((tok, "no such file"))
	return bad


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
			found = markdown(repo, f, line) if f.endswith(".md") else []
			bad.extend((f, n, ref, why) for ref, why in found + sections(repo, f, line))
			for m in PATH.finditer(line):
				ref = m.group(1).rstrip(".")
				if any(ref == r for r, _ in found):
					continue  # said once
				if ref.startswith("../"):
					why = relative(repo, f, ref)
					if why:
						bad.append((f, n, ref, why))
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
