"""Reading the observer's findings: NDJSON event records, the summary, the live stderr lines."""
import json
import os
import re
import subprocess

from common import BIN, log

NOTE_KINDS = {"pipelining", "udp_shared_socket", "netns_outside", "no_listener",
	      "served_elsewhere", "fork_wait"}
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


def census_took_max(run):
	"""The longest census of the run (NDJSON intervals' census.took_ms), in seconds."""
	took = 0.0
	with open(os.path.join(run.tmp, "observer.ndjson")) as f:
		for line in f:
			if '"took_ms"' not in line:
				continue
			c = json.loads(line).get("census") or {}
			if isinstance(c.get("took_ms"), (int, float)):
				took = max(took, c["took_ms"] / 1000.0)
	return took


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
	"""The observer's request count against the driver's (scoping: only the target's). TCP by
	default, within 'requests_slack' (one a connection and 1%); "requests_match": "udp" counts
	every reply the server wrote: at least the driver's answered requests and late replies, at
	most those and the ones it gave up on."""
	proto = "udp" if sc.get("requests_match") == "udp" else "tcp"
	with open(os.path.join(run.tmp, "observer.json")) as f:
		rt = json.load(f).get("request_timing") or {}
	obs = sum(s.get("requests", 0) for s in rt.get("slots", []) if s.get("proto") == proto)
	problems = []
	if proto == "udp":
		with open(os.path.join(run.tmp, "load.json")) as f:
			d = json.load(f)
		lo = d["requests"] + d.get("late_replies", 0)
		hi = d["requests"] + d["errors"].get("lost", 0)
		log("requests: observer %d, driver %d answered, %d late, %d lost" %
		    (obs, d["requests"], d.get("late_replies", 0), d["errors"].get("lost", 0)))
		if not lo <= obs <= hi:
			problems.append("the observer counted %d UDP requests, the driver's replies "
					"say %d to %d" % (obs, lo, hi))
		return problems
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


def check_slapd_log(run, sc):
	"""slapd's stats log as ground truth: the observer's TCP requests equal its searches and
	binds (a request each: SRCH and BIND lines), exactly."""
	srch = bind = 0
	with open(os.path.join(run.tmp, "server.err"), errors="replace") as f:
		for line in f:
			if " SRCH base=" in line:
				srch += 1
			elif " BIND dn=" in line:
				bind += 1
	with open(os.path.join(run.tmp, "observer.json")) as f:
		rt = json.load(f).get("request_timing") or {}
	obs = sum(s.get("requests", 0) for s in rt.get("slots", []) if s.get("proto") == "tcp")
	log("requests: observer %d, slapd's stats log %d searches + %d binds" % (obs, srch, bind))
	if not srch:
		return ["no search in slapd's stats log"]
	if obs != srch + bind:
		return ["the observer counted %d requests, slapd's log %d searches + %d binds" %
			(obs, srch, bind)]
	return []


def check_access_log(run, sc):
	"""The server's own counts as ground truth (nginx's access log, one line a request, its
	$request_time): the observer's TCP requests equal them exactly; 'access_log': {'tls':
	handshakes expected (an int, or a load whose JSON 'connections' it equals), 'resumed': TLS 1.2
	resumptions expected, 'service': the largest share by which the mean service time may differ
	from the mean $request_time}."""
	want = sc["access_log"]
	problems = []
	with open(os.path.join(run.tmp, "server", "access.log")) as f:
		times = [float(line) for line in f if line.strip()]
	with open(os.path.join(run.tmp, "observer.json")) as f:
		rt = json.load(f).get("request_timing") or {}
	slots = [s for s in rt.get("slots", []) if s.get("proto") == "tcp"]
	obs = sum(s.get("requests", 0) for s in slots)
	log("requests: observer %d, nginx's access log %d" % (obs, len(times)))
	if obs != len(times):
		problems.append("the observer counted %d requests, nginx's access log %d" %
				(obs, len(times)))
	if "tls" in want:
		n = want["tls"]
		if isinstance(n, str):
			with open(os.path.join(run.tmp, n + ".json")) as f:
				n = json.load(f)["connections"]
		hs = sum(s.get("tls_handshakes", 0) for s in slots)
		lost = sum(s.get("tls_lost", 0) for s in slots)
		log("tls handshakes: observer %d (lost %d), connections %d" % (hs, lost, n))
		if hs != n or lost:
			problems.append("the observer timed %d TLS handshakes (%d lost), the load made "
					"%d connections" % (hs, lost, n))
		hist = [s.get("tls_handshake") or {} for s in slots]
		if not any(h.get("count") for h in hist):
			problems.append("no tls_handshake histogram")
	if "resumed" in want:
		r = sum(s.get("tls12_resumed", 0) for s in slots)
		log("tls 1.2 resumed: observer %d, expected %d" % (r, want["resumed"]))
		if r != want["resumed"]:
			problems.append("the observer saw %d TLS 1.2 resumptions, expected %d" %
					(r, want["resumed"]))
	if "service" in want and times and slots:
		st = slots[0].get("service_time") or {}
		mean_ms = st.get("mean", 0) / 1e6
		log_ms = 1000 * sum(times) / len(times)
		diff = mean_ms / log_ms - 1 if log_ms else 1
		log("service time: observer mean %.3f ms, nginx $request_time mean %.3f ms (%+.2f%%, "
		    "allowed %.0f%%)" % (mean_ms, log_ms, 100 * diff, 100 * want["service"]))
		if abs(diff) > want["service"]:
			problems.append("service time mean %.3f ms, nginx's $request_time %.3f ms "
					"(%+.1f%%)" % (mean_ms, log_ms, 100 * diff))
	return problems


def check_one_spelling(run, findings):
	"""Each port group spelled one way: the findings' 'group' as every NDJSON interval
	record's ports.group (IPv6 in brackets, as ss prints it)."""
	problems = []
	groups = {(f.get("evidence") or {}).get("group") for f in findings} - {None}
	seen = set()
	with open(os.path.join(run.tmp, "observer.ndjson")) as f:
		for line in f:
			rec = json.loads(line) if line.strip() else {}
			g = (rec.get("ports") or {}).get("group")
			if rec.get("type", "interval") == "interval" and g:
				seen.add(g)
	log("port groups: findings %s, interval records %s" % (sorted(groups), sorted(seen)))
	if not groups or not seen:
		problems.append("no port group to compare (findings %s, records %s)" %
				(sorted(groups), sorted(seen)))
	elif seen != groups:
		problems.append("a port group spelled two ways: findings %s, interval records %s" %
				(sorted(groups), sorted(seen)))
	return problems
