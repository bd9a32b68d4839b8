# SPDX-License-Identifier: MIT
"""tools/kernels/feature_table.py: the README's kernel x arch x feature table from runs."""
import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../tools/kernels"))
import feature_table as ft  # noqa: E402

MECH_OLD = {"request timing: socket-queue wait, service time":
	    "fentry sock_def_readable, fexit inet{,6}_recvmsg, inet{,6}_sendmsg",
	    "drops by reason": None}
MECH_NEW = {"request timing: socket-queue wait, service time":
	    "tracepoints sock:sk_data_ready, sock_recv_length, sock_send_length",
	    "drops by reason": "tp_btf skb:kfree_skb", "an odd one": "something new"}


def summary(kernel, mech, ok=True):
	return {"kernel": kernel, "results": [{"check": "check", "ok": ok, "mechanisms": mech}]}


class FeatureTableTest(unittest.TestCase):
	def test_labels(self):
		self.assertEqual(ft.label("6.1.0-56-amd64"), "x86-64 6.1")
		self.assertEqual(ft.label("6.12.117+deb12-arm64"), "arm64 6.12")
		self.assertEqual(ft.label("6.1.0-56-powerpc64le"), "ppc64le 6.1")
		self.assertEqual(ft.label("6.18.44-fc-v782", "x86_64"), "x86-64 6.18")
		self.assertEqual(ft.label("6.12.0-custom", "aarch64"), "arm64 6.12")

	def test_cells(self):
		self.assertEqual(ft.short(None), "off")
		self.assertEqual(ft.short(MECH_OLD["request timing: socket-queue wait, service time"]),
				 "fentry/fexit")
		self.assertEqual(ft.short("something new"), "something new")  # shown as it is
		# before 5.15: the user registers from the kernel stack (the check's own words)
		self.assertEqual(ft.short("the kernel stack's saved registers + bpf_probe_read_user in "
					  "the read programs"), "kernel stack registers")
		self.assertEqual(ft.short("frame walk of each read's and write's buffer, found through "
					  "the kernel stack's saved registers"),
				 "frame walk (kernel stack registers)")
		self.assertEqual(ft.short("frame walk of each read's and write's buffer, found through "
					  "bpf_task_pt_regs"), "frame walk (user registers)")

	def test_table_sorted_and_complete(self):
		cols = [ft.column_of_summary(summary("6.12.117+deb12-amd64", MECH_NEW)),
			ft.column_of_summary(summary("6.12.117+deb12-arm64", MECH_NEW)),
			ft.column_of_summary(summary("6.1.0-56-amd64", MECH_OLD))]
		lines = ft.table(cols)
		self.assertEqual(lines[0], "| feature | x86-64 6.1 | x86-64 6.12 | arm64 6.12 |")
		self.assertIn("| drops by reason | off | kfree_skb reason | kfree_skb reason |", lines)
		# a feature one kernel's check does not list is '-', not 'off'
		self.assertIn("| an odd one | - | something new | something new |", lines)
		self.assertEqual(len(lines), 2 + 3)

	def test_failed_check_is_no_column(self):
		self.assertIsNone(ft.column_of_summary(summary("6.1.0-56-amd64", MECH_OLD, ok=False)))
		self.assertIsNone(ft.column_of_summary({"kernel": "6.1.0-56-amd64", "results": []}))

	def test_host_check_json(self):
		check = {"kernel": "6.18.44-fc-v782", "features": [
			{"feature": "drops by reason", "ok": True, "mechanism": "tp_btf skb:kfree_skb"},
			{"feature": "payload sampling (pipelined requests per read)", "ok": False,
			 "mechanism": "bpf_task_pt_regs + bpf_probe_read_user in the read programs"}]}
		name, mech = ft.column_of_check(check, "x86_64")
		self.assertEqual(name, "x86-64 6.18")
		self.assertIsNone(mech["payload sampling (pipelined requests per read)"])

	def test_command_line(self):
		script = os.path.join(HERE, "../../tools/kernels/feature_table.py")
		with tempfile.TemporaryDirectory() as d:
			p = os.path.join(d, "summary.json")
			with open(p, "w") as f:
				json.dump(summary("6.1.0-56-amd64", MECH_OLD), f)
			r = subprocess.run([sys.executable, script, p], capture_output=True, text=True)
			self.assertEqual(r.returncode, 0, r.stderr)
			self.assertIn("| x86-64 6.1 |", r.stdout)
			# a guest's check.json (kept beside summary.json) is a column too
			c = os.path.join(d, "check.json")
			with open(c, "w") as f:
				json.dump({"kernel": "6.1.0-56-arm64", "features": [
					{"feature": "drops by reason", "ok": False}]}, f)
			r = subprocess.run([sys.executable, script, p, c], capture_output=True,
					   text=True)
			self.assertIn("| drops by reason | off | off |", r.stdout)
			self.assertIn("| x86-64 6.1 | arm64 6.1 |", r.stdout)
			r = subprocess.run([sys.executable, script, os.path.join(d, "none.json")],
					   capture_output=True, text=True)
			self.assertEqual(r.returncode, 64)
			self.assertEqual(len(r.stderr.strip().splitlines()), 1)


if __name__ == "__main__":
	unittest.main()
