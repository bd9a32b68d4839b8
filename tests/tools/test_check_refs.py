# SPDX-License-Identifier: MIT
"""tools/check_refs.py finds what it must (a planted stale reference) and nothing else."""
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import check_refs  # noqa: E402


class CheckRefsTest(unittest.TestCase):
	def repo(self, files):
		d = tempfile.mkdtemp(prefix="llrefs.")
		self.addCleanup(subprocess.run, ["rm", "-rf", d])
		for path, text in files.items():
			os.makedirs(os.path.join(d, os.path.dirname(path)), exist_ok=True)
			with open(os.path.join(d, path), "w") as f:
				f.write(text)
		subprocess.run(["git", "init", "-q", d], check=True)
		subprocess.run(["git", "-C", d, "add", "."], check=True)
		return d

	def test_stale_and_outside_found(self):
		d = self.repo({
			"observer/sources/netns.c": "",
			"docs/a.md": "see observer/netns.c and ../shared/CONTEXT.md\n",
		})
		bad = check_refs.stale(d)
		self.assertEqual([(f, n, r) for f, n, r, _ in bad],
				 [("docs/a.md", 1, "observer/netns.c"), ("docs/a.md", 1, "../shared/CONTEXT.md")])

	def test_relative_links_and_code_spans(self):
		d = self.repo({
			"docs/kernels.md": "## How\n",
			"tools/loadlens": "",
			".ci/run": "",
			"docs/a.md": "[r](../README.md) [k](kernels.md#how) [u](https://x.org/a.md) [h](#x)\n"
				     "`tools/loadlens test`, `.ci/run`, `build/bin`, `tests/integration/test_*.sh`,"
				     " `ctest -R tools/stale_refs`\n"
				     "[gone](gone.md) `tools/nothere` tests/integration/x.js [o](../../up.md)\n"
				     "## X\n",
			"README.md": "[d](docs/nope.md) `.ci/gone`\n",
			"observer/a.c": "/* ../shared/STYLE.md */\n",
		})
		bad = sorted((f, n, r, why) for f, n, r, why in check_refs.stale(d))
		self.assertEqual(bad, [
			("README.md", 1, ".ci/gone", "no such file"),
			("README.md", 1, "docs/nope.md", "no such file"),
			("docs/a.md", 3, "../../up.md", "outside the repository"),
			("docs/a.md", 3, "gone.md", "no such file"),
			("docs/a.md", 3, "tests/integration/x.js", "no such file"),
			("docs/a.md", 3, "tools/nothere", "no such file"),
			("observer/a.c", 1, "../shared/STYLE.md", "outside the repository"),
		])

	def test_sections_and_anchors(self):
		d = self.repo({
			"docs/obs.md": "# Obs\n## Layout (where things are)\n## `--trace FILE`\n```\n## Not\n```\n"
				       "**When a reply is timed.** text\n",
			"bench/x.sh": '# docs/obs.md, "Layout"; docs/obs.md ("--trace", "When a reply is timed")\n'
				      '# docs/obs.md, "Not"; docs/obs.md "Lay"\n',
			"docs/a.md": "[l](obs.md#layout-where-things-are) [t](obs.md#--trace-file) "
				     "[n](obs.md#when-a-reply-is-timed) [g](obs.md#gone)\n",
		})
		bad = sorted((f, n, r) for f, n, r, _ in check_refs.stale(d))
		self.assertEqual(bad, [
			("bench/x.sh", 2, 'docs/obs.md, "Lay"'),
			("bench/x.sh", 2, 'docs/obs.md, "Not"'),
			("docs/a.md", 1, "obs.md#gone"),
			("docs/a.md", 1, "obs.md#when-a-reply-is-timed"),
		])

	def test_good_references_pass(self):
		d = self.repo({
			"observer/sources/netns.c": "#include <bpf/libbpf.h>\n",
			"observer/main.c": "/* sources/netns.c; include/net/tcp_states.h; build/x.skel.h */\n",
			"docs/a.md": "observer/sources/netns.c, `tests/*.sh`, /lib/systemd/system/x.service\n",
		})
		self.assertEqual(check_refs.stale(d), [])


if __name__ == "__main__":
	unittest.main()
