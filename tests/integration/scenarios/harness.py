#!/usr/bin/python3
"""The observer's scenario matrix: precision and recall of its findings (issue 9, section 6).

    harness.py NAME        run one scenario (scenarios.py); exit 0 pass, 1 fail, 77 skip
    harness.py --list      the scenario names, one a line (tests/CMakeLists.txt reads them)
    harness.py --table DIR... a markdown table of the results saved in each DIR

Every scenario runs in a network namespace of its own (loopback only, its own sysctls and
counters), with a real server, a real load and the observer inside it. The findings contract
(docs/observer.md, "Scenario matrix") is what is checked:
- healthy: no finding of severity warning or critical, and exactly the notes expected;
- sick: each expected kind as a live NDJSON event record and a '[HH:MM:SS] text' line on the
  observer's stderr, with t at most 2 intervals (+ SLACK) after the onset the harness measured
  on its own (before it only for forecasts), naming the expected pid/port in its evidence;
  and no warning/critical finding of a kind the scenario does not expect or allow.
LOADLENS_BIN picks the build; LOADLENS_SCENARIO_RESULTS=DIR saves each result as DIR/NAME.json;
LL_KEEP_TMP=1 keeps the temp directory.
"""
import json
import os
import random
import re
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import scenarios  # noqa: E402

BIN = os.environ.get("LOADLENS_BIN") or os.path.normpath(os.path.join(HERE, "../../../build/bin"))
PY = "/usr/bin/python3"
SERVERS = os.path.join(HERE, "servers.py")
INTERVAL = 0.5	# observer --interval, s
SLACK = 0.1	# scheduling jitter allowed on top of 2 intervals, s
POLL = 0.05	# onset probes' period, s
NOTE_KINDS = {"pipelining", "udp_shared_socket", "netns_outside", "no_listener"}
# The pre-contract observer's kinds (forensics.findings, no severity), for the report only.
LEGACY = {"ports": "port_exhaustion", "ports_forecast": "port_exhaustion", "fds": "fd_exhaustion",
	  "close_wait": "close_wait_leak", "listen": "listen_overflow", "target": "target_exit"}
TCP_STATES = {"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1",
	      "05": "FIN_WAIT2", "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT",
	      "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING"}
LIVE_RE = re.compile(r"^\[(\d\d:\d\d:\d\d)\] (.+)$")


class Skip(Exception):
	pass


class Fail(Exception):
	pass


def log(msg):
	print(msg, flush=True)


class Run:
	"""One scenario's processes, namespace and files; everything is undone by close()."""

	def __init__(self, sc):
		self.sc = sc
		self.tmp = tempfile.mkdtemp(prefix="ll-scen-%s-" % sc["name"])
		self.ns = "llscen%d_%d" % (os.getpid(), random.randrange(1 << 16))
		self.ns_made = False
		self.ns2_made = False
		self.procs = {}
		self.vars = {"tmp": self.tmp, "bin": BIN, "py": PY, "servers": SERVERS}
		self.events = {}  # name -> epoch
		self.onset_epoch = None
		self.onset_what = None
		self.polling = False

	# --- namespace and processes ---

	def netns_up(self, sysctls):
		if subprocess.run(["ip", "netns", "add", self.ns], capture_output=True).returncode:
			raise Skip("cannot create a network namespace (ip netns add)")
		self.ns_made = True
		subprocess.run(["ip", "-n", self.ns, "link", "set", "lo", "up"], check=True)
		for k, v in sysctls.items():
			r = subprocess.run(self.inns(["sysctl", "-qw", "%s=%s" % (k, v)]),
					   capture_output=True, text=True)
			if r.returncode:
				raise Fail("sysctl %s=%s in the namespace: %s" % (k, v, r.stderr.strip()))

	def inns(self, argv):
		return ["ip", "netns", "exec", self.ns] + argv

	def fmt(self, x):
		if isinstance(x, str):
			return x.format(**self.vars)
		return [self.fmt(a) for a in x]

	def spawn(self, name, argv, cpu=None, env=None, outside=False):
		argv = self.fmt(argv)
		if cpu is not None and os.cpu_count() >= 2:
			argv = ["taskset", "-c", str(cpu)] + argv
		out = open(os.path.join(self.tmp, name + ".out"), "w")
		err = open(os.path.join(self.tmp, name + ".err"), "w")
		e = dict(os.environ)
		e.update(env or {})
		# ip netns exec, taskset and prlimit exec in place: the pid is the program's.
		if outside:  # in a second, empty namespace of its own
			if not self.ns2_made:
				subprocess.run(["ip", "netns", "add", self.ns + "o"], check=True)
				self.ns2_made = True
			argv = ["ip", "netns", "exec", self.ns + "o"] + argv
		else:
			argv = self.inns(argv)
		p = subprocess.Popen(argv, stdout=out, stderr=err, env=e,
				     start_new_session=True, cwd=self.tmp)
		self.procs[name] = p
		self.vars[name + "_pid"] = p.pid
		return p

	def text(self, name, ext="err"):
		try:
			with open(os.path.join(self.tmp, "%s.%s" % (name, ext))) as f:
				return f.read()
		except OSError:
			return ""

	def wait_for(self, name, pattern, secs=20):
		p = self.procs[name]
		end = time.monotonic() + secs
		while time.monotonic() < end:
			if re.search(pattern, self.text(name) + self.text(name, "out")):
				return
			if p.poll() is not None:
				break
			time.sleep(0.05)
		raise Fail("%s did not print /%s/ within %ds (exit %s):\n%s%s" %
			   (name, pattern, secs, p.poll(), self.text(name, "out")[-2000:],
			    self.text(name)[-2000:]))

	def wait_listen(self, name, port, secs=20):
		p = self.procs[name]
		end = time.monotonic() + secs
		while time.monotonic() < end:
			if any(s["lport"] == port and s["state"] == "LISTEN"
			       for s in tcp_sockets(p.pid)):
				return
			if p.poll() is not None:
				break
			time.sleep(0.05)
		raise Fail("%s does not listen on %d within %ds (exit %s):\n%s%s" %
			   (name, port, secs, p.poll(), self.text(name, "out")[-2000:],
			    self.text(name)[-2000:]))

	def send(self, name, sig):
		p = self.procs[name]
		if p.poll() is None:
			try:
				os.kill(p.pid, sig)
			except ProcessLookupError:
				pass

	def stop(self, name, sig=signal.SIGINT, secs=15):
		p = self.procs[name]
		self.send(name, sig)
		try:
			return p.wait(secs)
		except subprocess.TimeoutExpired:
			os.killpg(p.pid, signal.SIGKILL)
			p.wait()
			raise Fail("%s did not stop within %ds of %s" % (name, secs, sig.name))

	def close(self):
		self.polling = False
		for name, p in self.procs.items():
			if p.poll() is None:
				try:
					os.killpg(p.pid, signal.SIGTERM)
				except ProcessLookupError:
					pass
		for name, p in self.procs.items():
			try:
				p.wait(5)
			except subprocess.TimeoutExpired:
				os.killpg(p.pid, signal.SIGKILL)
				p.wait()
			try:  # children left in the group (forking servers)
				os.killpg(p.pid, signal.SIGKILL)
			except (ProcessLookupError, PermissionError):
				pass
		if self.ns_made:
			subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
		if self.ns2_made:
			subprocess.run(["ip", "netns", "del", self.ns + "o"], capture_output=True)
		if os.environ.get("LL_KEEP_TMP"):
			log("kept " + self.tmp)
		else:
			shutil.rmtree(self.tmp, ignore_errors=True)


# --- reading the kernel's view through /proc (netns-aware through a pid inside it) ---

def tcp_sockets(pid):
	out = []
	for f in ("tcp", "tcp6"):
		try:
			with open("/proc/%d/net/%s" % (pid, f)) as fh:
				next(fh)
				for line in fh:
					c = line.split()
					out.append({"lport": int(c[1].rsplit(":", 1)[1], 16),
						    "rport": int(c[2].rsplit(":", 1)[1], 16),
						    "state": TCP_STATES.get(c[3], c[3])})
		except (OSError, StopIteration):
			pass
	return out


def netstat(pid, key):
	try:
		with open("/proc/%d/net/netstat" % pid) as fh:
			lines = fh.read().split("\n")
	except OSError:
		return 0
	for i in range(0, len(lines) - 1, 2):
		names, vals = lines[i].split(), lines[i + 1].split()
		if names and names[0] == "TcpExt:" and key in names:
			return int(vals[names.index(key)])
	return 0


def nfds(pid):
	try:
		return len(os.listdir("/proc/%d/fd" % pid))
	except OSError:
		return -1


def loadlens_processes():
	"""'comm (pid)' of the loadlens programs running on the host, any namespace."""
	out = []
	for d in os.listdir("/proc"):
		if not d.isdigit():
			continue
		try:
			with open("/proc/%s/comm" % d) as f:
				comm = f.read().strip()
		except OSError:
			continue
		if comm.startswith("loadlens-"):
			out.append("%s (pid %s)" % (comm, d))
	return out


def children(pid):
	try:
		with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
			return [int(x) for x in f.read().split()]
	except OSError:
		return []


# --- servers ---

NGINX_CONF = """daemon off;
master_process {master};
worker_processes 1;
{rlimit}
pid {dir}/nginx.pid;
error_log {dir}/error.log {loglevel};
events {{ worker_connections {wconn}; accept_mutex off; }}
http {{
	access_log off;
	keepalive_requests 1000000;
	client_body_temp_path {dir}/tmp/body;
	proxy_temp_path {dir}/tmp/proxy;
	fastcgi_temp_path {dir}/tmp/fastcgi;
	uwsgi_temp_path {dir}/tmp/uwsgi;
	scgi_temp_path {dir}/tmp/scgi;
	server {{
		listen 127.0.0.1:{port} backlog=1024;
		location / {{ return 200 "hello, scenario\\n"; }}
	}}
}}
"""


def need(prog):
	path = shutil.which(prog, path="/usr/sbin:/usr/bin:/sbin:/bin:" + os.environ.get("PATH", ""))
	if not path:
		raise Skip("%s is not installed (tools/loadlens PACKAGES)" % prog)
	return path


def go_binary():
	"""Builds goserver/main.go (stdlib only, offline) once per build directory."""
	go = shutil.which("go", path="/usr/bin:/usr/lib/go/bin:/usr/local/go/bin")
	if not go:
		raise Skip("no Go toolchain (golang-go) to build the Go server")
	src = os.path.join(HERE, "goserver", "main.go")
	outdir = os.path.join(BIN, "..", "scenarios")
	os.makedirs(outdir, exist_ok=True)
	exe = os.path.join(outdir, "goserver")
	if os.path.exists(exe) and os.path.getmtime(exe) >= os.path.getmtime(src):
		return exe
	env = dict(os.environ, GOCACHE=os.path.join(outdir, "gocache"), GOTOOLCHAIN="local",
		   GOPROXY="off", GOFLAGS="", GO111MODULE="off", CGO_ENABLED="0",
		   GOPATH=os.path.join(outdir, "gopath"))
	r = subprocess.run([go, "build", "-o", exe, src], env=env, capture_output=True, text=True,
			   timeout=300)
	if r.returncode:
		raise Skip("go build of the Go server failed offline: %s" % r.stderr.strip()[-300:])
	return exe


def start_server(run, spec):
	name = spec.get("name", "server")
	kind = spec["kind"]
	port = run.vars["port"]
	cpu = spec.get("cpu", 0)
	if kind == "refserver":
		argv = [os.path.join(BIN, "loadlens-refserver"), "--listen", "127.0.0.1:{port}",
			"--json", "{tmp}/%s.json" % name] + spec.get("args", [])
		if spec.get("nofile"):  # at most the hard limit we have (raising it needs privilege)
			hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
			n = spec["nofile"] if hard == resource.RLIM_INFINITY else min(spec["nofile"], hard)
			argv = ["prlimit", "--nofile=%d:%d" % (n, n)] + argv
		run.spawn(name, argv, cpu)
		run.wait_for(name, "listening")
	elif kind == "py":
		run.spawn(name, [PY, SERVERS] + spec["args"] + ["--port", "{port}"], cpu)
		run.wait_for(name, "^ready")
		if spec["args"][0] != "fork":
			run.wait_listen(name, port)
	elif kind == "go":
		run.spawn(name, [go_binary(), "-port", "{port}"], cpu)
		run.wait_listen(name, port)
	elif kind == "nginx":
		need("nginx")
		d = os.path.join(run.tmp, name)
		os.makedirs(os.path.join(d, "tmp"))
		rl = spec.get("worker_rlimit_nofile")
		with open(os.path.join(d, "nginx.conf"), "w") as f:
			f.write(NGINX_CONF.format(
				master="on" if spec.get("master") else "off", dir=d, port=port,
				rlimit="worker_rlimit_nofile %d;" % rl if rl else "",
				wconn=spec.get("worker_connections", 4096),
				loglevel=spec.get("loglevel", "warn")))
		run.spawn(name, [need("nginx"), "-p", d, "-e", d + "/error.log", "-c",
				 d + "/nginx.conf"], cpu)
		run.wait_listen(name, port)
		if spec.get("master"):
			for _ in range(100):
				kids = children(run.procs[name].pid)
				if kids:
					break
				time.sleep(0.05)
			if not kids:
				raise Fail("nginx started no worker")
			run.vars[name + "_worker_pid"] = kids[0]
	elif kind == "redis":
		run.spawn(name, [need("redis-server"), "--port", "{port}", "--bind", "127.0.0.1",
				 "--save", "", "--appendonly", "no", "--daemonize", "no",
				 "--protected-mode", "no", "--dir", "{tmp}"], cpu)
		run.wait_listen(name, port)
	elif kind == "memcached":
		run.spawn(name, [need("memcached"), "-u", "nobody", "-l", "127.0.0.1", "-p", "{port}"]
			  + spec.get("args", []), cpu)
		run.wait_listen(name, port)
	else:
		raise Fail("unknown server kind " + kind)


# --- loads ---

def load_argv(run, spec):
	kind = spec["kind"]
	name = spec["name"]
	if kind == "driver":
		return [os.path.join(BIN, "loadlens-driver")] + spec["args"] + [
			"--interval", "0.1s", "--json", "{tmp}/%s.json" % name]
	if kind == "py":
		return [PY, SERVERS] + spec["args"]
	if kind == "redis-benchmark":
		return [need("redis-benchmark"), "-h", "127.0.0.1", "-p", "{port}"] + spec["args"]
	raise Fail("unknown load kind " + kind)


def run_loads(run, loads, actions):
	"""Starts the loads (each after its delay), does the timed actions, waits for the loads."""
	t_start = time.time()
	run.events["loads_begin"] = t_start
	pending = sorted([(l.get("delay", 0.0), "load", l) for l in loads] +
			 [(a["at"], "action", a) for a in actions], key=lambda x: x[0])
	for at, what, spec in pending:
		dt = t_start + at - time.time()
		if dt > 0:
			time.sleep(dt)
		if what == "load":
			run.events[spec["name"] + "_start"] = time.time()
			run.spawn(spec["name"], load_argv(run, spec), spec.get("cpu", 1))
		elif spec["do"] == "signal":
			run.events[spec["event"]] = time.time()
			run.send(spec["target"], getattr(signal, spec["sig"]))
		elif spec["do"] == "touch":
			run.events[spec["event"]] = time.time()
			open(run.fmt(spec["file"]), "w").close()
	for spec in loads:
		p = run.procs[spec["name"]]
		try:
			rc = p.wait(spec.get("timeout", 30))
		except subprocess.TimeoutExpired:
			os.killpg(p.pid, signal.SIGKILL)
			p.wait()
			raise Fail("load %s ran past %ds" % (spec["name"], spec.get("timeout", 30)))
		ok = spec.get("rc", [0])
		if rc not in ok:
			raise Fail("load %s exited %d (expected %s):\n%s%s" %
				   (spec["name"], rc, ok, run.text(spec["name"], "out")[-2500:],
				    run.text(spec["name"])[-1500:]))


def check_load(run, spec):
	"""The load really was what the scenario says (healthy: no errors)."""
	if spec["kind"] != "driver":
		return "%s exited 0" % spec["kind"]
	with open(os.path.join(run.tmp, spec["name"] + ".json")) as f:
		d = json.load(f)
	errs = {k: v for k, v in d["errors"].items() if v}
	desc = "driver: %d requests, %d connections, errors %s" % (
		d["requests"], d["connections"], errs or "none")
	if d["requests"] <= 0:
		raise Fail("the load made no request: " + desc)
	if spec.get("errors_ok") is None and errs:
		raise Fail("the healthy load had errors: " + desc)
	return desc


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
	while run.polling and run.onset_epoch is None:
		try:
			if probe(run, o):
				run.onset_epoch = time.time()
				return
		except Fail:
			raise
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
	if o["how"] == "event":
		return run.events.get(o["event"])
	raise Fail("unknown onset " + o["how"])


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
	t0s = sorted(r["time"] - r["t"] for r in intervals
		     if isinstance(r.get("time"), (int, float)) and isinstance(r.get("t"), (int, float)))
	t0 = t0s[len(t0s) // 2] if t0s else run.events["observer_attached"]
	with open(os.path.join(run.tmp, "observer.json")) as f:
		summary = json.load(f)
	sfind = summary.get("findings")
	if sfind is None:
		sfind = summary.get("forensics", {}).get("findings", [])
	live = [m.group(2) for m in map(LIVE_RE.match, run.text("observer").splitlines()) if m]
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
	with open(os.path.join(run.tmp, "load.json")) as f:
		d = json.load(f)
	drv = d["requests"]
	slack = d["connections"] + drv // 100
	log("requests: observer %d, driver %d (allowed difference %d)" % (obs, drv, slack))
	if abs(obs - drv) > slack:
		return ["the observer counted %d requests, the driver %d (allowed difference %d)" %
			(obs, drv, slack)]
	return []


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
		if others:
			raise Skip("this scenario changes a host-wide limit and needs the host to itself; "
				   "other loadlens processes run now (%s)" % ", ".join(others[:4]))
	run = Run(sc)
	try:
		return run_in(run, sc, result)
	finally:
		run.close()


def run_in(run, sc, result):
	run.netns_up(sc.get("sysctls", {}))
	run.vars["port"] = random.randrange(20000, 30000)
	for k, v in sc.get("files", {}).items():
		with open(os.path.join(run.tmp, k), "wb") as f:
			f.write(v)
	for spec in sc["servers"]:
		start_server(run, spec)
	obs = [os.path.join(BIN, "loadlens-observer"), "-i", "%gs" % INTERVAL,
	       "--ndjson", "{tmp}/observer.ndjson", "--json", "{tmp}/observer.json"]
	obs += sc.get("observer", ["--port", "{port}"])
	if observer_supports("--max-procs") and sc.get("max_procs"):
		obs += ["--max-procs", str(sc["max_procs"])]
	run.spawn("observer", obs, outside=sc.get("observer_outside", False))
	run.wait_for("observer", "observing", 60)
	run.events["observer_attached"] = time.time()
	time.sleep(sc.get("settle", 1.0))
	onset = sc.get("onset")
	th = None
	if onset and onset["how"] in ("log", "tcp_state", "fds", "netstat"):
		run.polling = True
		probe(run, onset)  # baselines before the load
		th = threading.Thread(target=poller, args=(run, onset), daemon=True)
		th.start()
	run_loads(run, sc["loads"], sc.get("actions", []))
	time.sleep(sc.get("tail", 1.0))
	run.polling = False
	if th:
		th.join()
	rc = run.stop("observer")
	if rc != 0:
		raise Fail("the observer exited %d:\n%s" % (rc, run.text("observer")[-3000:]))
	for spec in sc["servers"]:
		if run.procs[spec.get("name", "server")].poll() is None:
			run.stop(spec.get("name", "server"), signal.SIGTERM)
	loads = [check_load(run, l) for l in sc["loads"]]
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
		if k in want or k in allow:
			continue
		if alarming(f) or k in NOTE_KINDS or sc["group"] == "healthy":
			problems.append("unexpected finding " + short(f))

	# Recall, live and in time.
	onset_t = None
	if onset:
		oe = run.onset_epoch if th else post_onset(run, onset)
		if oe is None:
			raise Fail("the sick condition never happened (onset %s): the scenario is "
				   "broken, not the observer" % onset)
		onset_t = oe - t0
		result["onset_t"] = round(onset_t, 3)
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
		f = min(mine, key=lambda x: x.get("t", 1e9))
		t = f.get("t")
		ev = f.get("evidence") or {}
		for key, v in evid.items():
			if str(ev.get(key)) != v:
				problems.append("%s evidence %s=%s, expected %s" % (k, key, ev.get(key), v))
		if not any(line.startswith(f.get("text", "\0")[:60]) for line in live):
			problems.append("%s: no '[HH:MM:SS] %s' line on stderr" % (k, f.get("text")))
		if not insum:
			problems.append("%s is not repeated in the summary's findings" % k)
		elif "first_seen" not in insum[0]:
			problems.append("%s in the summary has no first_seen" % k)
		if onset_t is not None and isinstance(t, (int, float)):
			late = t - onset_t
			limit = 2 * INTERVAL + SLACK
			result.setdefault("delay_s", {})[k] = round(late, 3)
			if late > limit:
				problems.append("%s at t=%.2f, %.2f s after the onset (limit %.2f s)" %
						(k, t, late, limit))
			if late < -INTERVAL and not e.get("forecast"):
				problems.append("%s at t=%.2f, %.2f s before the onset, and it is not a "
						"forecast" % (k, t, -late))
			log("  %s: t=%.2f, %+.2f s from the onset (limit +%.2f)" % (k, t, late, limit))
		if "severity" in f and sc["group"] == "sick" and not e.get("note") and \
				f["severity"] == "note":
			problems.append("%s is only a note" % k)
	if sc.get("requests_match"):
		problems += check_requests(run, sc)
	if sc["group"] == "healthy":
		for e in expect:  # healthy scenarios expect notes only
			if not any(kind_of(f) == e["kind"] and not alarming(f) for f in events + sfind):
				problems.append("the note %s is missing" % e["kind"])
	return problems


def main():
	args = sys.argv[1:]
	if args == ["--list"]:
		for sc in scenarios.SCENARIOS:
			print(sc["name"])
		return 0
	if len(args) >= 2 and args[0] == "--table":
		return table(args[1:])
	if len(args) != 1:
		print("usage: harness.py NAME | --list | --table DIR", file=sys.stderr)
		return 64
	byname = {sc["name"]: sc for sc in scenarios.SCENARIOS}
	if args[0] not in byname:
		print("harness.py: no scenario %s (--list)" % args[0], file=sys.stderr)
		return 64
	sc = byname[args[0]]
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


BRIEF = [
	(r"unexpected finding ([\w_]+)/", r"extra \1"),
	(r"no live NDJSON finding record of kind ([\w_]+); the summary has it", r"\1 only in the summary"),
	(r"no live NDJSON finding record of kind ([\w_]+); not in", r"no \1"),
	(r"the note ([\w_]+) is missing", None),
	(r"([\w_]+) at t=[\d.]+, ([\d.]+) s after the onset", r"\1 late (+\2 s)"),
	(r"([\w_]+) at t=[\d.]+, ([\d.]+) s before the onset", r"\1 early (-\2 s)"),
	(r"([\w_]+) evidence (\w+)=(\S+), expected (\S+)", r"\1 names \2 \3, not \4"),
	(r"([\w_]+): no '\[HH", r"\1 not on stderr"),
	(r"([\w_]+) is not repeated in the summary", r"\1 not in the summary"),
	(r"the observer counted (\d+) requests, the driver (\d+)", r"\1 requests counted, driver \2"),
]


def brief(problems):
	out = []
	for p in problems:
		for pat, rep in BRIEF:
			m = re.match(pat, p)
			if m:
				if rep:
					out.append(m.expand(rep))
				break
		else:
			out.append(p.split("\n")[0][:80])
	return "; ".join(dict.fromkeys(out))  # each once, in order


def table(dirs):
	"""Markdown: one row per scenario, one outcome column per result directory."""
	res = []
	for d in dirs:
		r = {}
		for sc in scenarios.SCENARIOS:
			try:
				with open(os.path.join(d, sc["name"] + ".json")) as f:
					r[sc["name"]] = json.load(f)
			except OSError:
				pass
		res.append(r)
	print("| Scenario | What it does | Expected | " +
	      " | ".join("Outcome (%d)" % (i + 1) for i in range(len(dirs))) + " |")
	print("|---|---|---|" + "---|" * len(dirs))
	for sc in scenarios.SCENARIOS:
		exp = ", ".join("`%s`" % e["kind"] for e in sc.get("expect", []))
		if sc["group"] == "healthy":
			exp = (exp + " note" if exp else "nothing")
		cells = []
		for r in res:
			x = r.get(sc["name"])
			if not x:
				cells.append("not run")
				continue
			c = "**%s**" % x["outcome"]
			if x["outcome"] == "pass" and x.get("delay_s"):
				c += " (" + ", ".join("%+.2f s" % v for v in x["delay_s"].values()) + ")"
			elif x["outcome"] != "pass":
				c += ": " + brief(x.get("problems", []))
			cells.append(c.replace("|", "/"))
		print("| `%s` | %s | %s | %s |" % (sc["name"], sc["what"], exp, " | ".join(cells)))
	return 0


if __name__ == "__main__":
	sys.exit(main())
