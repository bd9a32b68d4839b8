"""When the sick condition starts, measured by the harness apart from the observer: probes
polled during the load, or times read after it (the driver's timeline, a helper's log)."""
import re
import time

from common import POLL, Fail
from sandbox import netstat, nfds, tcp_sockets


# --- onset: when the sick condition starts, measured apart from the observer ---

def probe(run, o):
	"""True once the polled condition holds."""
	pid = int(run.fmt(o.get("pid", "{server_pid}")))
	if o["how"] == "log":
		try:
			with open(run.fmt(o["file"])) as f:
				return re.search(o["re"], f.read()) is not None
		except OSError:
			return False
	if o["how"] == "tcp_state":
		port = int(run.fmt(o["port"]))
		key = o.get("side", "lport")
		n = sum(1 for s in tcp_sockets(pid) if s["state"] == o["state"] and s[key] == port)
		return n >= o["min"]
	if o["how"] == "fds":
		base = run.vars.setdefault("fds_base", nfds(pid))
		return nfds(pid) >= base + o["min_growth"]
	if o["how"] == "netstat":
		base = run.vars.setdefault("netstat_base", netstat(pid, o["key"]))
		return netstat(pid, o["key"]) >= base + o["min"]
	raise Fail("unknown probe " + o["how"])


def poller(run, o):
	"""Brackets the onset: run.onset_lo, the start of the last probe that found the condition
	absent (it began after that), and run.onset_epoch, the end of the first that found it (it
	had begun by then). On a busy machine a probe or this thread's turn can take a second, so
	the two can lie far apart: a finding is early only before onset_lo, late only after
	onset_epoch + the limit."""
	while run.polling and run.onset_epoch is None:
		t = time.time()
		if probe(run, o):
			run.onset_epoch = time.time()
			return
		run.onset_lo = t
		time.sleep(POLL)


def driver_intervals(run, name):
	"""[(t_end_s, responses, mean_s, errors)] from the driver's interval lines."""
	out = []
	for line in run.text(name).splitlines():
		m = re.match(r"\[\s*([\d.]+)s\] (\d+) responses", line)
		e = re.search(r"(\d+) errors", line)
		if not m or not e:
			continue
		mm = re.search(r"mean ([\d.]+)(ns|us|ms|s)\b", line)
		unit = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
		mean = float(mm.group(1)) * unit[mm.group(2)] if mm else 0.0
		out.append((float(m.group(1)), int(m.group(2)), mean, int(e.group(1))))
	return out


def post_onset(run, o):
	"""Onsets read after the run: the driver's timeline, a helper's log, a harness event."""
	if o["how"] in ("driver_errors", "driver_mean"):
		name = o.get("load", "load")
		step = 0.1
		for t_end, _, mean, errs in driver_intervals(run, name):
			hit = errs > 0 if o["how"] == "driver_errors" else mean >= o["min_s"]
			if hit:  # the start of the first interval that shows it: the earliest bound
				return run.events[name + "_start"] + t_end - step
		return None
	if o["how"] == "logtime":
		try:
			with open(run.fmt(o["file"])) as f:
				lines = f.read().split("\n")
			c = lines[o.get("line", 0)].split()
			if "pid_field" in o:
				run.vars["onset_pid"] = c[o["pid_field"]]
			return float(c[o.get("field", 0)])
		except (OSError, IndexError, ValueError):
			return None
	if o["how"] == "logline":  # the first line matching 're'; its 'field' is an epoch time
		try:
			with open(run.fmt(o["file"])) as f:
				for line in f:
					if re.search(o["re"], line):
						return float(line.split()[o.get("field", 0)])
		except (OSError, IndexError, ValueError):
			return None
		return None
	if o["how"] == "event":
		return run.events.get(o["event"])
	raise Fail("unknown onset " + o["how"])
