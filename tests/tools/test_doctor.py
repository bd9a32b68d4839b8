# SPDX-License-Identifier: MIT
"""doctor's arithmetic: which limit a planned load breaks first, and when."""
import unittest

from lltools import doctor

HOST = {"file_max": 2_000_000, "nr_open": 1_048_576, "file_nr": 1000,
	"port_range": (32768, 60999), "tw_reuse": 0, "fin_timeout": 60, "timestamps": 1,
	"max_tw_buckets": 4_000_000, "somaxconn": 4096, "syn_backlog": 2048,
	"conntrack_max": None, "conntrack_count": None, "conntrack_tw": None,
	"nofile": (20000, 20000), "nofile_of": "test"}


def plan(**kw):
	p = {"rate": 60_000, "connections": 200, "model": "new-conn", "reconnect_every": 0,
	     "closer": "client", "duration_s": None, "source_addrs": 1,
	     "target": "tcp://10.0.0.5:7000", "threads": 1}
	p.update(kw)
	return p


def check(checks, limit):
	return next(c for c in checks if c["limit"].startswith(limit))


class DoctorTest(unittest.TestCase):
	def test_the_jaxrs_lab(self):
		c = doctor.plan_checks(HOST, plan())
		ports = check(c, "ephemeral ports")
		self.assertEqual(ports["need"], 200 + 60_000 * 60)
		self.assertEqual(ports["have"], 28_232)
		self.assertTrue(ports["breaks"])
		self.assertAlmostEqual(ports["at_s"], (28_232 - 200) / 60_000)
		self.assertIn("3.6M ports needed vs 28,232", ports["text"])
		fb = doctor.first_break(c)
		self.assertIs(fb, ports)
		fixes = "\n".join(ports["fix"])
		self.assertIn('ip_local_port_range="1024 65535"', fixes)
		self.assertIn("tcp_tw_reuse=1", fixes)
		# with tcp_tw_reuse, 60,000 x 1 s + 200 fits the widest range (64,512)
		self.assertNotIn("only reusing connections", fixes)
		big = check(doctor.plan_checks(HOST, plan(rate=100_000)), "ephemeral ports")
		self.assertIn("only reusing connections", "\n".join(big["fix"]))
		self.assertIn("reuse connections", ports["app_fix"])

	def test_tw_reuse_on_loopback(self):
		h = dict(HOST, tw_reuse=2)
		far = check(doctor.plan_checks(h, plan(rate=1000)), "ephemeral ports")
		near = check(doctor.plan_checks(h, plan(rate=1000, target="tcp://127.0.0.1:7000")),
			     "ephemeral ports")
		self.assertEqual(far["need"], 200 + 1000 * 60)
		self.assertEqual(near["need"], 200 + 1000 * 1)
		self.assertTrue(far["breaks"])
		self.assertFalse(near["breaks"])

	def test_tw_reuse_needs_timestamps(self):
		h = dict(HOST, tw_reuse=1, timestamps=0)
		self.assertEqual(check(doctor.plan_checks(h, plan(rate=1000)), "ephemeral")["need"],
				 200 + 60_000)

	def test_server_closes_first(self):
		c = doctor.plan_checks(HOST, plan(closer="server"))
		ports = check(c, "ephemeral ports")
		self.assertFalse(ports["breaks"])
		self.assertEqual(ports["need"], 200)
		tw = check(c, "TIME_WAIT buckets (server)")
		self.assertEqual(tw["need"], 3_600_000)

	def test_keep_alive_needs_no_new_ports(self):
		c = doctor.plan_checks(HOST, plan(model="keep-alive"))
		self.assertFalse(check(c, "ephemeral")["breaks"])
		self.assertIsNone(doctor.first_break(c))

	def test_reconnect_every(self):
		c = doctor.plan_checks(HOST, plan(model="reconnect", reconnect_every=100))
		self.assertEqual(check(c, "ephemeral")["need"], 200 + 600 * 60)
		self.assertTrue(check(c, "ephemeral")["breaks"])

	def test_duration_shorter_than_the_break(self):
		# 1,000 conn/s fills 28,032 free ports after 28 s: a 10 s run holds
		c = doctor.plan_checks(HOST, plan(rate=1000, duration_s=10))
		self.assertFalse(check(c, "ephemeral")["breaks"])
		c = doctor.plan_checks(HOST, plan(rate=1000, duration_s=60))
		self.assertAlmostEqual(check(c, "ephemeral")["at_s"], 28.032)

	def test_narrow_range_and_low_nofile(self):
		h = dict(HOST, port_range=(40000, 40999), nofile=(256, 256))
		c = doctor.plan_checks(h, plan(rate=100, connections=500, model="new-conn"))
		ports = check(c, "ephemeral")
		self.assertTrue(ports["breaks"])
		self.assertAlmostEqual(ports["at_s"], 5.0)  # (1000 - 500) / 100
		fds = check(c, "open files, client")
		self.assertTrue(fds["breaks"])
		self.assertEqual(fds["at_s"], 0)
		self.assertIn("ulimit -n 65536", "\n".join(fds["fix"]))
		# the fd limit breaks at once, before the ports
		self.assertIs(doctor.first_break(c)["limit"].startswith("open files"), True)

	def test_nr_open_caps_the_fix(self):
		h = dict(HOST, nofile=(1024, 4096), nr_open=50_000)
		c = doctor.plan_checks(h, plan(model="keep-alive", connections=100_000))
		self.assertIn("fs.nr_open", "\n".join(check(c, "open files, client")["fix"]))

	def test_conntrack(self):
		h = dict(HOST, conntrack_max=262_144, conntrack_tw=120)
		ct = check(doctor.plan_checks(h, plan(rate=5000)), "conntrack")
		self.assertEqual(ct["need"], 200 + 5000 * 120)
		self.assertAlmostEqual(ct["at_s"], (262_144 - 200) / 5000)

	def test_somaxconn_is_a_warning(self):
		c = doctor.plan_checks(HOST, plan(model="keep-alive", connections=10_000))
		s = check(c, "accept queue")
		self.assertTrue(s["warning"])
		self.assertFalse(s["breaks"])

	def test_closed_loop_without_rate_is_unknown(self):
		c = doctor.plan_checks(HOST, plan(rate=None))
		self.assertIsNone(check(c, "ephemeral")["need"])
		self.assertFalse(check(c, "ephemeral")["breaks"])

	def test_render(self):
		c = doctor.plan_checks(HOST, plan())
		text = doctor.render(HOST, {"checks": [], "tracepoints": [
			{"tracepoint": "sock:sk_data_ready", "attach": "tp_btf", "present": True,
			 "object": "sockets", "program": "handle_sk_data_ready"}]}, plan(), c)
		self.assertIn("breaks first: ephemeral ports, after 0.467 s", text)
		self.assertIn("sock:sk_data_ready", text)
		self.assertIn("sysctl -w net.ipv4.tcp_tw_reuse=1", text)


if __name__ == "__main__":
	unittest.main()
