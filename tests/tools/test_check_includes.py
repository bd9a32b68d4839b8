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

	def test_allowed_folder_pair_only(self):
		# two folders may depend on each other (--allow-folders); a module loop or a
		# loop through a third folder still fails
		script = os.path.join(os.path.dirname(__file__), "..", "..", "tools",
				      "check_includes.py")
		d = self.tree({
			"feat/f.h": "", "feat/f.c": '#include "out/o.h"\n',
			"out/o.h": "", "out/o.c": '#include "feat/s.h"\n',
			"feat/s.h": "",
		})
		run = lambda *a: subprocess.run([sys.executable, script, d, *a],
						capture_output=True, text=True)
		self.assertEqual(run().returncode, 1)
		self.assertEqual(run("--allow-folders", "out:feat").returncode, 0)
		with open(os.path.join(d, "feat/s.h"), "w") as f:
			f.write('#include "kern/k.h"\n')
		os.makedirs(os.path.join(d, "kern"))
		with open(os.path.join(d, "kern/k.h"), "w") as f:
			f.write('#include "out/o.h"\n')
		r = run("--allow-folders", "feat:out")
		self.assertEqual(r.returncode, 1, r.stdout)
		self.assertIn("folder loop: feat <-> kern <-> out", r.stdout)

	def test_layers_hold_their_order(self):
		# --layers kern:src: src may include kern, kern includes nothing listed after it,
		# neither includes a folder not listed; an unlisted folder is free
		d = self.tree({
			"kern/k.h": "", "kern/k.c": '#include "kern/k.h"\n',
			"src/s.h": '#include "kern/k.h"\n', "src/s.c": '#include "src/s.h"\n',
			"feat/f.c": '#include "src/s.h"\n#include "kern/k.h"\n',
		})
		self.assertEqual(check_includes.layer_breaks(d, ["kern", "src"]), [])
		with open(os.path.join(d, "kern/k.c"), "a") as f:
			f.write('#include "src/s.h"\n')
		with open(os.path.join(d, "src/s.c"), "a") as f:
			f.write('#include "feat/f.h"\n')
		with open(os.path.join(d, "feat/f.h"), "w") as f:
			f.write("")
		self.assertEqual(check_includes.layer_breaks(d, ["kern", "src"]), [
			"layer break: kern/k includes src/s (src/ is not below kern/)",
			"layer break: src/s includes feat/f (feat/ is not below src/)",
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
