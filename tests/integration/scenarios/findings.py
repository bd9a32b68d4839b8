"""Reading the observer's findings: NDJSON event records, the summary, the live stderr lines."""
import json
import os
import re
import subprocess

from common import BIN, log

NOTE_KINDS = {"pipelining", "udp_shared_socket", "netns_outside", "no_listener",
	      "served_elsewhere"}
# The pre-contract observer's kinds (forensics.findings, no severity), for the report only.
LEGACY = {"ports": "port_exhaustion", "ports_forecast": "port_exhaustion", "fds": "fd_exhaustion",
	  "close_wait": "close_wait_leak", "listen": "listen_overflow", "target": "target_exit"}
LIVE_RE = re.compile(r"^\[(\d\d:\d\d:\d\d)\] (.+)$")


# --- the observer's output ---

def observer_supports(flag):
	r = subprocess.run([os.path.join(BIN, "loadlens-observer"), "--help"], capture_output=True,
			   text=True)
	return flag in r.stdout + r.stderr


def read_findings(run):
	nd = os.path.join(run.tmp, "observer.ndjson")
	recs = []
	with open(nd) as f:
		for line in f:
			line = line.strip()
			if line:
				recs.append(json.loads(line))
	intervals = [r for r in recs if r.get("type", "interval") == "interval"]
	events = [r for r in recs if r.get("type") == "finding"]
	num = (int, float)
	t0s = sorted(r["time"] - r["t"] for r in intervals
		     if isinstance(r.get("time"), num) and isinstance(r.get("t"), num))
	t0 = t0s[len(t0s) // 2] if t0s else run.events["observer_attached"]
	with open(os.path.join(run.tmp, "observer.json")) as f:
		summary = json.load(f)
	sfind = summary.get("findings")
	if sfind is None:
		sfind = summary.get("forensics", {}).get("findings", [])
	live = [m.groups() for m in map(LIVE_RE.match, run.text("observer").splitlines()) if m]
	return t0, events, sfind, live, len(intervals)


def kind_of(f):
	if "severity" in f:
		return f["kind"]
	return LEGACY.get(f["kind"], f["kind"])


def severity_of(f):
	if "severity" in f:
		return f["severity"]
	return "note" if kind_of(f) in NOTE_KINDS else "warning?"  # legacy: no severity field


def alarming(f):
	return severity_of(f) not in ("note",)


def short(f, t=None):
	s = "%s/%s" % (kind_of(f), severity_of(f))
	if f["kind"] != kind_of(f):
		s += " (legacy kind %s)" % f["kind"]
	if t is not None:
		s += " at t=%.2f" % t
	return s + ": " + f.get("text", "")[:160]


def check_requests(run, sc):
	"""The observer's TCP request count against the driver's (scoping: only the target's)."""
	with open(os.path.join(run.tmp, "observer.json")) as f:
		rt = json.load(f).get("request_timing") or {}
	obs = sum(s.get("requests", 0) for s in rt.get("slots", []) if s.get("proto") == "tcp")
	problems = []
	if sc.get("server_sockets_only") and rt.get("client_sockets"):
		problems.append("the observer took %d of the target's sockets for its client "
				"connections" % rt["client_sockets"])
	with open(os.path.join(run.tmp, "load.json")) as f:
		d = json.load(f)
	drv = d["requests"]
	slack = sc.get("requests_slack", d["connections"] + drv // 100)
	log("requests: observer %d, driver %d (allowed difference %d)" % (obs, drv, slack))
	if abs(obs - drv) > slack:
		problems.append("the observer counted %d requests, the driver %d (allowed difference "
				"%d)" % (obs, drv, slack))
	return problems
