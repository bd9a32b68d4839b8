# SPDX-License-Identifier: MIT
"""lltools.files (safe writes, bounded reads), lltools.shown (escaping) and sweep's doubling
(its bounds: the values are the driver's, test_units.py). Needs the built driver (LOADLENS_BIN)."""

import os
import stat
import tempfile
import unittest

from lltools import files, units
from lltools.shown import escaped, shown


class Files(unittest.TestCase):
	def setUp(self):
		self.tmp = tempfile.TemporaryDirectory()
		self.d = self.tmp.name
		self.victim = os.path.join(self.d, "victim")
		with open(self.victim, "w") as f:
			f.write("victim\n")

	def tearDown(self):
		self.tmp.cleanup()

	def p(self, name):
		return os.path.join(self.d, name)

	def victim_intact(self):
		with open(self.victim) as f:
			self.assertEqual(f.read(), "victim\n")

	def test_write_new_file_0600(self):
		files.write(self.p("out.json"), "{}\n")
		st = os.lstat(self.p("out.json"))
		self.assertTrue(stat.S_ISREG(st.st_mode))
		self.assertEqual(stat.S_IMODE(st.st_mode), 0o600)
		with open(self.p("out.json")) as f:
			self.assertEqual(f.read(), "{}\n")
		self.assertEqual(sorted(os.listdir(self.d)), ["out.json", "victim"])  # no temporary

	def test_planted_tmp_is_not_followed(self):
		os.symlink(self.victim, self.p("out.json.tmp"))
		os.symlink(self.p("nowhere"), self.p("report.html.tmp"))
		files.write(self.p("out.json"), "new")
		files.write(self.p("report.html"), "new")
		self.victim_intact()
		self.assertFalse(os.path.lexists(self.p("nowhere")))
		self.assertTrue(os.path.islink(self.p("out.json.tmp")))

	def test_link_named_by_the_user_is_refused(self):
		os.symlink(self.victim, self.p("link.json"))
		with self.assertRaisesRegex(files.FileError, "symbolic link"):
			files.check_output(self.p("link.json"), "--json")
		with self.assertRaisesRegex(files.FileError, "symbolic link"):
			files.write(self.p("link.json"), "x", "--json")
		self.victim_intact()

	def test_link_at_our_own_name_is_replaced(self):
		os.symlink(self.victim, self.p("level1.log"))
		with files.create(self.p("level1.log")) as f:
			f.write(b"log")
		self.victim_intact()
		self.assertFalse(os.path.islink(self.p("level1.log")))
		with open(self.p("level1.log"), "rb") as f:
			self.assertEqual(f.read(), b"log")
		# a FIFO or a hard link at a name of ours: replaced, never opened
		os.mkfifo(self.p("level2.log"))
		os.link(self.victim, self.p("run.json"))
		with files.create(self.p("level2.log")) as f:
			f.write(b"x")
		files.write(self.p("run.json"), "{}", "--json", ours=True)
		self.victim_intact()
		self.assertTrue(stat.S_ISREG(os.lstat(self.p("level2.log")).st_mode))
		self.assertEqual(os.stat(self.victim).st_nlink, 1)

	@unittest.skipUnless(os.geteuid() == 0, "hard links are refused as root")
	def test_hard_link_refused_as_root(self):
		os.link(self.victim, self.p("hard.json"))
		with self.assertRaisesRegex(files.FileError, "hard links"):
			files.write(self.p("hard.json"), "x", "--json")
		self.victim_intact()

	def test_not_regular_refused(self):
		os.mkfifo(self.p("fifo"))
		for path, why in ((self.p("fifo"), "not a regular file"), ("/dev/null", "not a regular"),
				  (self.d, "directory")):
			with self.assertRaisesRegex(files.FileError, why):
				files.check_output(path, "-o")

	def test_read_refuses_fifo_device_and_bounds_size(self):
		os.mkfifo(self.p("fifo"))  # no writer: a blocking open would hang here
		with self.assertRaisesRegex(files.FileError, "not a regular file"):
			files.read_text(self.p("fifo"), "report")
		with self.assertRaisesRegex(files.FileError, "not a regular file"):
			files.read_bytes("/dev/zero", "report")
		with open(self.p("big"), "wb") as f:
			f.write(b"x" * 2048)
		with self.assertRaisesRegex(files.FileError, "larger than"):
			files.read_bytes(self.p("big"), "report", limit=1024)
		self.assertEqual(len(files.read_bytes(self.p("big"), "report", limit=2048)), 2048)

	def test_read_not_utf8(self):
		with open(self.p("bin"), "wb") as f:
			f.write(b'{"a": "\xff"}')
		with self.assertRaisesRegex(files.FileError, r"not UTF-8 text \(byte 0xff at offset 7\)"):
			files.read_text(self.p("bin"), "report")

	def test_copy_in_never_follows(self):
		os.symlink(self.victim, self.p("drv.json"))
		with self.assertRaisesRegex(files.FileError, "symbolic link"):
			files.copy_in(self.p("drv.json"), self.p("copy.json"), "driver file")
		self.assertFalse(os.path.lexists(self.p("copy.json")))

	def test_ensure_dir(self):
		os.symlink(self.d, self.p("linkdir"))
		with self.assertRaisesRegex(files.FileError, "symbolic link"):
			files.ensure_dir(self.p("linkdir"), "png")
		self.assertEqual(files.ensure_dir(self.p("linkdir"), "--out", follow=True),
				 self.p("linkdir"))
		with self.assertRaisesRegex(files.FileError, "not a directory"):
			files.ensure_dir(self.victim, "--out", follow=True)
		files.ensure_dir(self.p("new/sub"), "--out")
		self.assertTrue(os.path.isdir(self.p("new/sub")))


class Shown(unittest.TestCase):
	def test_controls_escaped(self):
		self.assertEqual(shown("\x1b[2J\x1b[31mPWN\x07"), "\\x1b[2J\\x1b[31mPWN\\x07")
		self.assertEqual(escaped("a\r\n\tb\x7f"), "a\\r\\n\\tb\\x7f")
		self.assertEqual(escaped("\u202e\x85"), "\\u202e\\u0085")  # bidi override, C1
		self.assertEqual(shown("port 80, é ok"), "port 80, é ok")

	def test_long_value_cut_and_counted(self):
		s = shown("a" * 100000)
		self.assertLessEqual(len(s), 200)
		self.assertIn("chars cut]", s)
		head, _, rest = s.partition("...[")
		n = int(rest.split()[0])
		tail = rest.partition("]...")[2]
		self.assertEqual(len(head) + n + len(tail), 100000)
		s = shown("\x1b" * 1000, 100)
		self.assertLessEqual(len(s), 100)
		self.assertNotIn("\x1b", s)


class Doubling(unittest.TestCase):
	def test_steps(self):
		self.assertEqual(units.doubling(1, 16), [1, 2, 4, 8, 16])
		self.assertEqual(units.doubling(100, 500), [100, 200, 400, 500])
		self.assertEqual(units.doubling(10, 10), [10])

	def test_never_loops(self):
		for start, stop in ((0, 10), (1000, 10), (-1, 10), (1, 0)):
			with self.assertRaises(ValueError):
				units.doubling(start, stop)
		with self.assertRaisesRegex(ValueError, "more than 64 steps"):
			units.doubling(1e-13, 1e8)

	def test_ranges(self):
		# the driver's own -c limit is 1M (its words)
		with self.assertRaisesRegex(ValueError, r"out of range, must be 1\.\.1000000"):
			units.int_list("2000000", 1_000_000)
		with self.assertRaisesRegex(ValueError, "more than 1,000"):
			units.int_list("10,2000", 1_000)
		with self.assertRaisesRegex(ValueError, "each at most 1,000"):
			units.num_list("10,2k", 1000)
		with self.assertRaisesRegex(ValueError, "out of range"):
			units.duration_in("0", 0.001, 86400)


if __name__ == "__main__":
	unittest.main()
