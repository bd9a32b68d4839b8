# SPDX-License-Identifier: MIT
"""tools/check_includes.py finds a planted include loop, folder loop and call loop, a folder that
depends on one --only does not allow (by include or by a symbol its object uses), and passes a
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

	def test_only_catches_a_call_from_symbols(self):
		# --only out:tick: out/ may use tick/'s symbols; one of src/ (below it in the layers,
		# so no layer break) is caught, from the symbol tables alone
		tables = {
			"tick/view": ({"view"}, set()),
			"src/read": ({"read_label", "read"}, {"view"}),
			"out/fmt": ({"fmt"}, {"view", "read_label", "printf"}),
			"feat/f": ({"f"}, {"fmt", "read"}),
		}
		edges = check_includes.call_edges(tables)
		self.assertEqual(edges["out/fmt"], {"tick/view", "src/read"})
		self.assertEqual(check_includes.only_breaks([("calls", edges)], {"out": ["tick"]}), [
			"only break: out/fmt calls src/read (out/ depends only on tick/)",
		])
		tables["out/fmt"][1].discard("read_label")
		edges = check_includes.call_edges(tables)
		self.assertEqual(check_includes.only_breaks([("calls", edges)], {"out": ["tick"]}), [])

	@unittest.skipUnless(shutil.which("cc") and shutil.which("nm"), "no cc or nm")
	def test_only_at_link_level(self):
		# out/fmt.c includes only tick/'s header, which declares a function src/ defines: no
		# include breaks the rule, the object's call does; objects in two libraries' folders
		script = os.path.join(os.path.dirname(__file__), "..", "..", "tools",
				      "check_includes.py")
		d = self.tree({
			"tick/tick.h": "struct t { int port; };\nint src_port(int slot);\n",
			"src/s.c": '#include "tick/tick.h"\nint src_port(int slot) { return slot; }\n',
			"out/fmt.c": '#include "tick/tick.h"\n'
				     "int fmt(const struct t *t) { return t->port + src_port(0); }\n",
		})
		libs = {"out/fmt.c": "libout", "src/s.c": "libcore"}
		for c, lib in libs.items():
			os.makedirs(os.path.join(d, lib, os.path.dirname(c)), exist_ok=True)
			subprocess.run(["cc", "-c", "-I", d, os.path.join(d, c), "-o",
					os.path.join(d, lib, c + ".o")], check=True)
		run = lambda *a: subprocess.run([sys.executable, script, d, "--only", "out:tick", *a],
						capture_output=True, text=True)
		self.assertEqual(run().returncode, 0)  # by include alone it holds
		r = run("--objects", os.path.join(d, "libout"), "--objects", os.path.join(d, "libcore"))
		self.assertEqual(r.returncode, 1, r.stdout)
		self.assertEqual(r.stdout, "%s: only break: out/fmt calls src/s (out/ depends only on "
				 "tick/)\n" % d)
		# the port copied into tick/'s struct instead: no call left
		with open(os.path.join(d, "out/fmt.c"), "w") as f:
			f.write('#include "tick/tick.h"\nint fmt(const struct t *t) { return t->port; }\n')
		subprocess.run(["cc", "-c", "-I", d, os.path.join(d, "out/fmt.c"), "-o",
				os.path.join(d, "libout/out/fmt.c.o")], check=True)
		r = run("--objects", os.path.join(d, "libout"), "--objects", os.path.join(d, "libcore"))
		self.assertEqual(r.returncode, 0, r.stdout)


if __name__ == "__main__":
	unittest.main()
