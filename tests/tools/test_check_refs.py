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
			"observer/features/netns.c": "",
			"docs/a.md": "see observer/netns.c and ../shared/CONTEXT.md\n",
		})
		bad = check_refs.stale(d)
		self.assertEqual([(f, n, r) for f, n, r, _ in bad],
				 [("docs/a.md", 1, "observer/netns.c"), ("docs/a.md", 1, "../shared/CONTEXT.md")])

	def test_good_references_pass(self):
		d = self.repo({
			"observer/features/netns.c": "#include <bpf/libbpf.h>\n",
			"observer/main.c": "/* features/netns.c; include/net/tcp_states.h; build/x.skel.h */\n",
			"docs/a.md": "observer/features/netns.c, `tests/*.sh`, /lib/systemd/system/x.service\n",
		})
		self.assertEqual(check_refs.stale(d), [])


if __name__ == "__main__":
	unittest.main()
