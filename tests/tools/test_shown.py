# SPDX-License-Identifier: MIT
"""tools/lltools/shown.py against the cases lib/quote.c passes too (tests/data/quote_vectors.json),
and the table both read."""
import json
import os
import unittest

from lltools import shown

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), os.pardir, os.pardir))


def case_bytes(c):
	if "hex" in c:
		return bytes.fromhex(c["hex"])
	return b"".join(bytes.fromhex(h) * n for h, n in c["parts"])


class TestShown(unittest.TestCase):
	def test_vectors(self):
		with open(os.path.join(ROOT, "tests", "data", "quote_vectors.json"), encoding="utf-8") as f:
			cases = json.load(f)["cases"]
		self.assertGreaterEqual(len(cases), 10)
		for c in cases:
			s = case_bytes(c).decode("utf-8", "surrogateescape")
			got = shown.shown(s, c["limit"]) if "limit" in c else shown.escaped(s)
			self.assertEqual(got, c["shown"], c)

	def test_table_read(self):
		# the table's lines, all of them: a line the reader missed would pass its code points
		with open(os.path.join(ROOT, "include", "loadlens", "quote_table.h"), encoding="utf-8") as f:
			lines = [x for x in f if x.startswith("LL_QUOTE_ESC(")]
		self.assertEqual(len(shown._ESCAPED), len(lines))
		self.assertEqual(shown.escaped("\u2066x\u2069"), "\\u2066x\\u2069")

	def test_lines_keep_breaks(self):
		self.assertEqual(shown.lines("a\x1bb\nc\u202e"), "a\\x1bb\nc\\u202e")


if __name__ == "__main__":
	unittest.main()
