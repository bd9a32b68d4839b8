# SPDX-License-Identifier: MIT
"""A sweep's verdict: when to stop, the peak at acceptable latency, the knee, and which resource
ran out first. Pure: works on joined levels (join.join_level plus the sweep's own evidence)."""

import os

PLATEAU_GAIN = 0.05  # a step that adds less than 5% throughput ...
PLATEAU_STEPS = 2  # ... twice in a row is a plateau
KNEE_SHARE = 0.90  # the knee: the first level at 90% of the peak throughput
CPU_BUSY = 0.90  # host CPU busy share, or one server thread's share of a core
DRIVER_CORE = 0.90  # the driver's busiest thread's share of a core
SEND_LAG_NS = 1_000_000  # open loop: send lag p99 above 1 ms means the driver ran late ...
DRIVER_LAG_CORE = 0.5  # ... because of itself when its busiest thread used half a core or more
ERROR_SHARE = 0.01
# server workers: the socket-queue wait p50 passes 1.2 x the service p50 and 50 us (below that it
# is the event loop's wake-up, not a wait for a worker); never with one closed-loop connection
WORKER_QUEUE_RATIO = 1.2
WORKER_QUEUE_MIN_NS = 50_000  # more than 1% failed attempts: not acceptable

# contract finding kind -> resource named by the sweep
KIND_RESOURCE = {
	"port_exhaustion": "ports",
	"fd_exhaustion": "fds",
	"system_fds": "fds",
	"listen_overflow": "accept queue",
	"cpu_saturation": "CPU",
	"worker_saturation": "server workers",
}
RESOURCES = ("ports", "fds", "accept queue", "CPU", "server workers", "driver")


def throughput(lv):
	return lv["driver"].get("throughput_rps") or 0.0


def p99(lv):
	"""The latency the bound applies to: the round trip in the closed loop; in the open loop the
	latency from the intended send time (what a user waits: it grows without bound past
	capacity, while the round trip is capped by the connections in flight)."""
	d = lv["driver"]
	r = (d.get("latency_intended") if lv["level"].get("rate") else None) or d.get("rtt") or {}
	return r.get("p99")


def error_share(lv):
	d = lv["driver"]
	att = (d.get("requests") or 0) + (d.get("errors_total") or 0)
	return (d.get("errors_total") or 0) / att if att else 1.0


def acceptable(lv, bound_ns):
	q = p99(lv)
	return q is not None and q <= bound_ns and error_share(lv) <= ERROR_SHARE


def stop_reason(levels, bound_ns):
	"""Why a sweep should stop after the last level, or None to go on."""
	if not levels:
		return None
	last = levels[-1]
	if last.get("driver_rc", 0) not in (0, None) and not last["driver"].get("requests"):
		return "no request succeeded at the last level"
	q = p99(last)
	if q is not None and q > bound_ns:
		what = "latency from the intended send" if last["level"].get("rate") else "round trip"
		return f"p99 {what} {q / 1e6:,.4g} ms passed the bound of {bound_ns / 1e6:g} ms"
	if error_share(last) > ERROR_SHARE:
		return f"{error_share(last) * 100:.1f}% of attempts failed"
	if len(levels) > PLATEAU_STEPS:
		small = 0
		for i in range(len(levels) - PLATEAU_STEPS, len(levels)):
			best_before = max(throughput(x) for x in levels[:i])
			if throughput(levels[i]) < best_before * (1 + PLATEAU_GAIN):
				small += 1
		if small == PLATEAU_STEPS:
			return (f"throughput plateaued (the last {PLATEAU_STEPS} steps added less than "
				f"{PLATEAU_GAIN * 100:.0f}%)")
	return None


def concerns(f, lv):
	"""Does a finding concern this run's port? A finding whose evidence names another port is
	someone else's. An old-shape listen finding (no evidence) counts only if the netns'
	ListenOverflows moved: its skb drop count is host-wide."""
	e = f.get("evidence") or {}
	port = e.get("port", e.get("dport"))
	if port is not None and lv.get("port") is not None and port != lv["port"]:
		return False
	if f.get("kind") == "listen_overflow" and not e:
		listen = (lv.get("server") or {}).get("listen") or {}
		return bool(listen.get("overflows"))
	return True


# the first thing to check when every attempt failed with one cause (the driver's error class)
FAILURE_HINTS = {
	"ECONNREFUSED": "nothing accepted a connection: is the server listening on that address and "
			"port (and in this network namespace)?",
	"ETIMEDOUT": "connections or replies timed out: a wrong address, a firewall that drops, or "
		     "a server that never answers",
	"ECONNRESET": "the server reset every connection: a TLS or HTTP/2 server spoken to in "
		      "plain text, or one that closes at once",
	"EADDRNOTAVAIL": "no local port was free to connect from: ephemeral ports exhausted",
	"EMFILE": "the driver ran out of file descriptors (ulimit -n)",
	"tls": "every TLS handshake failed: give the server's CA with -- --cacert FILE, or "
	       "-- --insecure for a test server",
	"not_h2": "the server does not speak HTTP/2 there (no h2 in ALPN, or no h2c prior "
		  "knowledge)",
	"http_status": "every response was outside 2xx: check the path, method and headers",
	"lost": "no reply came back within the timeout",
	"short_response": "the server closed before a response was complete",
}


def nothing_answered(levels):
	"""None when any level completed a request; else what the run saw instead, for the
	terminal, the JSON ("failed") and the report: the driver's errors by cause over all levels,
	and the observer's findings about the target's port of any severity (a note such as
	no_listener says why), each kind once."""
	if not levels or any(lv["driver"].get("requests") for lv in levels):
		return None
	errs = {}
	for lv in levels:
		for k, v in (lv["driver"].get("errors") or {}).items():
			if v:
				errs[k] = errs.get(k, 0) + v
	seen, obs = set(), []
	for lv in levels:
		for f in lv.get("findings") or []:
			if f.get("kind") in seen or not concerns(f, lv):
				continue
			seen.add(f.get("kind"))
			obs.append({"kind": f.get("kind"), "severity": f.get("severity"),
				    "text": f.get("text", "")})
	order = sorted(errs.items(), key=lambda kv: (-kv[1], kv[0]))
	top = order[0][0] if order else None
	return {"reason": "no request succeeded at any level", "levels": len(levels),
		"errors": dict(order), "errors_total": sum(errs.values()),
		"hint": FAILURE_HINTS.get(top), "observer": obs}


def describe_failure(f):
	"""nothing_answered()'s result in lines."""
	errs = ", ".join(f"{k} {v:,}" for k, v in f["errors"].items())
	out = [f"{f['reason']} ({f['levels']} level(s)): "
	       + (f"{f['errors_total']:,} errors ({errs})" if errs else
		  "no error counted either: the driver completed nothing and counted no failure")]
	if f.get("hint"):
		out.append(f"  {f['hint']}")
	for o in f["observer"]:
		out.append(f"  observer [{o['kind']}]: {o['text']}")
	if not f["observer"]:
		out.append("  the observer had no finding about this port")
	return out


def evidence(lv):
	"""What ran short at this level: a list of {resource, source, text}, strongest first."""
	ev = []
	for f in lv.get("findings") or []:
		res = KIND_RESOURCE.get(f.get("kind"))
		if res and f.get("severity") in ("warning", "critical") and concerns(f, lv):
			ev.append({"resource": res, "source": f"observer finding {f['kind']}",
				   "text": f.get("text", "")})
	d = lv["driver"]
	errs = d.get("errors") or {}
	if errs.get("EADDRNOTAVAIL"):
		ev.append({"resource": "ports", "source": "driver errors",
			   "text": f"connect() failed with EADDRNOTAVAIL {errs['EADDRNOTAVAIL']} times"})
	if errs.get("EMFILE"):
		ev.append({"resource": "fds", "source": "driver errors",
			   "text": f"the driver hit EMFILE/ENFILE {errs['EMFILE']} times"})
	s = lv.get("server") or {}
	listen = s.get("listen") or {}
	if listen.get("overflows"):
		ev.append({"resource": "accept queue", "source": "observer listen counters",
			   "text": f"{listen['overflows']} listen overflows"})
	elif listen.get("backlog") and listen.get("queue_max", 0) >= listen["backlog"]:
		ev.append({"resource": "accept queue", "source": "observer listen counters",
			   "text": f"accept queue reached its backlog ({listen['queue_max']} of "
				   f"{listen['backlog']})"})
	# CPU: the server and the driver together fill the host's CPUs, or one server thread fills
	# a core. The host's own busy share is not enough: other processes may be using it.
	busy = lv.get("host_cpu_busy")
	srv = lv.get("server_cpu") or {}
	ours = (srv.get("cores") or 0) + (d.get("cores") or 0)
	ncpu = lv.get("ncpu") or os.cpu_count() or 1
	if busy is not None and busy >= CPU_BUSY and ours >= CPU_BUSY * ncpu:
		ev.append({"resource": "CPU", "source": "host /proc/stat and /proc/PID",
			   "text": f"all CPUs {busy * 100:.0f}% busy, {ours:.2f} of {ncpu} cores used by "
				   "the server and the driver"})
	if srv.get("busiest_thread_core", 0) >= CPU_BUSY:
		ev.append({"resource": "CPU", "source": "server threads (/proc)",
			   "text": f"a thread of {srv.get('comm', 'the server')} (pid {srv.get('pid')}) "
				   f"used {srv['busiest_thread_core'] * 100:.0f}% of a core"})
	# the contract's worker_saturation, judged from the join where the observer has no finding:
	# requests wait in the socket longer than they are served, while the CPU is not busy
	qh, sh = s.get("socket_queue_wait") or {}, s.get("service_time") or {}
	cpu_free = ours < CPU_BUSY * ncpu and srv.get("busiest_thread_core", 0) < CPU_BUSY
	one_conn = lv["level"].get("connections") == 1 and not lv["level"].get("rate")
	if qh.get("p50") and sh.get("p50") and cpu_free and not one_conn and \
			qh["p50"] > max(WORKER_QUEUE_RATIO * sh["p50"], WORKER_QUEUE_MIN_NS) and \
			not any(e["resource"] == "server workers" for e in ev):
		ev.append({"resource": "server workers", "source": "joined split",
			   "text": f"socket-queue wait p50 {qh['p50'] / 1e6:.3g} ms > service p50 "
				   f"{sh['p50'] / 1e6:.3g} ms with the CPU not busy: requests wait for a "
				   "free worker (the server's concurrency is the limit)"})
	# the driver: only where its own CPU is the cause (a send lag with an idle driver is other
	# processes taking the CPU: the level's notes carry the driver's warning)
	core = d.get("busiest_thread_core") or 0.0
	lag = (d.get("send_lag") or {}).get("p99")
	if core >= DRIVER_CORE:
		ev.append({"resource": "driver", "source": "driver CPU",
			   "text": d.get("bottleneck") or f"the driver's busiest thread used "
			   f"{core * 100:.0f}% of a core"})
	elif lag is not None and lag > SEND_LAG_NS and lv["level"].get("rate") and \
			core >= DRIVER_LAG_CORE:
		ev.append({"resource": "driver", "source": "driver send lag",
			   "text": f"send lag p99 {lag / 1e6:.3g} ms with its busiest thread at "
				   f"{core * 100:.0f}% of a core: the driver could not keep the schedule"})
	return ev


def verdict(levels, bound_ns):
	"""Peak throughput at acceptable latency, the knee, and what ran out first."""
	v = {"bound_ns": bound_ns, "peak": None, "knee": None, "ran_out_first": None,
	     "evidence": [], "levels": len(levels)}
	if not levels:
		return v
	ok = [lv for lv in levels if acceptable(lv, bound_ns)]
	if ok:
		best = max(ok, key=throughput)
		v["peak"] = {"level": best["level"], "throughput_rps": throughput(best),
			     "rtt_p99_ns": p99(best)}
	top = max(throughput(lv) for lv in levels)
	if top > 0:
		for lv in levels:
			if throughput(lv) >= KNEE_SHARE * top:
				v["knee"] = {"level": lv["level"], "throughput_rps": throughput(lv),
					     "rtt_p50_ns": (lv["driver"].get("rtt") or {}).get("p50"),
					     "share_of_peak": throughput(lv) / top}
				break
	for lv in levels:
		ev = evidence(lv)
		if ev:
			v["ran_out_first"] = {"resource": ev[0]["resource"], "level": lv["level"],
					      "source": ev[0]["source"], "text": ev[0]["text"]}
			v["evidence"] = ev
			break
	return v


def describe(v, name):
	"""The verdict in sentences; name(level) formats a level."""
	out = []
	if v["peak"]:
		p = v["peak"]
		out.append(f"peak throughput at acceptable latency (p99 <= {v['bound_ns'] / 1e6:g} ms, "
			   f"<= {ERROR_SHARE * 100:g}% errors): {p['throughput_rps']:,.1f} req/s at "
			   f"{name(p['level'])} (p99 {p['rtt_p99_ns'] / 1e6:.3g} ms)")
	else:
		out.append(f"no level met the bound (p99 <= {v['bound_ns'] / 1e6:g} ms, "
			   f"<= {ERROR_SHARE * 100:g}% errors)")
	if v["knee"]:
		k = v["knee"]
		out.append(f"knee: {name(k['level'])}, the first level at {KNEE_SHARE * 100:.0f}% of "
			   f"the highest throughput ({k['throughput_rps']:,.1f} req/s); past it latency "
			   "grows faster than throughput")
	r = v["ran_out_first"]
	if r:
		out.append(f"ran out first: {r['resource']}, at {name(r['level'])} ({r['source']}: "
			   f"{r['text']})")
		more = [e for e in v["evidence"][1:]]
		for e in more:
			out.append(f"  also at that level: {e['resource']} ({e['source']}: {e['text']})")
	else:
		out.append("ran out first: nothing named: no observer finding, no CPU, port, fd, "
			   "accept-queue or driver limit reached at any level")
	return out
