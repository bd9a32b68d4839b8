# SPDX-License-Identifier: MIT
"""`loadlens run` and `loadlens sweep`: the observer and the driver per load level, joined."""

import json
import os
import re
import subprocess
import time

from . import files, join, procs, schema, verdict

CLK_TCK = os.sysconf("SC_CLK_TCK")


def listener_pids(port):
	"""Pids of the processes listening on TCP/UDP port (ss; needs root to see other users')."""
	try:
		out = subprocess.run(["ss", "-Htulnp", f"( sport = :{port} )"], capture_output=True,
				     text=True, timeout=10).stdout
	except (OSError, subprocess.TimeoutExpired):
		return []
	return sorted({int(p) for p in re.findall(r"pid=(\d+)", out)})


def thread_cpu(pid):
	"""{tid: (utime + stime) in ticks} of a process's threads."""
	out = {}
	try:
		tids = os.listdir(f"/proc/{pid}/task")
	except OSError:
		return out
	for tid in tids:
		try:
			with open(f"/proc/{pid}/task/{tid}/stat", encoding="ascii", errors="replace") as f:
				fields = f.read().rpartition(")")[2].split()
			out[tid] = int(fields[11]) + int(fields[12])
		except (OSError, IndexError, ValueError):
			continue
	return out


def comm(pid):
	try:
		with open(f"/proc/{pid}/comm", encoding="utf-8", errors="replace") as f:
			return f.read().strip()
	except OSError:
		return "?"


class CpuWatch:
	"""Host CPU and the listening server's threads, over one load level."""

	def __init__(self, port):
		self.pids = listener_pids(port)
		self.t0 = time.monotonic()
		self.host0 = procs.cpu_times()
		self.thr0 = {p: thread_cpu(p) for p in self.pids}

	def finish(self):
		wall = time.monotonic() - self.t0
		host1 = procs.cpu_times()
		dt = host1[1] - self.host0[1]
		busy = (host1[0] - self.host0[0]) / dt if dt > 0 else None
		srv = None
		for p in self.pids:
			t1 = thread_cpu(p)
			d = [t1[t] - self.thr0[p].get(t, 0) for t in t1]
			if not d or wall <= 0:
				continue
			total = sum(d) / CLK_TCK / wall
			top = max(d) / CLK_TCK / wall
			if srv is None or top > srv["busiest_thread_core"]:
				srv = {"pid": p, "comm": comm(p), "cores": total, "busiest_thread_core": top,
				       "threads": len(t1)}
		return busy, srv


def driver_args(target, level, duration, extra):
	a = [target, "-c", str(level["connections"]), "-d", duration]
	if level.get("rate"):
		a += ["--rate", f"{level['rate']:g}"]
	return a + list(extra)


def one_level(ctx, i, level):
	"""Run one load level; returns the joined level (with the sweep's own evidence)."""
	out = ctx["out"]
	name = f"level{i + 1}"
	obs = None
	obs_json = None
	if ctx.get("observer_jsons") is not None:
		obs_json = ctx["observer_jsons"][i]
	final = os.path.join(out, "driver")
	files.ensure_dir(final, "output directory")  # before the observer: a refusal leaves none
	if ctx.get("observer_jsons") is None and ctx["observe"]:
		for ext in ("json", "ndjson"):  # the observer refuses a link: a stale name goes first
			files.clear(os.path.join(out, f"{name}-observer.{ext}"), "observer output")
		obs = procs.start_observer([ctx["port"]], out, f"{name}-observer", runq=ctx["runq"])
		obs_json = os.path.join(out, f"{name}-observer.json")
	work = ctx["driver_dir"] or final
	names = [f"{name}-driver.json", f"{name}-driver.log"]
	watch = CpuWatch(ctx["port"])
	t_start = time.time()
	try:
		rc = procs.run_driver(driver_args(ctx["target"], level, ctx["duration"], ctx["extra"]),
				      os.path.join(work, names[0]), os.path.join(work, names[1]),
				      ctx["ident"], ctx["driver_timeout"],
				      os.path.join(work, "loadlens-driver") if ctx["driver_dir"] else None)
	finally:
		try:
			busy, srv = watch.finish()
			if work != final:
				procs.collect(work, names, final)
		finally:  # the observer is stopped whatever failed above
			orc = obs.stop() if obs else 0
	if orc != 0:
		raise procs.RunError(f"the observer exited {orc}: {obs.tail()}")
	drv_json = os.path.join(final, names[0])
	drv_dir = final
	if not os.path.exists(drv_json):
		with open(os.path.join(drv_dir, f"{name}-driver.log"), errors="replace") as f:
			log = " | ".join(f.read().strip().splitlines()[-3:])
		raise procs.RunError(f"the driver exited {rc} without a result: {log}")
	drv = schema.load(drv_json)
	obsdoc = schema.load(obs_json) if obs_json else None
	lv = join.join_level(drv, obsdoc, ctx["port"], ctx["proto"], level)
	lv["driver_rc"] = rc
	lv["host_cpu_busy"] = busy
	lv["ncpu"] = os.cpu_count()
	if busy is not None and busy >= verdict.CPU_BUSY:
		lv["notes"].append(f"the host's CPUs were {busy * 100:.0f}% busy (all processes): "
				   "figures may include waiting for a CPU")
	lv["server_cpu"] = srv
	lv["t_start"] = t_start
	lv["files"] = {"driver": drv_json, "observer": obs_json}
	if obs:
		lv["files"]["observer_ndjson"] = os.path.join(out, f"{name}-observer.ndjson")
	return lv


def timeseries(levels):
	"""Time series across the levels from the observers' NDJSON: TIME_WAIT, ports, fds, errors."""
	pts = []
	t0 = None
	for i, lv in enumerate(levels):
		path = (lv.get("files") or {}).get("observer_ndjson")
		if not path:
			continue
		for r in schema.ndjson_intervals(schema.load_ndjson(path)):
			if r.get("time") is None:
				continue
			if t0 is None:
				t0 = r["time"]
			census = r.get("census") or {}
			ports = r.get("ports") or {}
			fds = [f for f in (r.get("fds") or []) if f.get("open") is not None]
			top = max(fds, key=lambda f: f["open"], default=None)
			dt = r.get("dt") or 1.0
			listen = r.get("listen") or {}
			tcp = r.get("tcp") or {}
			fr = r.get("failure_rate")
			pts.append({
				"t": r["time"] - t0, "level": i,
				"time_wait": census.get("TIME_WAIT"),
				"ports_in_use": ports.get("in_use"),
				"port_range": ports.get("size"),
				"fds_open": top["open"] if top else None,
				"fds_soft_limit": top.get("soft_limit") if top else None,
				"fds_comm": top.get("comm") if top else None,
				"failures_per_s": fr if isinstance(fr, (int, float)) else None,
				"listen_overflows_per_s": (listen.get("overflows") or 0) / dt,
				"resets_sent_per_s": (tcp.get("resets_sent") or 0) / dt,
			})
	return pts


def document(kind, ctx, levels, extra=None):
	doc = {"tool": "loadlens", "kind": kind, "schema": 1, "target": ctx["target"],
	       "port": ctx["port"], "proto": ctx["proto"], "duration_per_level": ctx["duration"],
	       "driver_user": ctx["ident"][2] if ctx["ident"] else None,
	       "levels": levels, "timeseries": timeseries(levels)}
	if extra:
		doc.update(extra)
	return doc


def write_json(doc, path, ours=False):
	files.write(path, json.dumps(doc, indent=1) + "\n", "--json", ours)


def run_levels(ctx, levels, show):
	out = []
	for i, lv in enumerate(levels):
		show(f"level {i + 1}/{len(levels)}: {join.level_name(lv)} for {ctx['duration']}")
		out.append(one_level(ctx, i, lv))
	return out


def sweep_levels(ctx, levels, bound_ns, time_limit_s, show):
	"""Step through levels until a stop reason, or the time limit; returns (levels, why)."""
	done = []
	t0 = time.monotonic()
	why = None
	for i, lv in enumerate(levels):
		spent = time.monotonic() - t0
		per = spent / i if i else None
		if per and spent + per > time_limit_s:
			why = f"time limit: another step would pass {time_limit_s:g} s"
			break
		show(f"step {i + 1}: {join.level_name(lv)} for {ctx['duration']}")
		j = one_level(ctx, i, lv)
		done.append(j)
		rtt = j["driver"].get("rtt") or {}
		show(f"  {j['driver']['throughput_rps'] or 0:,.1f} req/s, p50 {join.fmt_ns(rtt.get('p50'))},"
		     f" p99 {join.fmt_ns(rtt.get('p99'))}, {j['driver']['errors_total']} errors")
		why = verdict.stop_reason(done, bound_ns)
		if why:
			break
	else:
		why = why or "the last step was reached"
	return done, why
