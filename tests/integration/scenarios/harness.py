#!/usr/bin/python3
"""The observer's scenario matrix: precision and recall of its findings.

    harness.py NAME        run one scenario (scenarios.py); exit 0 pass, 1 fail, 77 skip
    harness.py --list      the scenario names, one a line (tests/CMakeLists.txt reads them)
    harness.py --table [DIR...] the scenario table of the docs, with an outcome column for the
                              results saved in each DIR

Every scenario runs in a network namespace of its own (loopback only, its own sysctls and
counters), with a real server, a real load and the observer inside it. The findings contract
(docs/observer/scenarios.md, "Scenario matrix") is what is checked:
- healthy: no finding of severity warning or critical, and exactly the notes expected;
- sick: each expected kind as a live NDJSON event record and a '[HH:MM:SS] text' line on the
  observer's stderr, with t at most 2 intervals (+ SLACK; one interval more under an emulated
  CPU, common.LATE_LIMIT) after the onset the harness measured
  on its own (over an interval before it only for forecasts; a polled onset is judged from
  both ends of its bracket, onset.poller), naming the expected pid/port in its evidence;
  and no warning/critical finding of a kind the scenario does not expect or allow.
LOADLENS_BIN picks the build; LOADLENS_SCENARIO_RESULTS=DIR saves each result as DIR/NAME.json;
LL_KEEP_TMP=1 keeps the temp directory.

Files: scenarios.py (the matrix, as data), sandbox.py (namespace, processes, /proc), launch.py
(servers and loads), onset.py (when the sick condition starts), findings.py (the observer's
output), table.py (the docs table), servers.py (small servers and helpers), goserver/ (Go).
"""
import json
import os
import random
import signal
import sys
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import scenarios  # noqa: E402
from common import BIN, EMULATED_CPU, INTERVAL, LATE_LIMIT, LOAD_SCALE, POLL, Fail, Skip, log, scaled_loads  # noqa: E402
from findings import (NOTE_KINDS, alarming, census_took_max, check_access_log, check_one_spelling,  # noqa
		      check_requests, check_slapd_log, kind_of, observer_supports, read_findings,
		      severity_of, short)
from launch import check_load, run_loads, start_server  # noqa: E402
from onset import poller, post_onset, probe  # noqa: E402
from sandbox import Run, loadlens_processes  # noqa: E402
from table import table  # noqa: E402


# --- one scenario ---

def run_scenario(sc, result):
	if os.geteuid() != 0:
		raise Skip("needs root (BPF, network namespaces)")
	if not os.path.exists("/sys/kernel/btf/vmlinux"):
		raise Skip("the kernel has no BTF (/sys/kernel/btf/vmlinux)")
	for b in ("loadlens-observer", "loadlens-driver", "loadlens-refserver"):
		if not os.access(os.path.join(BIN, b), os.X_OK):
			raise Fail("%s/%s is not built" % (BIN, b))
	if sc.get("needs_cpus", 1) > os.cpu_count():
		raise Skip("needs %d CPUs, has %d" % (sc["needs_cpus"], os.cpu_count()))
	if sc.get("exclusive"):
		others = loadlens_processes()
		if others and os.environ.get("CI") == "true":
			# CI runs the scenarios one at a time (RUN_SERIAL): another loadlens process
			# there is a leak of an earlier test, and a skip would hide this scenario
			raise Fail("another loadlens process runs (%s): under CI this scenario must "
				   "run" % ", ".join(others[:4]))
		if others:
			raise Skip("this scenario changes a host-wide limit and needs the host to "
				   "itself; other loadlens processes run now (%s)" %
				   ", ".join(others[:4]))
	run = Run(sc)
	try:
		return run_in(run, sc, result)
	finally:
		run.close()


def run_in(run, sc, result):
	run.netns_up(sc.get("sysctls", {}))
	run.vars["port"] = random.randrange(20000, 30000)
	run.vars["port1"] = run.vars["port"] + 1  # a second server's (a proxy in front)
	run.vars["port2"] = run.vars["port"] + 2  # a backend behind the server, where one is
	for k, v in sc.get("files", {}).items():
		with open(os.path.join(run.tmp, k), "wb") as f:
			f.write(v)
	for spec in sc["servers"]:
		start_server(run, spec)
	obs = [os.path.join(BIN, "loadlens-observer"), "-i", "%gs" % sc.get("interval", INTERVAL),
	       "--ndjson", "{tmp}/observer.ndjson", "--json", "{tmp}/observer.json"]
	obs += sc.get("observer", ["--port", "{port}"])
	if observer_supports("--max-procs") and sc.get("max_procs"):
		obs += ["--max-procs", str(sc["max_procs"])]
	run.spawn("observer", obs, outside=sc.get("observer_outside", False),
		  env=sc.get("observer_env"))
	# under an emulated CPU the verifier and the attaches take minutes (as start_observer waits
	# in tests/integration/lib/observer.sh)
	run.wait_for("observer", "observing", 240 if EMULATED_CPU else 60)
	run.events["observer_attached"] = time.time()
	time.sleep(sc.get("settle", 1.0))
	onset = sc.get("onset")
	th = None
	if onset and onset["how"] in ("log", "tcp_state", "fds", "netstat"):
		run.polling = True
		run.onset_lo = time.time()
		probe(run, onset)  # baselines before the load
		th = threading.Thread(target=poller, args=(run, onset), daemon=True)
		th.start()
	specs = sc["loads"]
	if sc["group"] == "healthy" and LOAD_SCALE < 1:
		specs = scaled_loads(specs, LOAD_SCALE)
		print("emulated CPU: the loads' rates scaled by %.2f" % LOAD_SCALE, flush=True)
	run_loads(run, specs, sc.get("actions", []))
	time.sleep(sc.get("tail", 1.0))
	run.polling = False
	if th:
		th.join()
	rc = run.stop("observer")
	if rc != 0:
		raise Fail("the observer exited %d:\n%s" % (rc, run.text("observer")[-3000:]))
	for spec in sc["servers"]:
		name = spec.get("name", "server")
		if run.procs[name].poll() is None:
			if name in run.stop_first:  # a server under strace: the tracee first
				try:
					os.kill(run.stop_first[name], signal.SIGTERM)
				except ProcessLookupError:
					pass
			run.stop(name, signal.SIGTERM)
	loads = [check_load(run, l) for l in specs]
	result["load"] = loads
	for l in loads:
		log("load: " + l)

	t0, events, sfind, live, nint = read_findings(run)
	result["intervals"] = nint
	problems = []
	log("observer: %d interval records, %d finding events, %d summary findings, %d live lines"
	    % (nint, len(events), len(sfind), len(live)))
	for e in events:
		log("  event   " + short(e, e.get("t")))
	for f in sfind:
		log("  summary " + short(f))
	result["findings"] = sorted({"%s/%s" % (kind_of(f), severity_of(f))
				     for f in events + sfind})
	expect = sc.get("expect", [])
	allow = set(sc.get("allow", []))
	want = {e["kind"] for e in expect}

	# Precision: nothing alarming that the scenario does not expect or allow; notes only
	# where expected.
	for f in events + sfind:
		k = kind_of(f)
		if sc["group"] == "healthy" and alarming(f):
			problems.append("unexpected finding " + short(f))  # even of a kind expected
		elif k in want or k in allow:
			continue
		elif alarming(f) or k in NOTE_KINDS or sc["group"] == "healthy":
			problems.append("unexpected finding " + short(f))

	# Recall, live and in time.
	onset_t = onset_lo_t = None
	if onset:
		oe = run.onset_epoch if th else post_onset(run, onset)
		if oe is None:
			raise Fail("the sick condition never happened (onset %s): the scenario is "
				   "broken, not the observer" % onset)
		onset_t = oe - t0
		# a polled onset is a bracket: absent at onset_lo_t, present by onset_t
		onset_lo_t = run.onset_lo - t0 if th and run.onset_lo is not None else onset_t
		result["onset_t"] = round(onset_t, 3)
		if onset_lo_t < onset_t - 5 * POLL:  # a probe late by 5 periods or more
			result["onset_lo_t"] = round(onset_lo_t, 3)
			log("onset (%s): t=%.2f; the probe before it, which found it absent, began at "
			    "t=%.2f" % (onset["how"], onset_t, onset_lo_t))
		else:
			log("onset (%s): t=%.2f" % (onset["how"], onset_t))
	for e in expect:
		k = e["kind"]
		evid = {key: str(run.fmt(v)) for key, v in e.get("evidence", {}).items()}
		if evid:
			log("  %s: evidence expected %s" % (k, evid))
		mine = [f for f in events if kind_of(f) == k]
		insum = [f for f in sfind if kind_of(f) == k]
		if not mine:
			where = ("; the summary has it: " + short(insum[0])) if insum else \
				"; not in the summary either"
			problems.append("no live NDJSON finding record of kind %s%s" % (k, where))
			continue
		# The first record of the kind that names the expected pid/port is the one judged
		# (an earlier one that names nothing, e.g. before a census, does not count).
		mine.sort(key=lambda x: x.get("t", 1e9))
		named = [f for f in mine if all(str(evidence_at(f, key)) == v
						for key, v in evid.items())]
		if not named:
			for key, v in evid.items():
				problems.append("%s evidence %s=%s, expected %s" %
						(k, key, evidence_at(mine[0], key), v))
		elif named[0] is not mine[0]:
			log("  %s: the first record (t=%.2f) names %s; judged: the one at t=%.2f"
			    % (k, mine[0].get("t", -1), mine[0].get("evidence"),
			       named[0].get("t", -1)))
		f = named[0] if named else mine[0]
		t = f.get("t")
		lines = [hms for hms, text in live if text == f.get("text")]
		if not lines:
			problems.append("%s: no '[HH:MM:SS] %s' line on stderr" %
					(k, f.get("text")))
		elif f.get("time") and f["time"] not in lines:
			problems.append("%s: stderr says [%s], the NDJSON record %s" %
					(k, lines[0], f["time"]))
		if not insum:
			problems.append("%s is not repeated in the summary's findings" % k)
		elif "first_seen" not in insum[0]:
			problems.append("%s in the summary has no first_seen" % k)
		if onset_t is not None and isinstance(t, (int, float)):
			late = t - onset_t
			limit = LATE_LIMIT
			if EMULATED_CPU and k in ("close_wait_leak", "fin_wait2_orphans"):
				# while CLOSE_WAIT (or FIN_WAIT2) piles up the observer takes a census
				# at 10% of a CPU, and both are told by its second look
				# (features/sockstat.c): after one of X s the next comes 10X later, and
				# an emulated CPU makes X 10-30 times the host's (fin_wait2_orphans on
				# 6.12: +2.15 s against a limit of 1.60 s, with close_wait_leak at
				# the same census)
				limit += 10 * census_took_max(run)
			result.setdefault("delay_s", {})[k] = round(late, 3)
			if late > limit:
				problems.append("%s at t=%.2f, %.2f s after the onset "
						"(limit %.2f s)" % (k, t, late, limit))
			if t - onset_lo_t < -INTERVAL and not e.get("forecast"):
				problems.append("%s at t=%.2f, %.2f s before the onset, and it "
						"is not a forecast" % (k, t, onset_lo_t - t))
			log("  %s: t=%.2f, %+.2f s from the onset (limit +%.2f)" %
			    (k, t, late, limit))
		if insum:
			problems += check_evidence(run, e, insum[-1])
		if "severity" in f and sc["group"] == "sick" and not e.get("note") and \
				f["severity"] == "note":
			problems.append("%s is only a note" % k)
	if sc.get("requests_match"):
		problems += check_requests(run, sc)
	if sc.get("portfail_truth"):
		problems += check_portfail(run, sc["portfail_truth"], sfind)
	if "access_log" in sc:  # {} too: the counts alone
		problems += check_access_log(run, sc)
	if sc.get("slapd_log"):
		problems += check_slapd_log(run, sc)
	if sc.get("one_spelling"):
		problems += check_one_spelling(run, events + sfind)
	if sc["group"] == "healthy":
		for e in expect:  # healthy scenarios expect notes only
			if not any(kind_of(f) == e["kind"] and not alarming(f)
				   for f in events + sfind):
				problems.append("the note %s is missing" % e["kind"])
	return problems


def check_portfail(run, truth, sfind):
	"""The port finding's counts against the connecting process's own: strace's count of its
	connect() calls that returned EADDRNOTAVAIL ('strace': the log, 'pid': the process), or
	the driver's own count ('load': its name)."""
	if "strace" in truth:
		with open(run.fmt(truth["strace"])) as f:
			n = sum(1 for line in f if "connect(" in line and "EADDRNOTAVAIL" in line)
		pid = int(run.fmt(truth["pid"]))
	else:
		with open(os.path.join(run.tmp, truth["load"] + ".json")) as f:
			n = json.load(f)["errors"].get("EADDRNOTAVAIL", 0)
		pid = run.procs[truth["load"]].pid
	pf = [f for f in sfind if kind_of(f) == "port_exhaustion" and
	      "processes" in (f.get("evidence") or {})]
	if not pf:
		return ["no port_exhaustion naming processes in the summary (the process counted %d)" % n]
	ev = pf[-1].get("evidence") or {}
	procs = ev.get("processes") or []
	mine = [p for p in procs if p.get("pid") == pid]
	log("port_exhaustion: failures_total %s, processes %s; the process itself counted %d "
	    "EADDRNOTAVAIL (pid %d)" % (ev.get("failures_total"), procs, n, pid))
	problems = []
	if not n:
		problems.append("the process saw no EADDRNOTAVAIL: the scenario is broken")
	if ev.get("failures_total") != n:
		problems.append("port_exhaustion failures_total %s, the process counted %d" %
				(ev.get("failures_total"), n))
	if not mine:
		problems.append("port_exhaustion names %s, not pid %d" % (procs, pid))
	elif mine[0].get("failures_total") != n or mine[0].get("comm") != truth.get("comm"):
		problems.append("port_exhaustion names %s, expected %s (pid %d) with %d" %
				(mine[0], truth.get("comm"), pid, n))
	return problems


def evidence_at(f, key):
	"""A finding's evidence at KEY: a top-level key, or a path through objects and arrays
	("holders.processes.0.pid"); None where it has none."""
	v = f.get("evidence") or {}
	for part in key.split("."):
		if isinstance(v, dict):
			v = v.get(part)
		elif isinstance(v, list) and part.isdigit() and int(part) < len(v):
			v = v[int(part)]
		else:
			return None
	return v


def check_evidence(run, e, f):
	"""Figures of a finding (the summary's: the run's latest) within a stated range:
	'range': {key: [lo, hi]}; 'estimate_of': a load whose JSON counts the requests the finding's
	estimated_requests must match within 'tolerance' (a share); 'absent': keys it must not
	have."""
	problems = []
	ev = f.get("evidence") or {}
	for key, (lo, hi) in e.get("range", {}).items():
		v = evidence_at(f, key)
		log("  %s: %s = %s (expected %s..%s)" % (f["kind"], key, v, lo, hi))
		if not isinstance(v, (int, float)) or not lo <= v <= hi:
			problems.append("%s evidence %s=%s, expected %s..%s" % (f["kind"], key, v, lo, hi))
	for words in e.get("text_has", []):
		if words not in f.get("text", ""):
			problems.append("%s text lacks '%s': %s" % (f["kind"], words, f.get("text")))
	for words in e.get("text_lacks", []):
		if words in f.get("text", ""):
			problems.append("%s text has '%s': %s" % (f["kind"], words, f.get("text")))
	for key in e.get("absent", []):
		if key in ev:
			problems.append("%s evidence has %s=%s, expected none" % (f["kind"], key,
										ev[key]))
	if e.get("estimate_of"):
		with open(os.path.join(run.tmp, e["estimate_of"] + ".json")) as fh:
			n = json.load(fh)["requests"]
		v = ev.get("estimated_requests")
		tol = e.get("tolerance", 0.1)
		log("  %s: estimated_requests = %s, the load counted %d (tolerance %.0f%%)" %
		    (f["kind"], v, n, 100 * tol))
		if not isinstance(v, (int, float)) or abs(v - n) > tol * n:
			problems.append("%s: estimated_requests %s, the load counted %d (tolerance "
					"%.0f%%)" % (f["kind"], v, n, 100 * tol))
	return problems


def emulated(sc):
	"""The scenario as it runs under an emulated CPU (LL_EMULATED_CPU=1, the kernel matrix): its
	"emulated" part replaces what it names (a sick server slowed so that a lighter load still
	overruns it), and a sick one, whose load is not scaled, may also name the queue it makes:
	one vCPU 10-30x slower runs the load, the server and the observer, and requests truly wait
	for it (cpu_saturation, or worker_saturation: sick_fin_wait2_orphans queued 7.6 ms on 6.12
	in CI). A healthy one must stay silent (docs/kernels.md)."""
	if not EMULATED_CPU:
		return sc
	sc = dict(sc, **sc.get("emulated", {}))
	if sc["group"] == "sick":
		sc["allow"] = list(sc.get("allow", [])) + ["cpu_saturation", "worker_saturation"]
	return sc


def main():
	args = sys.argv[1:]
	if args == ["--list"]:
		for sc in scenarios.SCENARIOS:
			print(sc["name"])
		return 0
	if args and args[0] == "--table":
		return table(args[1:])
	if len(args) != 1:
		print("usage: harness.py NAME | --list | --table [DIR...]", file=sys.stderr)
		return 64
	byname = {sc["name"]: sc for sc in scenarios.SCENARIOS}
	if args[0] not in byname:
		print("harness.py: no scenario %s (--list)" % args[0], file=sys.stderr)
		return 64
	sc = emulated(byname[args[0]])
	result = {"name": sc["name"], "group": sc["group"], "what": sc["what"],
		  "expect": [e["kind"] for e in sc.get("expect", [])], "bin": BIN}
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))
	log("scenario %s: %s" % (sc["name"], sc["what"]))
	log("expect: %s" % (", ".join(result["expect"]) or
			    "no finding of severity warning or critical"))
	t = time.monotonic()
	try:
		problems = run_scenario(sc, result)
		rc = 1 if problems else 0
		for p in problems:
			log("FAIL: " + p)
		result["outcome"] = "fail" if problems else "pass"
		result["problems"] = problems
		if not problems:
			log("PASS: %s" % sc["name"])
	except Skip as e:
		log("SKIP: %s" % e)
		result["outcome"], result["problems"], rc = "skip", [str(e)], 77
	except Fail as e:
		log("FAIL: %s" % e)
		result["outcome"], result["problems"], rc = "error", [str(e)], 1
	result["wall_s"] = round(time.monotonic() - t, 1)
	out = os.environ.get("LOADLENS_SCENARIO_RESULTS")
	if out:
		os.makedirs(out, exist_ok=True)
		with open(os.path.join(out, sc["name"] + ".json"), "w") as f:
			json.dump(result, f, indent=1)
	return rc


if __name__ == "__main__":
	sys.exit(main())

