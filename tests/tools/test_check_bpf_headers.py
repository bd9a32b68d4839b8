# SPDX-License-Identifier: MIT
"""tools/check_bpf_headers.py (test bpf_headers) finds a forward declaration of another header's
function, a base that reaches a protocol, a protocol that reaches the request path, and a
header that does not compile alone; and passes bpf/ as it is."""
import os
import shutil
import sys
import tempfile
import unittest

ROOT = os.path.join(os.path.dirname(__file__), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "tools"))
import check_bpf_headers as cbh  # noqa: E402


class CheckBpfHeadersTest(unittest.TestCase):
	def test_forward_declaration_found(self):
		faults = cbh.check_layers({
			"req_tcp.bpf.h": "static __always_inline void h2_close(int s);\n"
					 "static void f(void) { h2_close(1); }\n",
			"req_h2.bpf.h": "static __always_inline void h2_close(int s)\n{\n}\n",
		})
		self.assertEqual(len(faults), 1, faults)
		self.assertIn("req_tcp.bpf.h: forward declaration of h2_close(), defined in req_h2.bpf.h",
			      faults[0])

	def test_own_prototype_allowed(self):
		self.assertEqual(cbh.check_layers({
			"req_rec.bpf.h": "static int g(int a);\nstatic int h(void) { return g(1); }\n"
					 "static int g(int a) { return a; }\n"}), [])

	def test_layers(self):
		faults = cbh.check_layers({
			"req_tcp.bpf.h": '#include "req_sk.bpf.h"\n',
			"req_sk.bpf.h": '#include "req_h2_conn.bpf.h"\n',
			"req_h2_conn.bpf.h": "",
			"req_lean.bpf.h": '#include "req.bpf.h"\n',
			"req.bpf.h": '#include "req_tcp.bpf.h"\n',
		})
		self.assertIn("req_sk.bpf.h: the base reaches req_h2_conn.bpf.h (a protocol's)", faults)
		self.assertIn("req_tcp.bpf.h: the base reaches req_h2_conn.bpf.h (a protocol's)", faults)
		self.assertIn("req_lean.bpf.h: a protocol reaches the request path req.bpf.h", faults)
		self.assertEqual(len(faults), 3, faults)

	def test_compile_alone_catches_a_cycle(self):
		clang = shutil.which("clang")
		if not clang:
			self.skipTest("no clang")
		d = tempfile.mkdtemp(prefix="llbpfh.")
		self.addCleanup(shutil.rmtree, d)
		files = {
			# a.bpf.h uses b's function; b.bpf.h includes a first (a cycle): b alone fails
			"a.bpf.h": '#ifndef A\n#define A\n#include "b.bpf.h"\n'
				   "static int a(void) { return b(); }\n#endif\n",
			"b.bpf.h": '#ifndef B\n#define B\n#include "a.bpf.h"\n'
				   "static int b(void) { return 1; }\n#endif\n",
			"c.bpf.h": "static int c(void) { return 0; }\n",
		}
		for n, t in files.items():
			with open(os.path.join(d, n), "w") as f:
				f.write(t)
		cmd = [clang, "-Wall", "-Werror", "-Wno-unused-function"]
		self.assertIsNotNone(cbh.compile_alone(d, "b.bpf.h", cmd))
		self.assertIsNone(cbh.compile_alone(d, "a.bpf.h", cmd))
		self.assertIsNone(cbh.compile_alone(d, "c.bpf.h", cmd))

	def test_bpf_tree_layers_hold(self):
		bpf = os.path.join(ROOT, "bpf")
		texts = {}
		for n in os.listdir(bpf):
			if n.endswith(".bpf.h"):
				with open(os.path.join(bpf, n)) as f:
					texts[n] = f.read()
		self.assertIn("req_tcp.bpf.h", texts)
		self.assertEqual(cbh.check_layers(texts), [])


if __name__ == "__main__":
	unittest.main()
