# SPDX-License-Identifier: MIT
"""The report page: every plot present, with data points, as PNG data URIs."""
import base64
import os
import re
import tempfile
import unittest

import fixtures as fx
from lltools import join, report


def run_doc():
	levels = []
	for i, c in enumerate((1, 2, 4)):
		lv = join.join_level(fx.driver(rps=100 * c, connections=c),
				     fx.observer(queue_mean=10_000 * c, runq_sum=1_000_000), 8080, "tcp",
				     {"connections": c, "rate": None})
		levels.append(lv)
	ts = [{"t": float(t), "level": t // 3, "time_wait": t * 10, "ports_in_use": t,
	       "port_range": 28232, "fds_open": 30 + t, "fds_soft_limit": 1024, "fds_comm": "srv",
	       "failures_per_s": 0.0, "listen_overflows_per_s": 0.0, "resets_sent_per_s": 0.0}
	      for t in range(9)]
	return {"tool": "loadlens", "kind": "run", "target": "http://127.0.0.1:8080/", "port": 8080,
		"proto": "tcp", "levels": levels, "timeseries": ts}


class ReportTest(unittest.TestCase):
	def test_page(self):
		with tempfile.TemporaryDirectory() as d:
			out = os.path.join(d, "r.html")
			report.write([run_doc()], out, os.path.join(d, "png"))
			page = open(out, encoding="utf-8").read()
			points = [int(x) for x in re.findall(r'data-points="(\d+)"', page)]
			self.assertEqual(len(points), 4)  # throughput, latency, split, time series
			self.assertTrue(all(p > 0 for p in points))
			imgs = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
			self.assertEqual(len(imgs), 4)
			for b in imgs:
				self.assertEqual(base64.b64decode(b)[:8], b"\x89PNG\r\n\x1a\n")
			self.assertEqual(len(os.listdir(os.path.join(d, "png"))), 4)
			self.assertNotIn("no data for this plot", page)
			self.assertNotIn("http://", re.sub(r"<h2>.*?</h2>|<pre>.*?</pre>", "", page,
							   flags=re.S).replace("http://127.0.0.1:8080/", ""))

	def test_failed_run(self):
		doc = run_doc()
		doc["failed"] = {"reason": "no request succeeded at any level", "levels": 3,
				 "errors": {"ECONNREFUSED": 30}, "errors_total": 30, "hint": "<listening?>",
				 "observer": [{"kind": "no_listener", "severity": "note",
					       "text": "nothing listens on port 8080"}]}
		with tempfile.TemporaryDirectory() as d:
			out = os.path.join(d, "r.html")
			report.write([doc], out)
			page = open(out, encoding="utf-8").read()
			box = re.search(r"<div class=failed><pre>(.*?)</pre>", page, re.S).group(1)
			self.assertIn("30 errors (ECONNREFUSED 30)", box)
			self.assertIn("&lt;listening?&gt;", box)
			self.assertIn("observer [no_listener]: nothing listens on port 8080", box)
			self.assertNotIn("class=failed", report.section(run_doc()))

	def test_observer_document(self):
		doc = report.as_document(fx.observer(), "/nonexistent/obs.json")
		self.assertEqual(doc["kind"], "observer")
		with tempfile.TemporaryDirectory() as d:
			out = os.path.join(d, "r.html")
			report.write([doc], out)
			page = open(out, encoding="utf-8").read()
			self.assertEqual(len(re.findall(r'data-points="[1-9]', page)), 1)
			self.assertIn("time series: no data for this plot", page)


if __name__ == "__main__":
	unittest.main()
