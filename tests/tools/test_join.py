# SPDX-License-Identifier: MIT
"""The join of the driver's and the observer's JSON: what adds up, what is flagged."""
import unittest

import fixtures as fx
from lltools import join, schema


class JoinTest(unittest.TestCase):
	def test_means_add_up(self):
		obs = fx.observer(share_sum=4 * 200_000, share_count=4, runq_sum=30_000_000)
		lv = join.join_level(fx.driver(), obs, 8080, "tcp", {"connections": 4, "rate": None})
		self.assertTrue(lv["counts_match"])
		m = lv["split"]["mean"]
		self.assertAlmostEqual(m["residence"] + m["remainder"], m["rtt"])
		st = lv["stack_mean_ns"]
		# the stacked parts add up to the mean round trip
		self.assertAlmostEqual(sum(st.values()), m["rtt"], places=3)
		# run queue: 30 ms over 1000 requests = 30 us, taken out of the socket queue first
		self.assertAlmostEqual(st["run_queue"], 30_000)
		self.assertAlmostEqual(st["socket_queue"], 50_000 - 30_000)
		self.assertAlmostEqual(st["accept_queue"], 800)

	def test_runq_larger_than_queue_comes_out_of_service(self):
		obs = fx.observer(queue_mean=10_000, runq_sum=50_000_000)  # 50 us per request
		st = join.join_level(fx.driver(), obs, 8080, "tcp")["stack_mean_ns"]
		self.assertAlmostEqual(st["socket_queue"], 0)
		self.assertAlmostEqual(st["run_queue"], 50_000)
		self.assertAlmostEqual(st["service"], 1_000_000 - 40_000)

	def test_percentile_remainder(self):
		lv = join.join_level(fx.driver(rtt_p50=1_200_000), fx.observer(), 8080, "tcp")
		sp = lv["split"]["p50"]
		self.assertEqual(sp["rtt"], 1_200_000)
		self.assertEqual(sp["remainder"], 1_200_000 - sp["residence"])

	def test_count_mismatch_is_said(self):
		lv = join.join_level(fx.driver(requests=1000), fx.observer(requests=990), 8080, "tcp")
		self.assertFalse(lv["counts_match"])
		self.assertTrue(any("990" in n and "1000" in n for n in lv["notes"]))

	def test_answered_errors_count_as_served(self):
		# 100 of 1000 calls answered RESOURCE_EXHAUSTED: errors to the driver, with a round trip
		drv = fx.driver(requests=900, errors={"grpc_status": 100})
		drv["latency_uncorrected"] = fx.hist(1000, 1_100_000, 1_050_000)
		lv = join.join_level(drv, fx.observer(requests=1000), 8080, "tcp")
		self.assertEqual(lv["driver"]["answered"], 1000)
		self.assertTrue(lv["counts_match"])
		lv = join.join_level(drv, fx.observer(requests=900), 8080, "tcp")
		self.assertFalse(lv["counts_match"])
		self.assertIn("the server saw 900 requests, the driver had 1000 answers", lv["notes"][0])

	def test_ldap_binds_are_answers(self):
		drv = fx.driver(requests=1000, ldap={"searches": 1000, "bind": {"success": 4}})
		lv = join.join_level(drv, fx.observer(requests=1004), 8080, "tcp")
		self.assertEqual(lv["driver"]["answered"], 1004)
		self.assertTrue(lv["counts_match"])

	def test_no_slot_for_port(self):
		lv = join.join_level(fx.driver(), fx.observer(port=9999), 8080, "tcp")
		self.assertIsNone(lv["split"])
		self.assertTrue(any("tcp/8080" in n for n in lv["notes"]))

	def test_no_observer(self):
		lv = join.join_level(fx.driver(), None, 8080, "tcp")
		self.assertIsNone(lv["server"])
		self.assertIn("client figures only", lv["notes"][0])
		self.assertIn("c=4", join.table([lv]))

	def test_not_a_driver_document(self):
		with self.assertRaises(schema.SchemaError):
			join.join_level(fx.observer(), None, 8080, "tcp")

	def test_table_rows(self):
		lv = join.join_level(fx.driver(), fx.observer(), 8080, "tcp", {"connections": 4})
		t = join.table([lv])
		self.assertEqual(t.count("c=4"), 3)  # p50, p99, mean
		self.assertIn("1.05ms", t)

	def test_statuses(self):
		drv = fx.driver(status={"200": 990, "503": 10, "404": 0}, grpc_status={"OK": 5},
				h2={"goaway": 2, "goaway_refused": 7, "goaway_retried": 40,
				    "rst_stream": {"REFUSED_STREAM": 3}},
				ldap={"result": {"success": 4, "busy": 1}, "empty": 2})
		obs = fx.observer()
		obs["request_timing"]["slots"][0]["h2_statuses"] = {
			"status": {"200": 990, "503": 10}, "grpc_status": {}}
		lv = join.join_level(drv, obs, 8080, "tcp", {"connections": 4})
		self.assertEqual(lv["driver"]["statuses"], {
			"http": {"200": 990, "503": 10}, "grpc": {"OK": 5},
			"ldap": {"success": 4, "busy": 1}, "ldap_empty": 2, "goaway": 2,
			"goaway_refused": 7, "goaway_retried": 40, "rst_stream": {"REFUSED_STREAM": 3}})
		self.assertEqual(lv["server"]["statuses"], {"http": {"200": 990, "503": 10}})
		line = [x for x in join.table([lv]).splitlines() if x.startswith("c=4: status")][0]
		self.assertEqual(line, "c=4: status 200 990, 503 10; grpc-status OK 5; LDAP result "
				 "success 4, busy 1; 2 searches found no entry; GOAWAY 2 (streams it "
				 "refused sent again 40, refused twice 7); RST_STREAM REFUSED_STREAM 3; the server sent (observer) "
				 ":status 200 990, 503 10")

	def test_no_statuses_no_line(self):
		lv = join.join_level(fx.driver(), fx.observer(), 8080, "tcp", {"connections": 4})
		self.assertIsNone(lv["driver"]["statuses"])
		self.assertIsNone(lv["server"]["statuses"])
		self.assertNotIn("status", join.table([lv]).replace("(client round trip", ""))

	def test_fmt_ns(self):
		self.assertEqual(join.fmt_ns(850), "850ns")
		self.assertEqual(join.fmt_ns(48_200), "48.2us")
		self.assertEqual(join.fmt_ns(1_050_000), "1.05ms")
		self.assertEqual(join.fmt_ns(-2_000), "-2us")
		self.assertEqual(join.fmt_ns(None), "-")


class SchemaTest(unittest.TestCase):
	def test_target_port_proto(self):
		self.assertEqual(schema.target_port_proto("http://127.0.0.1:8080/x"), (8080, "tcp"))
		self.assertEqual(schema.target_port_proto("http://example/"), (80, "tcp"))
		self.assertEqual(schema.target_port_proto("https://[::1]/"), (443, "tcp"))
		self.assertEqual(schema.target_port_proto("https://[::1]:8443/"), (8443, "tcp"))
		self.assertEqual(schema.target_port_proto("udp://127.0.0.1:53"), (53, "udp"))
		self.assertEqual(schema.target_port_proto("grpc://127.0.0.1:50051/kv.Store/Put"),
				 (50051, "tcp"))
		self.assertEqual(schema.target_port_proto("grpcs://h/kv.Store/Get"), (443, "tcp"))
		self.assertEqual(schema.target_port_proto("ldap://h/dc=example?uid?sub?(uid=a)"),
				 (389, "tcp"))
		for bad in ("127.0.0.1:80", "tcp://host", "ftp://h:21", "tcp://h:99999",
			    "grpc://h/kv.Store/Put", "x" * 3000):
			with self.assertRaises(schema.SchemaError):
				schema.target_port_proto(bad)

	def test_findings_old_shape(self):
		obs = fx.observer(old_findings=[{"kind": "ports", "text": "ephemeral ports ..."},
						{"kind": "time_wait", "text": "TIME_WAIT: ..."}])
		f = schema.findings(obs)
		self.assertEqual([x["kind"] for x in f], ["port_exhaustion", "time_wait"])
		self.assertEqual([x["severity"] for x in f], ["warning", "note"])

	def test_findings_contract_shape_wins(self):
		obs = fx.observer(findings=[{"kind": "fd_exhaustion", "severity": "critical",
					     "text": "fds: ...", "evidence": {"pid": 1}, "first_seen": 3}],
				  old_findings=[{"kind": "ports", "text": "x"}])
		f = schema.findings(obs)
		self.assertEqual(len(f), 1)
		self.assertEqual(f[0]["severity"], "critical")
		self.assertEqual(f[0]["evidence"], {"pid": 1})

	def test_ndjson_kinds(self):
		recs = [{"t": 1}, {"type": "interval", "t": 2}, {"type": "finding", "kind": "x"}]
		self.assertEqual(len(schema.ndjson_intervals(recs)), 2)
		self.assertEqual(len(schema.ndjson_findings(recs)), 1)


if __name__ == "__main__":
	unittest.main()
