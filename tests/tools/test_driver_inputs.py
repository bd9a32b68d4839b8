# SPDX-License-Identifier: MIT
"""lltools.driver_inputs: the driver's input files reach the user it runs as (nobody) from a
folder only root can open: copied and the option renamed, a file the user can read left where it
is, a .proto's imports from its folder brought along, and the driver itself (run as that user,
--print-plan) parses what was staged. The copying needs root (skipped otherwise); the option
scan does not. Needs the built driver (LOADLENS_BIN)."""

import os
import pwd
import re
import shutil
import stat
import subprocess
import tempfile
import unittest

from lltools import driver_inputs, procs

KV = """syntax = "proto3";
package kv;
import "msgs/value.proto";
service Store { rpc Put (PutRequest) returns (kv.msgs.Value); }
message PutRequest { string key = 1; kv.msgs.Value value = 2; }
"""
VALUE = """syntax = "proto3";
package kv.msgs;
message Value { bytes data = 1; }
"""


class Named(unittest.TestCase):
	def test_every_input_option_of_the_driver(self):
		"""The driver's --help names each option that takes a FILE or DIR: every one that
		is no output is staged, and nothing else is."""
		helptext = subprocess.run([procs.binary("loadlens-driver"), "--help"],
					  capture_output=True, encoding="utf-8").stdout
		named = set(re.findall(r"^\s+(?:-\w, )?(--[\w-]+) (?:FILE|DIR)\b", helptext, re.M))
		self.assertIn("--proto-file", named)
		outputs = {"--json", "--hdr-log"}
		self.assertLessEqual(outputs, named)
		self.assertEqual(named - outputs,
				 set(driver_inputs.FILE_OPTIONS + driver_inputs.PROTO_DIR_OPTIONS))

	def test_both_spellings_and_nothing_else(self):
		extra = ["--payload", "a", "--requests-file=b", "-c", "4", "--import-path", "d",
			 "--message", "--proto-file", "--proto-file", "e"]
		got = [(o, v, j) for _, o, v, j in driver_inputs._named(extra)]
		self.assertEqual(got, [("--payload", "a", False), ("--requests-file", "b", True),
				       ("--import-path", "d", False), ("--proto-file", "--proto-file", False)])

	def test_no_change_of_user_changes_nothing(self):
		extra = ["--payload", "/root/x"]
		self.assertEqual(driver_inputs.stage(extra, None, None), (extra, []))


@unittest.skipUnless(os.geteuid() == 0, "copying for another user needs root")
class Staged(unittest.TestCase):
	def setUp(self):
		try:
			pw = pwd.getpwnam("nobody")
			self.ident = (pw.pw_uid, pw.pw_gid, "nobody")
		except KeyError:
			self.ident = (65534, 65534, "nobody")
		self.tmp = tempfile.mkdtemp()  # 0700, root's
		self.priv = os.path.join(self.tmp, "private")
		os.mkdir(self.priv, 0o700)
		os.mkdir(os.path.join(self.priv, "msgs"), 0o700)
		for name, text in (("kv.proto", KV), ("msgs/value.proto", VALUE),
				   ("payload.bin", "PING\r\n"), ("notes.txt", "not a proto")):
			with open(os.path.join(self.priv, name), "wb") as f:
				f.write(text.encode())
		self.open_dir = tempfile.mkdtemp(dir="/tmp")
		os.chmod(self.open_dir, 0o755)
		self.open_file = os.path.join(self.open_dir, "open.bin")
		with open(self.open_file, "w") as f:
			f.write("open")
		os.chmod(self.open_file, 0o644)
		self.work = procs.driver_dir(self.ident)
		self.driver = os.path.join(self.work, "loadlens-driver")

	def tearDown(self):
		shutil.rmtree(self.tmp, ignore_errors=True)
		shutil.rmtree(self.open_dir, ignore_errors=True)
		procs.remove_driver_dir(self.work)

	def test_closed_files_copied_open_ones_kept(self):
		kv = os.path.join(self.priv, "kv.proto")
		pay = os.path.join(self.priv, "payload.bin")
		extra = ["--proto-file", kv, f"--payload={pay}", "--body-file", self.open_file,
			 "--message", "{}"]
		self.assertEqual(driver_inputs.unreadable([kv, self.open_file], self.ident), {kv})
		got, copied = driver_inputs.stage(extra, self.work, self.ident)
		self.assertEqual(copied, [("--proto-file", kv), ("--payload", pay)])
		self.assertEqual(got[2:], [got[2], "--body-file", self.open_file, "--message", "{}"])
		new_kv, new_pay = got[1], got[2].partition("=")[2]
		self.assertTrue(got[2].startswith("--payload="))
		for p in (new_kv, new_pay):
			self.assertTrue(p.startswith(os.path.join(self.work, "inputs") + "/"), p)
			st = os.lstat(p)
			self.assertTrue(stat.S_ISREG(st.st_mode))
			self.assertEqual((st.st_uid, stat.S_IMODE(st.st_mode)), (self.ident[0], 0o600))
		with open(new_pay, "rb") as f:
			self.assertEqual(f.read(), b"PING\r\n")
		# the import beside it came along; a file that is no .proto did not
		self.assertTrue(os.path.isfile(os.path.join(os.path.dirname(new_kv), "msgs",
							    "value.proto")))
		self.assertFalse(os.path.exists(os.path.join(os.path.dirname(new_kv), "notes.txt")))
		self.assertEqual(driver_inputs.unreadable([new_kv, new_pay], self.ident), set())
		# the driver, as that user (its copy in the driver's directory, as run starts it:
		# the build tree may be closed to that user), parses the staged .proto and its import
		plan = subprocess.run([self.driver, "--print-plan", "-d", "1s",
				       "grpc://127.0.0.1:1/kv.Store/Put", "--proto-file", new_kv,
				       "--message", '{"key":"k","value":{"data":"dmFs"}}'],
				      user=self.ident[0], group=self.ident[1], extra_groups=[],
				      capture_output=True, encoding="utf-8", cwd="/")
		self.assertEqual(plan.returncode, 0, plan.stderr)
		# the original, as the driver's user, is refused: what the copy is for
		plan = subprocess.run([self.driver, "--print-plan", "-d", "1s",
				       "grpc://127.0.0.1:1/kv.Store/Put", "--proto-file", kv],
				      user=self.ident[0], group=self.ident[1], extra_groups=[],
				      capture_output=True, encoding="utf-8", cwd="/")
		self.assertEqual(plan.returncode, 64, plan.stderr)

	def test_import_path_brings_its_protos(self):
		extra = ["--import-path", self.priv]
		got, copied = driver_inputs.stage(extra, self.work, self.ident)
		self.assertEqual(copied, [("--import-path", self.priv)])
		names = sorted(os.path.relpath(os.path.join(t, n), got[1])
			       for t, _, ns in os.walk(got[1]) for n in ns)
		self.assertEqual(names, ["kv.proto", "msgs/value.proto"])
		self.assertEqual(driver_inputs.unreadable([got[1], os.path.join(got[1], "msgs")],
							  self.ident), set())

	def test_too_many_entries_refused_in_a_line(self):
		old = driver_inputs.MAX_WALK
		driver_inputs.MAX_WALK = 3
		try:
			with self.assertRaisesRegex(driver_inputs.InputError,
						    r"^driver options: --import-path .*: more than 3 "
						    "entries"):
				driver_inputs.stage(["--import-path", self.priv], self.work, self.ident)
		finally:
			driver_inputs.MAX_WALK = old


if __name__ == "__main__":
	unittest.main()
