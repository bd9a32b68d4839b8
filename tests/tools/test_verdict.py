# SPDX-License-Identifier: MIT
"""A sweep's stop rule, peak, knee and the resource that ran out first."""
import unittest

import fixtures as fx
from lltools import join, verdict

MS = 1_000_000


def level(c, rps, p99_ms, obs=None, **kw):
	lv = join.join_level(fx.driver(rps=rps, rtt_p99=p99_ms * MS, connections=c, **kw), obs,
			     8080, "tcp", {"connections": c, "rate": None})
	lv["host_cpu_busy"] = 0.3
	lv["ncpu"] = 2
	return lv


class VerdictTest(unittest.TestCase):
	def test_plateau_after_two_small_steps(self):
		lv = [level(1, 100, 2), level(2, 200, 2), level(4, 204, 3)]
		self.assertIsNone(verdict.stop_reason(lv, 100 * MS))
		lv.append(level(8, 206, 5))
		self.assertIn("plateaued", verdict.stop_reason(lv, 100 * MS))

	def test_growth_goes_on(self):
		lv = [level(1, 100, 2), level(2, 190, 2), level(4, 350, 3)]
		self.assertIsNone(verdict.stop_reason(lv, 100 * MS))

	def test_latency_bound(self):
		lv = [level(1, 100, 2), level(2, 190, 120)]
		self.assertIn("passed the bound", verdict.stop_reason(lv, 100 * MS))

	def test_errors_stop(self):
		lv = [level(1, 100, 2, errors={"EADDRNOTAVAIL": 50})]
		self.assertIn("failed", verdict.stop_reason(lv, 100 * MS))

	def test_peak_and_knee(self):
		lv = [level(1, 100, 2), level(2, 195, 3), level(4, 380, 5), level(8, 400, 40),
		      level(16, 410, 150)]
		v = verdict.verdict(lv, 50 * MS)
		# 16 is faster but passes the bound: the peak at acceptable latency is at 8
		self.assertEqual(v["peak"]["level"]["connections"], 8)
		self.assertEqual(v["peak"]["throughput_rps"], 400)
		# knee: the first level at 90% of 410
		self.assertEqual(v["knee"]["level"]["connections"], 4)

	def test_no_acceptable_level(self):
		v = verdict.verdict([level(1, 100, 200)], 50 * MS)
		self.assertIsNone(v["peak"])
		self.assertIn("no level met the bound", verdict.describe(v, join.level_name)[0])

	def test_nothing_answered(self):
		no_listener = [{"kind": "no_listener", "severity": "note",
				"text": "nothing listens on port 8080"},
			       {"kind": "listen_overflow", "severity": "warning", "text": "other port",
				"evidence": {"port": 9999}}]
		lv = [level(c, 0, 0, obs=fx.observer(requests=0, findings=no_listener), requests=0,
			    errors={"ECONNREFUSED": 10 * c, "ETIMEDOUT": c}) for c in (1, 2)]
		f = verdict.nothing_answered(lv)
		self.assertEqual(f["errors"], {"ECONNREFUSED": 30, "ETIMEDOUT": 3})
		self.assertEqual(list(f["errors"]), ["ECONNREFUSED", "ETIMEDOUT"])  # commonest first
		self.assertEqual(f["errors_total"], 33)
		self.assertIn("listening", f["hint"])
		# the note is shown once, the other port's finding not at all
		self.assertEqual([o["kind"] for o in f["observer"]], ["no_listener"])
		text = "\n".join(verdict.describe_failure(f))
		self.assertIn("no request succeeded at any level (2 level(s)): 33 errors "
			      "(ECONNREFUSED 30, ETIMEDOUT 3)", text)
		self.assertIn("observer [no_listener]: nothing listens on port 8080", text)

	def test_one_answer_is_not_a_failure(self):
		lv = [level(1, 0, 0, requests=0, errors={"ECONNREFUSED": 10}), level(2, 5, 2, requests=1)]
		self.assertIsNone(verdict.nothing_answered(lv))
		self.assertIsNone(verdict.nothing_answered([]))

	def test_nothing_answered_without_errors(self):
		f = verdict.nothing_answered([level(1, 0, 0, requests=0)])
		self.assertIsNone(f["hint"])
		self.assertIn("counted no failure", verdict.describe_failure(f)[0])
		self.assertIn("no finding about this port", verdict.describe_failure(f)[-1])

	def test_healthy_names_nothing(self):
		v = verdict.verdict([level(1, 100, 2, obs=fx.observer(queue_mean=10_000)),
				     level(2, 200, 2, obs=fx.observer(queue_mean=10_000))], 50 * MS)
		self.assertIsNone(v["ran_out_first"])
		self.assertIn("nothing named", verdict.describe(v, join.level_name)[2])

	def test_observer_finding_names_the_resource(self):
		obs = fx.observer(queue_mean=10_000, findings=[
			{"kind": "port_exhaustion", "severity": "critical", "text": "ports: 1000 of 1000"}])
		v = verdict.verdict([level(1, 100, 2, obs=fx.observer(queue_mean=10_000)),
				     level(2, 150, 3, obs=obs)], 50 * MS)
		self.assertEqual(v["ran_out_first"]["resource"], "ports")
		self.assertEqual(v["ran_out_first"]["level"]["connections"], 2)

	def test_note_findings_do_not_count(self):
		obs = fx.observer(queue_mean=10_000, old_findings=[{"kind": "time_wait", "text": "x"}])
		v = verdict.verdict([level(1, 100, 2, obs=obs)], 50 * MS)
		self.assertIsNone(v["ran_out_first"])

	def test_old_listen_finding(self):
		obs = fx.observer(queue_mean=10_000, old_findings=[{"kind": "listen", "text": "overflow"}],
				  listen={"overflows": 3, "queue_max": 0, "backlog": 0})
		v = verdict.verdict([level(1, 100, 2, obs=obs)], 50 * MS)
		self.assertEqual(v["ran_out_first"]["resource"], "accept queue")

	def test_old_listen_finding_from_host_wide_drops_only(self):
		# skb drops are counted host-wide: with no ListenOverflows in the netns it is not ours
		obs = fx.observer(queue_mean=10_000, old_findings=[{"kind": "listen", "text": "overflow"}])
		self.assertEqual(verdict.evidence(level(1, 100, 2, obs=obs)), [])

	def test_finding_for_another_port(self):
		obs = fx.observer(queue_mean=10_000, findings=[
			{"kind": "listen_overflow", "severity": "warning", "text": "x",
			 "evidence": {"port": 9999, "overflows": 5, "backlog": 128}}])
		self.assertEqual(verdict.evidence(level(1, 100, 2, obs=obs)), [])
		obs["findings"][0]["evidence"]["port"] = 8080
		self.assertEqual(verdict.evidence(level(1, 100, 2, obs=obs))[0]["resource"],
				 "accept queue")

	def test_driver_is_the_bottleneck(self):
		v = verdict.verdict([level(1, 100, 2, obs=fx.observer(queue_mean=10_000)),
				     level(2, 120, 2, obs=fx.observer(queue_mean=10_000), core=0.97)],
				    50 * MS)
		self.assertEqual(v["ran_out_first"]["resource"], "driver")

	def test_send_lag_names_the_driver_in_open_loop(self):
		lv = join.join_level(fx.driver(rate=1000, lag_p99=5 * MS, core=0.6),
				     fx.observer(queue_mean=1000), 8080, "tcp",
				     {"connections": 64, "rate": 1000})
		lv["ncpu"] = 2
		self.assertEqual(verdict.evidence(lv)[0]["resource"], "driver")
		# late while idle: other processes took the CPU, not the driver's limit
		lv["driver"]["busiest_thread_core"] = 0.02
		lv["driver"]["bottleneck"] = "the driver's sends ran late ... other load on this machine"
		self.assertEqual(verdict.evidence(lv), [])

	def test_open_loop_bound_is_on_the_intended_latency(self):
		lv = join.join_level(fx.driver(rate=2000, rtt_p99=30 * MS), None, 8080, "tcp",
				     {"connections": 32, "rate": 2000})
		lv["driver"]["latency_intended"] = dict(lv["driver"]["rtt"], p99=900 * MS)
		self.assertIn("passed the bound", verdict.stop_reason([lv], 100 * MS))

	def test_driver_errors(self):
		v = verdict.verdict([level(1, 100, 2, errors={"EMFILE": 3})], 50 * MS)
		self.assertEqual(v["ran_out_first"]["resource"], "fds")

	def test_workers_from_the_split(self):
		obs = fx.observer(queue_mean=5 * MS, service_mean=1 * MS)
		v = verdict.verdict([level(8, 1000, 10, obs=obs)], 50 * MS)
		self.assertEqual(v["ran_out_first"]["resource"], "server workers")

	def test_workers_need_a_real_queue(self):
		# equal queue and service (c=2, one worker), an event loop's microseconds, one connection
		for c, q, sv in ((2, 1 * MS, 1 * MS), (4, 8_000, 2_000), (1, 5 * MS, 1 * MS)):
			obs = fx.observer(queue_mean=q, service_mean=sv)
			self.assertEqual(verdict.evidence(level(c, 1000, 10, obs=obs)), [], (c, q, sv))

	def test_busy_host_alone_is_not_cpu(self):
		lv = level(1, 100, 2, obs=fx.observer(queue_mean=10_000))
		lv["host_cpu_busy"] = 0.99  # others use the CPU; server and driver do not
		self.assertEqual(verdict.evidence(lv), [])
		lv["server_cpu"] = {"pid": 1, "comm": "srv", "cores": 1.9, "busiest_thread_core": 0.95}
		self.assertEqual(verdict.evidence(lv)[0]["resource"], "CPU")


if __name__ == "__main__":
	unittest.main()
