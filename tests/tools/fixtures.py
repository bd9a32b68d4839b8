# SPDX-License-Identifier: MIT
"""Small driver and observer documents in their documented schemas, for the unit tests."""


def hist(count, mean, p50, p90=None, p99=None):
	return {"unit": "ns", "count": count, "mean": mean, "sum": mean * count, "p50": p50,
		"p90": p90 or p50, "p99": p99 or p50, "p999": p99 or p50, "max": p99 or p50}


def driver(requests=1000, rtt_mean=1_100_000, rtt_p50=1_050_000, rtt_p99=2_000_000, rps=900.0,
	   connections=4, rate=None, errors=None, core=0.1, bottleneck=None, lag_p99=None, **extra):
	errs = {"EADDRNOTAVAIL": 0, "EMFILE": 0, "ECONNREFUSED": 0, "ETIMEDOUT": 0}
	errs.update(errors or {})
	h = hist(requests, rtt_mean, rtt_p50, rtt_p50 * 1.5, rtt_p99)
	return {"tool": "loadlens-driver", "schema": 2, "target": "http://127.0.0.1:8080/",
		"config": {"connections": connections, "rate": rate}, "requests": requests,
		"errors": errs, "errors_total": sum(errs.values()), "throughput_rps": rps,
		"duration_ns": int(requests / rps * 1e9) if rps else 1,
		"driver": {"cpu_ns": 1e8, "busiest_thread_core": core, "bottleneck": bottleneck,
			   "cpu_per_request_us": 5.0},
		"latency": h, "latency_uncorrected": h,
		"send_lag": hist(requests, 1000, 1000, 1000, lag_p99 or 2000), **extra}


def observer(requests=1000, queue_mean=50_000, service_mean=1_000_000, share_sum=0,
	     share_count=0, runq_sum=0, findings=None, old_findings=None, port=8080, listen=None):
	res_mean = queue_mean + service_mean + (share_sum / requests if requests else 0)
	slot = {"port": port, "proto": "tcp", "requests": requests, "server_throughput_rps": 899.0,
		"socket_queue_wait": hist(requests, queue_mean, queue_mean),
		"service_time": hist(requests, service_mean, service_mean),
		"residence": hist(requests, res_mean, res_mean * 0.98, None, res_mean * 1.7),
		"accept_queue_share": ({"count": share_count, "sum": share_sum,
					"mean": share_sum / share_count, "p50": share_sum / share_count}
				       if share_count else {"count": 0}),
		"no_arrival": 0, "unanswered": 0}
	doc = {"tool": "loadlens-observer", "ports": [port], "accepted": 4,
	       "accept_queue_wait": {"count": 0},
	       "request_timing": {"slots": [slot], "features": {"arrival_share": 1},
				  "run_queue_wait": ({"count": 10, "sum": runq_sum, "mean": runq_sum / 10,
						      "p50": runq_sum / 10} if runq_sum else None)},
	       "forensics": {"findings": old_findings or [], "listen": listen or {
		       "overflows": 0, "queue_max": 0, "backlog": 0}}}
	if findings is not None:
		doc["findings"] = findings
	return doc
