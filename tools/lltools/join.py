# SPDX-License-Identifier: MIT
"""Join one load level: the driver's client view and the observer's server view. Pure.

Per load level:
  client round trip (RTT)   the driver's latency_uncorrected: actual send -> complete response
  residence                 the observer's residence: arrival at the server -> first write
                            = accept-queue share + socket-queue wait + service, per request
  remainder                 RTT - residence: the network and the client (its stack, its CPU)

Percentiles are taken from each side's own histogram, so "remainder p50" is the difference of
the two medians, not the median of per-request differences. Means add up exactly when both sides
counted the same requests: mean RTT = mean residence + mean remainder, and mean residence = the
sum of the components' sums over the requests (the stacked split uses means for that reason).
"""

from . import schema

PCTS = ("p50", "p90", "p99")


def _h(doc, key):
	return schema.hist(doc.get(key)) if doc else None


def _sum(h):
	return h["sum"] if h and h.get("sum") is not None else 0


def join_level(drv, obs, port, proto, level=None):
	"""One load level as a dict (see docs/loadlens.md, "JSON")."""
	schema.check_driver(drv)
	rtt = _h(drv, "latency_uncorrected") or _h(drv, "latency")
	d = {
		"requests": drv.get("requests", 0),
		"throughput_rps": drv.get("throughput_rps"),
		"errors_total": drv.get("errors_total", 0),
		"errors": {k: v for k, v in (drv.get("errors") or {}).items() if v},
		"rtt": rtt,
		"latency_intended": _h(drv, "latency"),
		"send_lag": _h(drv, "send_lag"),
		"connections": drv.get("connections"),
		"duration_s": (drv.get("duration_ns") or 0) / 1e9,
		"busiest_thread_core": (drv.get("driver") or {}).get("busiest_thread_core"),
		"cpu_per_request_us": (drv.get("driver") or {}).get("cpu_per_request_us"),
		"cores": ((drv.get("driver") or {}).get("cpu_ns") or 0) / drv["duration_ns"]
		if drv.get("duration_ns") else None,
		"bottleneck": (drv.get("driver") or {}).get("bottleneck"),
		"statuses": driver_statuses(drv),
	}
	# answers with a round trip: the completed requests and the answered errors, and LDAP's
	# binds at connect (the server answers those too; they are no search of the driver's)
	binds = sum(v for v in ((drv.get("ldap") or {}).get("bind") or {}).values()
		    if isinstance(v, int))
	d["answered"] = (rtt["count"] if rtt and rtt.get("count") is not None else d["requests"]) \
		+ binds
	cfg = drv.get("config") or {}
	out = {
		"level": dict(level or {"connections": cfg.get("connections"), "rate": cfg.get("rate")}),
		"target": drv.get("target"),
		"port": port,
		"proto": proto,
		"driver": d,
		"server": None,
		"split": None,
		"stack_mean_ns": None,
		"counts_match": None,
		"notes": [],
	}
	if obs is None:
		out["notes"].append("no observer summary for this level: client figures only")
		return out
	schema.check_observer(obs)
	slot = schema.observer_slot(obs, port, proto)
	rt = obs.get("request_timing") or {}
	if slot is None:
		out["notes"].append(f"the observer has no request timing for {proto}/{port} "
				    "(request timing off, or another port)")
		out["findings"] = schema.findings(obs)
		return out
	res = schema.hist(slot.get("residence"))
	queue = schema.hist(slot.get("socket_queue_wait"))
	service = schema.hist(slot.get("service_time"))
	share = schema.hist(slot.get("accept_queue_share"))
	runq = schema.hist(rt.get("run_queue_wait"))
	n = slot.get("requests", 0)
	s = {
		"requests": n,
		"throughput_rps": slot.get("server_throughput_rps"),
		"accept_queue_wait": schema.hist(obs.get("accept_queue_wait")),
		"accept_queue_share": share,
		"socket_queue_wait": queue,
		"service_time": service,
		"residence": res,
		"run_queue_wait": runq,
		"no_arrival": slot.get("no_arrival", 0),
		"unanswered": slot.get("unanswered", 0),
		"arrival_share": (rt.get("features") or {}).get("arrival_share"),
		"accepted": obs.get("accepted"),
		"listen": (obs.get("forensics") or {}).get("listen"),
		"statuses": server_statuses(slot),
	}
	out["server"] = s
	out["findings"] = schema.findings(obs)
	# the driver's round trips count every answer, an error status too (HTTP non-2xx,
	# grpc-status, an LDAP resultCode): the server served those as well
	nd = d["answered"]
	out["counts_match"] = (n == nd)
	if n != nd:
		out["notes"].append(f"the server saw {n} requests, the driver had {nd} answers: the "
				    "split compares different request sets")
	if s["no_arrival"]:
		out["notes"].append(f"{s['no_arrival']} requests had no arrival stamp (counted in "
				    "service only, not in residence)")
	if rtt and res:
		split = {}
		for p in PCTS:
			if rtt.get(p) is not None and res.get(p) is not None:
				split[p] = {"rtt": rtt[p], "residence": res[p], "remainder": rtt[p] - res[p]}
		split["mean"] = {"rtt": rtt["mean"], "residence": res["mean"],
				 "remainder": rtt["mean"] - res["mean"]}
		out["split"] = split
		out["stack_mean_ns"] = stack_means(rtt, res, share, queue, service, runq, n)
	return out


def _counts(c):
	"""{code: n} of the nonzero counts, or None when there are none."""
	if not isinstance(c, dict):
		return None
	c = {str(k): v for k, v in c.items() if isinstance(v, int) and v}
	return c or None


def driver_statuses(drv):
	"""The answers the driver counted by code (docs/driver.md): HTTP statuses, grpc-status by
	name, LDAP resultCodes of the searches (and those that found no entry), and HTTP/2's
	GOAWAYs, the streams they refused and RST_STREAMs by code; None when none was counted."""
	ldap = drv.get("ldap") or {}
	h2 = drv.get("h2") or {}
	out = {"http": _counts(drv.get("status")), "grpc": _counts(drv.get("grpc_status")),
	       "ldap": _counts(ldap.get("result")), "ldap_empty": ldap.get("empty") or None,
	       "goaway": h2.get("goaway") or None, "goaway_refused": h2.get("goaway_refused") or None,
	       "goaway_retried": h2.get("goaway_retried") or None,
	       "rst_stream": _counts(h2.get("rst_stream"))}
	return {k: v for k, v in out.items() if v} or None


def server_statuses(slot):
	"""The statuses the observer read from the server's HTTP/2 header blocks (HTTP :status and
	grpc-status), None when it read none."""
	h = slot.get("h2_statuses") or {}
	out = {"http": _counts(h.get("status")), "grpc": _counts(h.get("grpc_status"))}
	return {k: v for k, v in out.items() if v} or None


def _codes(c):
	return ", ".join(f"{k} {v:,}" for k, v in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def status_text(lv):
	"""One level's statuses in one line, or None: the driver's, then the server's as the
	observer read them."""
	d = lv["driver"].get("statuses") or {}
	s = (lv.get("server") or {}).get("statuses") or {}
	parts = []
	for key, name in (("http", "status"), ("grpc", "grpc-status"), ("ldap", "LDAP result")):
		if d.get(key):
			parts.append(f"{name} {_codes(d[key])}")
	if d.get("ldap_empty"):
		parts.append(f"{d['ldap_empty']:,} searches found no entry")
	if d.get("goaway"):
		parts.append(f"GOAWAY {d['goaway']:,} (streams it refused sent again "
			     f"{d.get('goaway_retried', 0):,}, refused twice {d.get('goaway_refused', 0):,})")
	if d.get("rst_stream"):
		parts.append(f"RST_STREAM {_codes(d['rst_stream'])}")
	srv = [f"{name} {_codes(s[key])}" for key, name in (("http", ":status"),
							     ("grpc", "grpc-status")) if s.get(key)]
	if srv:
		parts.append("the server sent (observer) " + "; ".join(srv))
	return "; ".join(parts) if parts else None


def stack_means(rtt, res, share, queue, service, runq, n):
	"""Mean time per request in each part: network+client, accept queue, socket queue, run queue,
	service. They add up to the mean RTT. The run queue (CPU wait of the serving threads, summed
	over their wake-ups, per request) is part of the queue and service time, not extra: it is
	taken out of the socket-queue wait first (a woken thread that waits for a CPU leaves the
	request in its socket), then out of service."""
	if not n:
		return None
	acc = _sum(share) / n
	q = _sum(queue) / n
	sv = _sum(service) / n
	rq = _sum(runq) / n if runq else 0.0
	rq_q = min(rq, q)
	rq_s = min(rq - rq_q, sv)
	net = rtt["mean"] - res["mean"]
	return {
		"network_client": net,
		"accept_queue": acc,
		"socket_queue": q - rq_q,
		"run_queue": rq_q + rq_s,
		"service": sv - rq_s,
	}


def fmt_ns(ns):
	"""ns as a short figure with a unit: 850ns, 48.2us, 1.05ms, 2.31s; '-' for None."""
	if ns is None:
		return "-"
	sign = "-" if ns < 0 else ""
	v = abs(ns)
	for unit, div in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
		if v >= div:
			x = v / div
			return f"{sign}{x:.3g}{unit}" if x < 100 else f"{sign}{x:.0f}{unit}"
	return f"{sign}{v:.0f}ns"


def level_name(level):
	parts = []
	if level.get("connections") is not None:
		parts.append(f"c={level['connections']}")
	if level.get("rate"):
		r = level["rate"]
		parts.append(f"rate={r:g}/s")
	return " ".join(parts) or "-"


def _p(h, p):
	return h.get(p) if h else None


def table(levels):
	"""The human table: one block per statistic (p50, p99, mean), one row per load level."""
	lines = []
	head = (f"{'':14} {'req/s':>9} {'srv req/s':>9} {'RTT':>8} = {'residence':>9} + "
		f"{'net+client':>10} | {'accept q':>8} {'socket q':>8} {'service':>8}")
	for stat in ("p50", "p99", "mean"):
		lines.append(f"{stat} (client round trip = server residence + network and client)")
		lines.append(head)
		for lv in levels:
			d, s, sp = lv["driver"], lv["server"], lv["split"] or {}
			row = sp.get(stat, {})
			srv_rps = s.get("throughput_rps") if s else None
			if stat == "mean" and lv.get("stack_mean_ns"):
				# means over all requests: the three add up to the residence
				acc = lv["stack_mean_ns"]["accept_queue"]
				q = _p(s["socket_queue_wait"], "mean")
				sv = _p(s["service_time"], "mean")
			else:
				acc = _p(s["accept_queue_share"], stat) if s else None
				q = _p(s["socket_queue_wait"], stat) if s else None
				sv = _p(s["service_time"], stat) if s else None
			rtt = row.get("rtt", _p(d["rtt"], stat))
			lines.append(
				f"{level_name(lv['level']):14} {_rps(d['throughput_rps']):>9} "
				f"{_rps(srv_rps):>9} {fmt_ns(rtt):>8} = {fmt_ns(row.get('residence')):>9} + "
				f"{fmt_ns(row.get('remainder')):>10} | {fmt_ns(acc):>8} {fmt_ns(q):>8} "
				f"{fmt_ns(sv):>8}")
		lines.append("")
	notes = []
	for lv in levels:
		for n in lv["notes"]:
			notes.append(f"{level_name(lv['level'])}: {n}")
		d = lv["driver"]
		li = d.get("latency_intended")
		if lv["level"].get("rate") and li:
			notes.append(f"{level_name(lv['level'])}: open loop: latency from the intended send "
				     f"p50 {fmt_ns(li['p50'])}, p99 {fmt_ns(li['p99'])} (the round trip "
				     "plus the wait for a free connection)")
		if d["errors_total"]:
			errs = ", ".join(f"{k} {v}" for k, v in d["errors"].items())
			notes.append(f"{level_name(lv['level'])}: {d['errors_total']} errors ({errs})")
		st = status_text(lv)
		if st:
			notes.append(f"{level_name(lv['level'])}: {st}")
		if d.get("bottleneck"):
			notes.append(f"{level_name(lv['level'])}: driver: {d['bottleneck']}")
	lines.append("accept q is the accept-queue share of a connection's first request (0 for the "
		     "others); the\npercentile columns are each side's own percentile, so they need not "
		     "add up; the means do.")
	if notes:
		lines.append("")
		lines.extend(notes)
	return "\n".join(lines)


def _rps(v):
	return "-" if v is None else f"{v:,.1f}"
