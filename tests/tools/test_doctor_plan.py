# SPDX-License-Identifier: MIT
"""doctor reads a driver command line through the driver itself (loadlens-driver --print-plan):
every option the driver lists reaches doctor's plan, and the ones that change a limit change the
verdict. Needs the built driver (LOADLENS_BIN, set by ctest); no root, no network."""
import argparse
import contextlib
import io
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

import fixtures
from lltools import __main__ as front, doctor, procs
from test_doctor import HOST, check

SRC = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TCP = "tcp://127.0.0.1:7000"
HTTP = "http://127.0.0.1:8080/"
HTTPS = "https://127.0.0.1:8443/"
UDP = "udp://127.0.0.1:9000"
GRPC = "grpc://127.0.0.1:50051/kv.Store/Get"
LDAP = "tcp://127.0.0.1:389"


def samples(tmp):
	"""For each driver option: (target, arguments of a valid baseline, the arguments that give
	the option a value other than the baseline's)."""
	f = {n: os.path.join(tmp, n) for n in ("payload", "body", "ca.pem", "msg.json", "pw",
					       "pw2", "mix.txt")}
	for name, text in (("payload", "PING\r\n"), ("body", "{}"), ("ca.pem", "not checked here"),
			   ("msg.json", '{"key": "a"}'), ("pw", "secret\n"), ("pw2", "other\n"),
			   ("mix.txt", "GET /a\n")):
		with open(f[name], "w", encoding="ascii") as out:
			out.write(text)
	kv = os.path.join(SRC, "tests", "data", "kv.proto")
	soon = str(int(time.time()) + 3600)
	ldap = ["--proto", "ldap"]
	return {
		"--connections": (TCP, [], ["--connections", "7"]),
		"--threads": (TCP, ["-c", "4"], ["--threads", "2"]),
		"--requests": (TCP, [], ["--requests", "100"]),
		"--duration": (TCP, [], ["--duration", "3s"]),
		"--new-conn": (TCP, [], ["--new-conn"]),
		"--reconnect-every": (TCP, [], ["--reconnect-every", "10"]),
		"--size": (TCP, [], ["--size", "128"]),
		"--timeout": (TCP, [], ["--timeout", "250ms"]),
		"--json": (TCP, [], ["--json", os.path.join(tmp, "never.json")]),
		"--interval": (TCP, [], ["--interval", "0"]),
		"--rate": (TCP, [], ["--rate", "2k"]),
		"--delay": (TCP, [], ["--delay", "10ms"]),
		"--warmup": (TCP, [], ["--warmup", "1s"]),
		"--payload": (TCP, [], ["--payload", f["payload"], "--response", "fixed:4"]),
		"--response": (TCP, ["--payload", f["payload"], "--response", "fixed:4"],
			       ["--response", "delim:\\r\\n"]),
		"--method": (HTTP, [], ["--method", "POST"]),
		"--header": (HTTP, [], ["--header", "X-A: 1"]),
		"--body": (HTTP, [], ["--body", "hi"]),
		"--body-file": (HTTP, [], ["--body-file", f["body"]]),
		"--http-close": (HTTP, [], ["--http-close"]),
		"--http-engine": (HTTP, [], ["--http-engine", "curl"]),
		"--http2": (HTTP, [], ["--http2"]),
		"--insecure": (HTTPS, [], ["--insecure"]),
		"--cacert": (HTTPS, [], ["--cacert", f["ca.pem"]]),
		"--source-addr": (TCP, [], ["--source-addr", "127.0.0.2,127.0.0.3"]),
		"--start-at": (TCP, [], ["--start-at", soon]),
		"--shard": (TCP, [], ["--shard", "1/2"]),
		"--id": (UDP, ["--payload", f["payload"]], ["--id", "0:2"]),
		"--rcvbuf": (UDP, [], ["--rcvbuf", "65536"]),
		"--proto": (LDAP, [], ["--proto", "ldap"]),
		"--hdr-log": (TCP, [], ["--hdr-log", os.path.join(tmp, "never.hlog")]),
		"--requests-file": (HTTP, [], ["--requests-file", f["mix.txt"]]),
		"--seed": (HTTP, ["--requests-file", f["mix.txt"]], ["--seed", "7"]),
		"--connect-rate": (TCP, [], ["--connect-rate", "500"]),
		"--streams": (HTTP, ["--http2"], ["--streams", "4"]),
		"--proto-file": (GRPC, [], ["--proto-file", kv]),
		"--message": (GRPC, ["--proto-file", kv], ["--message", '{"key": "b"}']),
		"--message-file": (GRPC, ["--proto-file", kv], ["--message-file", f["msg.json"]]),
		"--import-path": (GRPC, ["--proto-file", kv], ["--import-path", tmp]),
		"--base": (LDAP, ldap, ["--base", "dc=example,dc=com"]),
		"--scope": (LDAP, ldap, ["--scope", "one"]),
		"--filter": (LDAP, ldap, ["--filter", "(uid=u1)"]),
		"--attrs": (LDAP, ldap, ["--attrs", "cn,mail"]),
		"--bind-dn": (LDAP, ldap, ["--bind-dn", "cn=admin", "--bind-password-file", f["pw"]]),
		"--bind-password-file": (LDAP, ldap + ["--bind-dn", "cn=a", "--bind-password-file",
						       f["pw"]], ["--bind-password-file", f["pw2"]]),
		"--starttls": (LDAP, ldap, ["--starttls"]),
		"--procs": (TCP, ["-c", "4"], ["--procs", "2"]),
		"--pipeline": (TCP, [], ["--pipeline", "4"]),
		"--quiet": (TCP, [], ["--quiet"]),
	}


def args(driver=None, driver_args=None, **kw):
	"""doctor's parsed options, as main() makes them."""
	a = argparse.Namespace(rate=None, connections="1", new_conn=False, reconnect_every=None,
			       closer="client", duration=None, source_addrs=1, target=None,
			       driver=driver, pid=None, json=False, driver_args=driver_args)
	for k, v in kw.items():
		setattr(a, k, v)
	return a


def doctor_plan(argv):
	a = args(driver_args=list(argv))
	doctor.check_args(a)
	return doctor.plan_from_args(a)


class DriverPlanTest(unittest.TestCase):
	@classmethod
	def setUpClass(cls):
		procs.binary("loadlens-driver")  # the driver must be built: a failure, not a skip
		cls.tmp = tempfile.mkdtemp(prefix="ll-doctor-plan-")

	def test_every_driver_option_reaches_doctors_plan(self):
		keys = procs.driver_plan([TCP, "-d", "10s"])["option_keys"]
		table = samples(self.tmp)
		# the driver's list, not ours: an option added to the driver needs a sample here
		self.assertEqual(sorted(keys), sorted(table))
		self.assertIn("--connect-rate", keys)
		for opt, key in keys.items():
			target, base, given = table[opt]
			with self.subTest(option=opt):
				before = procs.driver_plan([target, "-d", "10s", *base])
				want = procs.driver_plan([target, "-d", "10s", *base, *given])
				self.assertNotEqual(want[key], before[key], f"{opt} left {key} as it was")
				got = doctor_plan([target, "-d", "10s", *base, *given])["driver"]
				self.assertEqual(got[key], want[key])
				self.assertEqual(got, want)
		for never in ("never.json", "never.hlog"):  # the plan opens no output
			self.assertFalse(os.path.exists(os.path.join(self.tmp, never)))

	def test_connect_rate_changes_the_verdict(self):
		base = [TCP, "-c", "50000", "-d", "10s"]
		at_once = doctor.plan_checks(HOST, doctor_plan(base))
		paced = doctor.plan_checks(HOST, doctor_plan(base + ["--connect-rate", "500"]))
		# all 50,000 at once: past the 28,232 ports and the 20,000 fds, a burst past somaxconn
		self.assertIsNotNone(doctor.first_break(at_once))
		self.assertTrue(check(at_once, "ephemeral ports")["breaks"])
		self.assertTrue(check(at_once, "open files, client")["breaks"])
		self.assertEqual(check(at_once, "open files, client")["need"], 50_080)
		self.assertTrue(check(at_once, "accept queue")["warning"])
		# 500/s for 10 s opens 5,000: every limit holds, the burst is 500
		self.assertIsNone(doctor.first_break(paced))
		self.assertEqual(check(paced, "ephemeral ports")["need"], 5_000)
		self.assertEqual(check(paced, "open files, client")["need"], 5_080)
		self.assertEqual(check(paced, "accept queue")["need"], 500)
		self.assertFalse(check(paced, "accept queue")["warning"])
		# a longer run reaches the fd limit when (20,000 - 80) connections are open
		long = doctor.plan_checks(HOST, doctor_plan([TCP, "-c", "50000", "-d", "2m",
							     "--connect-rate", "500"]))
		fds = check(long, "open files, client")
		self.assertTrue(fds["breaks"])
		self.assertAlmostEqual(fds["at_s"], (20_000 - 80) / 500)
		self.assertIn("opened at 500/s (--connect-rate)", fds["text"])

	def test_load_from_the_driver(self):
		p = doctor_plan([TCP, "-c", "200", "-t", "2", "--rate", "60k", "--new-conn", "-d", "1m",
				 "--size", "64", "--source-addr", "127.0.0.2,127.0.0.3"])
		self.assertEqual((p["connections"], p["rate"], p["model"], p["closer"]),
				 (200, 60_000, "new-conn", "client"))
		self.assertEqual((p["duration_s"], p["source_addrs"], p["threads"]), (60, 2, 2))
		self.assertTrue(p["loopback"])
		p = doctor_plan([HTTP, "--http-close", "--rate=1k", "-c", "8", "-d", "5s"])
		self.assertEqual((p["closer"], p["model"], p["rate"], p["connections"]),
				 ("server", "new-conn", 1000, 8))
		# a header that looks like an option is the header's text, not --new-conn
		p = doctor_plan([HTTP, "-c", "8", "-d", "5s", "--reconnect-every", "50",
				 "-H", "X-A: --new-conn"])
		self.assertEqual((p["model"], p["reconnect_every"]), ("reconnect", 50))
		# this machine's share of a sharded rate; -n at --rate ends first; warm-up added
		p = doctor_plan([TCP, "--rate", "10k", "--connect-rate", "2k", "--shard", "0/4",
				 "-n", "50k", "-d", "1m", "--warmup", "2s"])
		self.assertEqual((p["rate"], p["connect_rate"]), (2500, 500))
		self.assertEqual(p["duration_s"], 50_000 / 10_000 + 2)
		# --driver's command line is read the same way
		a = args(driver="loadlens-driver tcp://127.0.0.1:7000 -c 3 -d 1s --connect-rate 9")
		self.assertEqual(doctor.plan_from_args(a)["connect_rate"], 9)

	def test_refused_command_lines(self):
		for argv, said in (([TCP, "-c", "0", "-d", "1s"], "-c 0: out of range"),
				   ([TCP, "-d", "1s", "--no-such"], "unknown option --no-such"),
				   ([TCP, "-c", "4"], "-n REQUESTS or -d DURATION"),
				   (["-d", "1s"], "missing target")):
			with self.subTest(argv=argv):
				with self.assertRaises(ValueError) as e:
					doctor_plan(argv)
				self.assertIn(said, str(e.exception))
				self.assertEqual(len(str(e.exception).splitlines()), 1)
		with self.assertRaises(ValueError):
			doctor.check_args(args(driver="x", driver_args=[TCP]))
		with self.assertRaises(ValueError):
			doctor.check_args(args(driver_args=[TCP, "-d", "1s"], rate="5"))

	def test_no_driver_is_a_usage_error(self):
		old = os.environ.get("LOADLENS_BIN")
		os.environ["LOADLENS_BIN"] = os.path.join(self.tmp, "nothing-here")
		try:
			with self.assertRaises(ValueError) as e:
				doctor_plan([TCP, "-d", "1s"])
		finally:
			if old is None:
				del os.environ["LOADLENS_BIN"]
			else:
				os.environ["LOADLENS_BIN"] = old
		self.assertIn("loadlens-driver is not built", str(e.exception))

	def test_the_command(self):
		"""loadlens doctor --json -- ARGS: the plan in its JSON, a refused option exit 64."""
		env = dict(os.environ, PYTHONPATH=os.path.join(SRC, "tools"))
		cmd = [sys.executable, "-m", "lltools", "doctor", "--json", "--"]
		r = subprocess.run(cmd + [TCP, "-c", "100", "-d", "10s", "--connect-rate", "500"],
				   capture_output=True, text=True, env=env, timeout=120)
		doc = json.loads(r.stdout)
		self.assertEqual(doc["plan"]["connect_rate"], 500)
		self.assertEqual(doc["plan"]["driver"]["connect_rate"], 500)
		r = subprocess.run(cmd + [TCP, "-d", "10s", "--connect-rate", "0"],
				   capture_output=True, text=True, env=env, timeout=120)
		self.assertEqual(r.returncode, 64)
		self.assertEqual(r.stdout, "")
		self.assertEqual(len(r.stderr.splitlines()), 1)
		self.assertIn("--connect-rate 0", r.stderr)


class RunChecksDriverTest(unittest.TestCase):
	"""loadlens run and sweep hand -- ARGS to the driver: the driver checks them first."""

	def test_refused_before_any_work(self):
		tmp = tempfile.mkdtemp(prefix="ll-run-plan-")
		obs = os.path.join(tmp, "obs.json")
		with open(obs, "w", encoding="utf-8") as f:
			json.dump(fixtures.observer(), f)
		out = os.path.join(tmp, "out")
		for cmd in (["run", TCP, "-c", "1,2", "-d", "1s"], ["sweep", TCP, "--max-c", "2"]):
			with self.subTest(cmd=cmd[0]):
				argv = cmd + ["--observer-json", obs, "--observer-json", obs, "--out", out,
					      "--", "--connect-rate", "0"]
				err = io.StringIO()
				with contextlib.redirect_stderr(err):
					self.assertEqual(front.main(argv), 64)
				self.assertIn("driver options: loadlens-driver: --connect-rate 0",
					      err.getvalue())
				self.assertFalse(os.path.exists(out), "an output directory was made")
		# the level's own options are the driver's too: -c past its limit, in its words
		with self.assertRaises(front.Usage) as e:
			front.driver_checked(argparse.Namespace(target=TCP, duration="1s"),
					     [{"connections": 1, "rate": None}], ["-c", "0"])
		self.assertIn("loadlens-driver: -c 0: out of range", str(e.exception))
		front.driver_checked(argparse.Namespace(target=TCP, duration="1s"),
				     [{"connections": 4, "rate": 100}], ["--connect-rate", "50"])


if __name__ == "__main__":
	unittest.main()
