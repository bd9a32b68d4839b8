# SPDX-License-Identifier: MIT
"""loadlens doctor: this host's limits, the observer's kernel features (asked of the observer
itself), and which limit a planned load breaks first, and when.

Reading the host is host(); the arithmetic is plan_checks(), pure and unit-tested."""

import json
import math
import os
import resource
import shlex
import subprocess

from . import procs, schema, units
from .shown import lines as shown_lines, shown

TIME_WAIT_S = 60  # TCP_TIMEWAIT_LEN: fixed in Linux; tcp_fin_timeout does not change it
TW_REUSE_S = 1  # tcp_tw_reuse: a TIME_WAIT port is reused once its last timestamp is 1 s old
DRIVER_FDS_BASE = 64  # fds a process needs besides its connections (driver: 16 per thread more)
PORT_RANGE_MAX = (1024, 65535)

SYSCTLS = {
	"file_max": "fs/file-max",
	"nr_open": "fs/nr_open",
	"file_nr": "fs/file-nr",
	"port_range": "net/ipv4/ip_local_port_range",
	"tw_reuse": "net/ipv4/tcp_tw_reuse",
	"fin_timeout": "net/ipv4/tcp_fin_timeout",
	"timestamps": "net/ipv4/tcp_timestamps",
	"max_tw_buckets": "net/ipv4/tcp_max_tw_buckets",
	"somaxconn": "net/core/somaxconn",
	"syn_backlog": "net/ipv4/tcp_max_syn_backlog",
	"conntrack_max": "net/netfilter/nf_conntrack_max",
	"conntrack_count": "net/netfilter/nf_conntrack_count",
	"conntrack_tw": "net/netfilter/nf_conntrack_tcp_timeout_time_wait",
}


def _ints(text):
	return [int(x) for x in text.split()]


def host(proc="/proc", pid=None):
	"""The limits as seen by this process (its netns, its RLIMIT_NOFILE), or by pid's limits."""
	h = {}
	for key, rel in SYSCTLS.items():
		try:
			with open(os.path.join(proc, "sys", rel), encoding="ascii") as f:
				v = _ints(f.read())
		except (OSError, ValueError):
			v = None
		if v is None:
			h[key] = None
		elif key == "port_range":
			h[key] = tuple(v[:2])
		elif key == "file_nr":
			h[key] = v[0]
		else:
			h[key] = v[0]
	if pid:
		h["nofile"] = nofile_of(pid, proc)
		h["nofile_of"] = f"pid {pid}"
	else:
		s, hd = resource.getrlimit(resource.RLIMIT_NOFILE)
		h["nofile"] = (s, hd)
		h["nofile_of"] = "this shell"
	return h


def nofile_of(pid, proc="/proc"):
	with open(os.path.join(proc, str(pid), "limits"), encoding="ascii") as f:
		for line in f:
			if line.startswith("Max open files"):
				p = line.split()
				conv = [(-1 if x == "unlimited" else int(x)) for x in p[3:5]]
				return tuple(conv)
	raise ValueError(f"no 'Max open files' in /proc/{pid}/limits")


def driver_argv(cmdline):
	"""--driver's command line as the driver's arguments (its program name left out)."""
	argv = shlex.split(cmdline)
	if argv and (argv[0].endswith("loadlens-driver") or argv[0] == "driver"):
		argv = argv[1:]
	return argv


def run_length_s(dp):
	"""How long the driver runs, its warm-up included: -d, or -n at --rate, whichever ends
	first; None for a closed loop bounded by -n only."""
	ends = [dp["duration_s"]] if dp["duration_s"] else []
	if dp["requests"] and dp["rate"]:
		ends.append(dp["requests"] / dp["rate"])  # every shard its share of both
	return min(ends) + dp["warmup_s"] if ends else None


def load_from_plan(dp):
	"""The planned load of this machine, from the driver's own plan (procs.driver_plan()): its
	share of a sharded --rate and --connect-rate; the server closes first under --http-close."""
	shards = dp["shard"]["count"]
	model = {"new-conn": "new-conn", "reconnect-every": "reconnect"}.get(dp["conn_model"],
									      "keep-alive")
	if dp["http_close"]:
		model = "new-conn"
	return {"rate": dp["rate"] / shards if dp["rate"] else None,
		"connections": dp["connections"], "model": model,
		"reconnect_every": dp["reconnect_every"],
		"closer": "server" if dp["http_close"] else "client",
		"duration_s": run_length_s(dp), "source_addrs": max(len(dp["source_addrs"]), 1),
		"target": dp["target"]["url"], "loopback": dp["target"]["loopback"],
		"threads": dp["threads"],
		"connect_rate": dp["connect_rate"] / shards if dp["connect_rate"] else None,
		"driver": dp}


def conn_rate(plan):
	"""New connections per second the plan opens (None: unknown, a closed loop with no rate)."""
	if plan["model"] == "keep-alive":
		return 0.0
	if plan["rate"] is None:
		return None
	if plan["model"] == "reconnect":
		return plan["rate"] / max(plan["reconnect_every"], 1)
	return plan["rate"]


def loopback(target):
	if not target:
		return False
	host = target.partition("://")[2].split("/", 1)[0].rsplit(":", 1)[0].strip("[]")
	return host.startswith("127.") or host in ("localhost", "::1")


def tw_reuse_applies(h, plan):
	"""tcp_tw_reuse lets connect() take a port in TIME_WAIT (timestamps needed): 1 everywhere,
	2 (the default) on loopback only."""
	if not h.get("timestamps"):
		return False
	near = plan.get("loopback")  # the driver's resolved address, when the plan is its own
	if near is None:
		near = loopback(plan.get("target"))
	return h.get("tw_reuse") == 1 or (h.get("tw_reuse") == 2 and near)


def opened(plan):
	"""Connections open by the end of the run: -c, or fewer where --connect-rate opens them
	more slowly than the run lasts."""
	c, cr, dur = plan["connections"], plan.get("connect_rate"), plan.get("duration_s")
	return min(c, math.ceil(cr * dur)) if cr and dur else c


def open_at(plan, n):
	"""Seconds into the run when n connections are open: at once, or at --connect-rate."""
	cr = plan.get("connect_rate")
	return max(n, 0) / cr if cr else 0


def conns_text(plan):
	c = opened(plan)
	if not plan.get("connect_rate"):
		return f"{c:,} connections"
	return (f"{c:,} connections (of -c {plan['connections']:,}) opened at "
		f"{_fmt(plan['connect_rate'])}/s (--connect-rate)")


def _fmt(n):
	if n is None:
		return "-"
	if n >= 1e6:
		return f"{n / 1e6:.3g}M"
	return f"{n:,.0f}"


def plan_checks(h, plan):
	"""Each limit the plan touches: {limit, need, have, breaks, at_s, text, fix, app_fix}.
	at_s: seconds into the run when it breaks (0: at once); None if it holds."""
	checks = []
	rate = conn_rate(plan)
	c = opened(plan)
	closer = plan["closer"]
	dur = plan.get("duration_s")

	def add(limit, need, have, at_s, text, fix=(), app_fix=None, warn=False):
		breaks = need is not None and have is not None and have >= 0 and need > have
		if dur is not None and at_s is not None and at_s > dur:
			breaks = False
		checks.append({"limit": limit, "need": need, "have": have,
			       "breaks": bool(breaks and not warn), "warning": bool(breaks and warn),
			       "at_s": at_s if breaks else None, "text": text, "fix": list(fix),
			       "app_fix": app_fix})

	# ephemeral ports, on the connecting side, per (source address, destination address:port)
	if h.get("port_range"):
		lo, hi = h["port_range"]
		have = (hi - lo + 1) * plan["source_addrs"]
		reuse = tw_reuse_applies(h, plan)
		if rate is None:
			text = ("closed loop with new connections and no --rate: the connection rate is "
				"whatever the server allows; give --rate to compute the ports needed")
			add("ephemeral ports", None, have, None, text)
		else:
			if closer == "client":
				hold = TW_REUSE_S if reuse else TIME_WAIT_S
				how = (f"{_fmt(rate)} new connections/s x {hold} s "
				       + ("(tcp_tw_reuse reuses TIME_WAIT ports after 1 s)" if reuse else
					  "of TIME_WAIT (the client closes first)"))
			else:
				hold = 0
				how = ("the server closes first, so TIME_WAIT stays on the server and a "
				       "client port is free once the connection ends")
			need = c + rate * hold
			at = (have - c) / rate if rate and need > have else None
			at = max(at, 0) if at is not None else None
			text = f"{how} + {c:,} open = {_fmt(need)} ports needed vs {have:,} available"
			text += f" ({lo}-{hi}" + (f" x {plan['source_addrs']} source addresses)"
						    if plan["source_addrs"] > 1 else ")")
			fix = []
			if hi - lo + 1 < PORT_RANGE_MAX[1] - PORT_RANGE_MAX[0] + 1:
				fix.append(f'sysctl -w net.ipv4.ip_local_port_range="{PORT_RANGE_MAX[0]} '
					   f'{PORT_RANGE_MAX[1]}"')
			if closer == "client" and not reuse:
				fix.append("sysctl -w net.ipv4.tcp_tw_reuse=1   # client side; needs "
					   "net.ipv4.tcp_timestamps=1")
			widest = (PORT_RANGE_MAX[1] - PORT_RANGE_MAX[0] + 1) * plan["source_addrs"]
			best = c + rate * (TW_REUSE_S if closer == "client" else 0)
			if need > have and best > widest:
				fix.append(f"# even so: {_fmt(best)} ports needed with tcp_tw_reuse vs "
					   f"{widest:,} in the widest range: only reusing connections or more "
					   "source addresses fixes this")
			app = ("reuse connections (HTTP keep-alive; driver: drop --new-conn, or "
			       "--reconnect-every 1000), spread over local addresses (--source-addr), or "
			       "let the server close first")
			add("ephemeral ports", need, have, at, text, fix, app)
			if closer == "client" and h.get("fin_timeout") is not None:
				checks[-1]["text"] += (f"; if the server is slow to close, each port also "
						       f"sits up to {h['fin_timeout']} s in FIN_WAIT2 "
						       "(tcp_fin_timeout) first")
			# TIME_WAIT buckets on the side that closes first
			if h.get("max_tw_buckets") and closer in ("client", "server"):
				tw = rate * TIME_WAIT_S
				at = h["max_tw_buckets"] / rate if rate and tw > h["max_tw_buckets"] else None
				add(f"TIME_WAIT buckets ({closer})", tw, h["max_tw_buckets"], at,
				    f"{_fmt(rate)} closes/s x {TIME_WAIT_S} s = {_fmt(tw)} sockets in TIME_WAIT "
				    f"on the {closer} vs tcp_max_tw_buckets {h['max_tw_buckets']:,} (beyond it "
				    "the kernel drops TIME_WAIT early and logs 'time wait bucket table "
				    "overflow')",
				    [f"sysctl -w net.ipv4.tcp_max_tw_buckets={int(tw * 1.25)}"],
				    "reuse connections", warn=True)
	# fds: the client (the driver raises its soft limit to the hard one) and the server
	if h.get("nofile"):
		soft, hard = h["nofile"]
		need = c + DRIVER_FDS_BASE + 16 * plan.get("threads", 1)
		want = max(need * 2, 65536)
		lim = hard if hard >= 0 else float("inf")
		fix = [f"ulimit -n {want}   # this shell; the hard limit first if it is lower",
		       f"*  -  nofile  {want}   # /etc/security/limits.conf (new logins)",
		       f"LimitNOFILE={want}   # systemd unit of the server"]
		if h.get("nr_open") and want > h["nr_open"]:
			fix.append(f"sysctl -w fs.nr_open={want}   # the hard limit cannot pass it")
		add("open files, client (driver)", need, lim if lim != float("inf") else -1,
		    open_at(plan, lim - (need - c)) if lim != float("inf") else 0,
		    f"{conns_text(plan)} + about {need - c} other fds = {need:,} vs the hard limit "
		    f"{hard if hard >= 0 else 'unlimited'} of {h['nofile_of']} (the driver raises its "
		    "soft limit to the hard one)", fix, "fewer connections per process (-c), or more "
		    "driver processes/hosts (--shard)")
		srv_need = c + DRIVER_FDS_BASE
		add("open files, server", srv_need, soft, open_at(plan, soft - DRIVER_FDS_BASE),
		    f"{conns_text(plan)} accepted + about {DRIVER_FDS_BASE} = {srv_need:,} vs the "
		    f"soft limit {soft} of {h['nofile_of']} (a server started here inherits it; "
		    "EMFILE on accept when it runs out)", fix, "the server should raise its own soft "
		    "limit at start (setrlimit) or fewer connections")
	if h.get("file_max") and h.get("file_nr") is not None:
		need = 2 * c + 2 * DRIVER_FDS_BASE
		free = h["file_max"] - h["file_nr"]
		add("open files, system (fs.file-max)", need, free,
		    open_at(plan, (free - 2 * DRIVER_FDS_BASE) / 2),
		    f"client + server on one host: {need:,} fds vs {free:,} free of fs.file-max "
		    f"{h['file_max']:,}", [f"sysctl -w fs.file-max={max(need * 4, h['file_max'])}"])
	if h.get("somaxconn"):
		backlog = min(h["somaxconn"], h.get("syn_backlog") or h["somaxconn"])
		cr = plan.get("connect_rate")
		burst = min(c, math.ceil(cr)) if cr else c
		when = ("in the first second (--connect-rate)" if cr else
			"at once (at start, or after a server restart)")
		add("accept queue (somaxconn)", burst, h["somaxconn"], 0,
		    f"{burst:,} connections opened {when} vs "
		    f"somaxconn {h['somaxconn']:,} (the cap on every listen() backlog; "
		    f"tcp_max_syn_backlog {h.get('syn_backlog')}): an accept queue that fills drops "
		    "SYNs (listen overflows)",
		    [f"sysctl -w net.core.somaxconn={max(c, 4096)}",
		     f"sysctl -w net.ipv4.tcp_max_syn_backlog={max(c, 4096)}"],
		    "the server's listen(fd, backlog) must ask for as much", warn=True)
		del backlog
	if h.get("conntrack_max"):
		ct_tw = h.get("conntrack_tw") or 120
		r = rate or 0.0
		need = c + r * ct_tw
		free = h["conntrack_max"]
		at = (free - c) / r if r and need > free else None
		add("conntrack table", need, free, max(at, 0) if at is not None else None,
		    f"{c:,} open + {_fmt(r)} new connections/s x {ct_tw} s (conntrack keeps closed "
		    f"connections in TIME_WAIT) = {_fmt(need)} entries vs nf_conntrack_max "
		    f"{free:,} ('nf_conntrack: table full, dropping packet')",
		    [f"sysctl -w net.netfilter.nf_conntrack_max={int(max(need * 1.25, free))}",
		     "sysctl -w net.netfilter.nf_conntrack_tcp_timeout_time_wait=30"],
		    "reuse connections, or exempt the test traffic (iptables -t raw ... -j NOTRACK)")
	return checks


def first_break(checks):
	b = [c for c in checks if c["breaks"]]
	if not b:
		return None
	return min(b, key=lambda c: c["at_s"] if c["at_s"] is not None else 0)


def observer_check():
	"""The observer's own list of what it needs: loadlens-observer --check=json."""
	try:
		exe = procs.binary("loadlens-observer")
	except procs.RunError as e:
		return {"error": str(e)}
	try:
		r = subprocess.run([exe, "--check=json"], capture_output=True, text=True,
				   timeout=30)
	except (OSError, subprocess.TimeoutExpired) as e:
		return {"error": f"loadlens-observer --check: {e}"}
	try:
		doc = json.loads(r.stdout)
	except json.JSONDecodeError:
		return {"error": "loadlens-observer --check=json printed no JSON: "
				 + (r.stderr.strip().splitlines() or ["(nothing)"])[-1]}
	doc["exit"] = r.returncode
	return doc


def host_state():
	"""What is in use now: TIME_WAIT sockets here, and processes holding syscall tracepoints
	(each one sends every syscall of the host through the slow path)."""
	st = {"time_wait_now": None, "syscall_tracepoint_pids": None}
	try:
		r = subprocess.run(["ss", "-Htan", "state", "time-wait"], capture_output=True,
				   text=True, timeout=20)
		st["time_wait_now"] = len(r.stdout.splitlines())
	except (OSError, subprocess.TimeoutExpired):
		pass
	try:
		r = subprocess.run(["bpftool", "perf", "-j"], capture_output=True, text=True,
				   timeout=20)
		links = json.loads(r.stdout or "[]")
		st["syscall_tracepoint_pids"] = sorted({
			x.get("pid") for x in links
			if str(x.get("tracepoint", "")).startswith(("sys_enter", "sys_exit"))})
	except (OSError, subprocess.TimeoutExpired, json.JSONDecodeError, AttributeError):
		pass
	return st


def check_args(a):
	"""Every option given is checked, whether or not it makes a plan: ValueError."""
	try:
		c = units.count(a.connections)
		if a.rate is not None:
			units.rate(a.rate)
	except ValueError as e:  # the driver's own line
		raise ValueError(str(e)) from None
	if c > 1_000_000:
		raise ValueError(f"-c {a.connections}: a count of connections, 1 to 1,000,000")
	if a.duration is not None and units.duration_s(a.duration) <= 0:
		raise ValueError(f"--duration {a.duration}: must be above 0")
	if a.reconnect_every is not None and a.reconnect_every < 1:
		raise ValueError("--reconnect-every must be at least 1")
	if a.source_addrs < 1:
		raise ValueError("--source-addrs must be at least 1")
	if a.pid is not None and a.pid < 1:
		raise ValueError(f"--pid {a.pid}: not a process id")
	if a.target is not None:
		schema.target_port_proto(a.target)
	if a.driver is not None and a.driver_args is not None:
		raise ValueError("give the driver's command line once: --driver '...' or -- ARGS")
	if a.driver is not None and not a.driver.strip():
		raise ValueError("--driver: an empty command line")
	if a.driver_args is not None and not a.driver_args:
		raise ValueError("--: no driver arguments after it")
	if (a.driver is not None or a.driver_args is not None) and \
			(a.rate or a.new_conn or a.reconnect_every or a.duration):
		raise ValueError("a driver command line gives the planned load: give --rate, "
				 "--new-conn, --reconnect-every and --duration there")


def plan_from_args(a):
	"""doctor's own options, or the driver's command line read by the driver itself."""
	if a.driver is not None or a.driver_args is not None:
		how = "--driver" if a.driver is not None else "--"
		try:
			argv = driver_argv(a.driver) if a.driver is not None else a.driver_args
			return load_from_plan(procs.driver_plan(argv))
		except ValueError as e:  # shlex's, or the driver's own line (procs.PlanRefused)
			raise ValueError(f"{how}: {e}") from None
	plan = {"rate": units.rate(a.rate) if a.rate else None,
		"connections": units.count(a.connections),
		"model": "new-conn" if a.new_conn else
			 ("reconnect" if a.reconnect_every else "keep-alive"),
		"reconnect_every": a.reconnect_every or 0,
		"closer": a.closer, "duration_s": units.duration_s(a.duration) if a.duration else None,
		"source_addrs": a.source_addrs, "target": a.target, "threads": 1,
		"connect_rate": None, "loopback": None}
	return plan


def describe_plan(p):
	model = {"new-conn": "a new connection per request",
		 "reconnect": f"a new connection every {p['reconnect_every']} requests",
		 "keep-alive": "keep-alive connections"}[p["model"]]
	rate = f"{p['rate']:,.0f} req/s" if p["rate"] else "closed loop (no rate)"
	dur = f" for {p['duration_s']:g} s" if p.get("duration_s") else ""
	opening = (f" opened at {_fmt(p['connect_rate'])}/s" if p.get("connect_rate") else "")
	shards = (p.get("driver") or {}).get("shard", {}).get("count", 1)
	share = f" (this machine's share: shard of {shards})" if shards > 1 else ""
	return (f"{rate}{share}, {p['connections']:,} connections{opening}, {model}, the "
		f"{p['closer']} closes first{dur}"
		+ (f", target {shown(p['target'])}" if p.get("target") else ""))


def render(h, obs, plan, checks):
	L = []
	lo, hi = h["port_range"] or (None, None)
	soft, hard = h["nofile"]
	L.append("host limits (this network namespace)")
	rows = [
		("ulimit -n (nofile)", f"soft {soft}, hard {hard if hard >= 0 else 'unlimited'} "
		 f"({h['nofile_of']})"),
		("fs.file-max", f"{h['file_max']:,} ({h['file_nr']:,} open now)"
		 if h.get("file_max") else "-"),
		("fs.nr_open", f"{h['nr_open']:,}" if h.get("nr_open") else "-"),
		("ip_local_port_range", f"{lo}-{hi} ({hi - lo + 1:,} ports per destination)"
		 if lo is not None else "-"),
		("tcp_tw_reuse", {0: "0 (off)", 1: "1 (on)", 2: "2 (loopback only)"}.get(
			h.get("tw_reuse"), str(h.get("tw_reuse")))),
		("tcp_fin_timeout", f"{h['fin_timeout']} s (FIN_WAIT2; TIME_WAIT is always "
		 f"{TIME_WAIT_S} s)" if h.get("fin_timeout") is not None else "-"),
		("tcp_max_tw_buckets", f"{h['max_tw_buckets']:,}" if h.get("max_tw_buckets") else "-"),
		("somaxconn", str(h.get("somaxconn"))),
		("tcp_max_syn_backlog", str(h.get("syn_backlog"))),
		("nf_conntrack_max", f"{h['conntrack_max']:,} ({h.get('conntrack_count')} in use)"
		 if h.get("conntrack_max") else "conntrack not loaded"),
	]
	st = h.get("state") or {}
	if st.get("time_wait_now") is not None:
		rows.append(("TIME_WAIT now", f"{st['time_wait_now']:,} sockets"))
	pids = st.get("syscall_tracepoint_pids")
	if pids is not None:
		rows.append(("syscall tracepoints", "in use by pid " + ", ".join(map(str, pids)) +
			     ": every syscall of the host takes the slow path" if pids else
			     "none in use (syscalls take the fast path)"))
	for k, v in rows:
		L.append(f"  {k:22} {v}")
	L.append("")
	L.append("kernel features (loadlens-observer --check)")
	if obs.get("error"):
		L.append(f"  ??    {obs['error']}")
	else:
		for c in obs.get("checks", []):
			mark = "ok  " if c["ok"] else ("MISS" if c.get("required") else "off ")
			L.append(f"  {mark}  {c['what']}" + (f": {c['note']}" if c.get("note") else ""))
		feats = obs.get("features", [])
		if feats:
			L.append(f"  features on Linux {obs.get('kernel', '?')}, and the mechanism each uses here:")
		for f in feats:
			mark = "ok  " if f["ok"] else "off "
			L.append(f"  {mark}  {f['feature']:49} {f['mechanism']}"
				 + (f": {f['note']}" if f.get("note") else ""))
		if obs.get("tracepoints"):
			L.append("  attach points of the observer's programs:")
		for t in obs.get("tracepoints", []):
			mark = "ok  " if t["present"] else "off "
			tier = " [syscall tier: attached on demand]" if t.get("syscall_tier") else ""
			L.append(f"  {mark}  {t['attach']:10} {t['tracepoint']:34} "
				 f"{t['object']}/{t['program']}{tier}")
	if plan is None:
		L.append("")
		L.append("no planned load given (--rate R --new-conn, or --driver '...'): limits only")
		return "\n".join(L)
	L.append("")
	L.append(f"planned load: {describe_plan(plan)}")
	L.append(f"  {'limit':34} {'needed':>10} {'have':>10}  verdict")
	for c in checks:
		if c["breaks"]:
			when = "at once" if not c["at_s"] else f"after {c['at_s']:.3g} s"
			verdict = f"BREAKS {when}"
		elif c["warning"]:
			verdict = "warning"
		elif c["need"] is None:
			verdict = "unknown"
		else:
			verdict = "ok"
		have = c["have"]
		L.append(f"  {c['limit']:34} {_fmt(c['need']):>10} "
			 f"{('unlimited' if have == -1 else _fmt(have)):>10}  {verdict}")
	L.append("")
	fb = first_break(checks)
	shown = [c for c in checks if c["breaks"] or c["warning"] or c["need"] is None]
	if fb:
		when = "at once" if not fb["at_s"] else f"after {fb['at_s']:.3g} s"
		L.append(f"breaks first: {fb['limit']}, {when}: {fb['text']}")
	else:
		L.append("breaks first: nothing: every limit holds for this plan")
	for c in shown:
		if c is not fb:
			L.append(f"  {c['limit']}: {c['text']}")
	fixes = [f for c in shown if c["breaks"] or c["warning"] for f in c["fix"]]
	if fixes:
		L.append("")
		L.append("fix (host, as root; persist sysctls in /etc/sysctl.d/, limits in "
			 "/etc/security/limits.conf or the unit):")
		for f in dict.fromkeys(fixes):
			L.append(f"  {f}")
	apps = [c["app_fix"] for c in shown if (c["breaks"] or c["warning"]) and c["app_fix"]]
	if apps:
		L.append("fix (application):")
		for a in dict.fromkeys(apps):
			L.append(f"  {a}")
	return "\n".join(L)


def main(argv, Parser, Usage):
	driver_args = None
	if "--" in argv:  # loadlens doctor [options] -- DRIVER-ARGS
		i = argv.index("--")
		argv, driver_args = argv[:i], argv[i + 1:]
	p = Parser(prog="loadlens doctor", description="host limits, the observer's kernel "
		   "features, and what a planned load breaks first",
		   epilog="A planned driver run: loadlens doctor [--pid PID] [--json] -- TARGET "
		   "[driver options], e.g. -- tcp://10.0.0.5:7000 -c 10k -d 1m --connect-rate 500; "
		   "the driver reads its own options (loadlens-driver --print-plan).")
	p.add_argument("--rate", help="planned requests/s (60k, 1.5M)")
	p.add_argument("-c", "--connections", default="1", help="connections open at once")
	p.add_argument("--new-conn", action="store_true", help="a new connection per request")
	p.add_argument("--reconnect-every", type=int, help="a new connection every K requests")
	p.add_argument("--closer", choices=("client", "server"), default="client",
		       help="which side closes first (holds TIME_WAIT); default client")
	p.add_argument("--duration", help="planned run length (limits that break later hold)")
	p.add_argument("--source-addrs", type=int, default=1, help="local addresses connections "
		       "are spread over (--source-addr)")
	p.add_argument("--target", help="target URL (tcp_tw_reuse=2 applies to loopback only)")
	p.add_argument("--driver", metavar="CMDLINE", help="the planned loadlens-driver command "
		       "line, instead of the options above (or give its arguments after --); the "
		       "driver reads it itself (loadlens-driver --print-plan)")
	p.add_argument("--pid", type=int, help="judge the nofile limits of this process (a server)")
	p.add_argument("--json", action="store_true", help="JSON on stdout")
	a = p.parse_args(argv)
	a.driver_args = driver_args
	try:
		check_args(a)
		planned = (a.rate or a.driver is not None or a.driver_args is not None or a.new_conn
			   or a.reconnect_every)
		plan = plan_from_args(a) if planned else None
	except ValueError as e:
		raise Usage(str(e)) from None
	try:
		h = host(pid=a.pid)
	except (OSError, ValueError) as e:
		raise Usage(f"--pid {a.pid}: {e}") from None
	h["state"] = host_state()
	obs = observer_check()
	checks = plan_checks(h, plan) if plan else []
	fb = first_break(checks)
	missing = [c["what"] for c in obs.get("checks", []) if c.get("required") and not c["ok"]]
	if a.json:
		print(json.dumps({"tool": "loadlens", "kind": "doctor", "host": h, "observer": obs,
				  "plan": plan, "checks": checks, "breaks_first": fb,
				  "observer_missing": missing}, indent=1))
	else:
		print(shown_lines(render(h, obs, plan, checks)))
		if missing:
			why = [f"{c['what']}: {c['note']}" if c.get("note") else c["what"]
			       for c in obs.get("checks", []) if c.get("required") and not c["ok"]]
			print(f"\nthe observer cannot run here: {'; '.join(why)}")
	return 1 if (fb or missing) else 0
