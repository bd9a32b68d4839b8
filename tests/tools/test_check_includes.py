# SPDX-License-Identifier: MIT
"""tools/check_includes.py finds a planted include loop, folder loop and call loop, and passes a
layered tree."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import check_includes  # noqa: E402


class CheckIncludesTest(unittest.TestCase):
	def tree(self, files):
		d = tempfile.mkdtemp(prefix="llinc.")
		self.addCleanup(shutil.rmtree, d)
		for path, text in files.items():
			os.makedirs(os.path.join(d, os.path.dirname(path)), exist_ok=True)
			with open(os.path.join(d, path), "w") as f:
				f.write(text)
		return d

	def test_layered_tree_passes(self):
		d = self.tree({
			"base/drv.h": "",
			"config/config.h": '#include "base/drv.h"\n#include "loadlens/parse.h"\n',
			"config/config.c": '#include "config/config.h"\n',
			"results/stats.c": '#include "config/config.h"\n#include <stdio.h>\n',
			"main.c": '#include "results/stats.h"\n#include "config/config.h"\n',
		})
		self.assertEqual(check_includes.loops(d), [])

	def test_module_and_folder_loops_found(self):
		d = self.tree({
			"a/x.h": "", "a/x.c": '#include "b/y.h"\n',
			"b/y.h": "", "b/y.c": '#include "x.h"\n',  # a bare name found once in the tree
			"b/z.h": '#include "w.h"\n', "b/w.c": '#include "z.h"\n',  # same folder, relative
		})
		self.assertEqual(check_includes.loops(d), [
			"module loop: a/x <-> b/y",
			"module loop: b/w <-> b/z",
			"folder loop: a <-> b",
		])

	@unittest.skipUnless(shutil.which("cc") and shutil.which("nm"), "no cc or nm")
	def test_call_loop_behind_one_header_found(self):
		# p.c and q.c call each other through one header, p.h: no include loop, a call loop
		d = self.tree({
			"p.h": "void p(int);\nvoid q(int);\n",
			"p.c": '#include "p.h"\nvoid p(int n) { if (n) q(n - 1); }\n',
			"q.c": '#include "p.h"\nvoid q(int n) { if (n) p(n - 1); }\n',
		})
		obj = os.path.join(d, "obj")
		os.makedirs(obj)
		for c in ("p.c", "q.c"):
			subprocess.run(["cc", "-c", "-I", d, os.path.join(d, c), "-o",
					os.path.join(obj, c + ".o")], check=True)
		self.assertEqual(check_includes.loops(d), [])
		self.assertEqual(check_includes.loops(d, obj), ["call loop: p <-> q"])


if __name__ == "__main__":
	unittest.main()
