#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The observer's cost as a user starts it: served throughput and the server's CPU a request with
loadlens-observer off and on, side by side in one run, for five loads against one server pinned to
CPU SRV_CPU, the load pinned to CPU CLI_CPU (the observer itself is not pinned).

    sudo bench/observer_cost.py
    sudo ROUNDS=1 DUR=2 LOADS="h2c keepalive" bench/observer_cost.py

Loads (LOADS, default "h2c h2tls grpc keepalive close"):
  h2c        nginx (one process: master_process off, 1 worker), listen ... http2 (prior knowledge),
             a 3-byte "ok\\n"; h2load -c 4 -m 10 -D DUR http://127.0.0.1:P/
  h2tls      the same over TLS (listen ... ssl http2, a self-signed rsa:2048 CN=localhost cert
             made with openssl at start); h2load -c 4 -m 10 -D DUR https://127.0.0.1:P/
  grpc       loadlens-driver grpc:// -c 4 --streams 10, the Put:Get 1:9 --requests-file of
             bench/grpc_ghz.sh, against bench/grpc_kv/main.go (grpc-go), built with
             bench/grpc_ghz.sh --server-only (Go modules from the Go module proxy, cached in
             BENCH_GOPATH); a server per run, so that its counts, printed at its exit, are that
             run's. A build that fails skips the load with a line.
  keepalive  nginx plain HTTP/1.1, a 12-byte "hello world\\n"; wrk -t1 -c50 -dDURs
  close      the same, wrk -H "Connection: close" (a new connection per request)
One nginx process serves the four nginx loads, a server block and port each, started once, with
keepalive_requests 1000000, worker_connections 4096 and an access log per server block (on in
both settings): the lines a run adds are the server's own count of the requests it served.

Each load runs ROUNDS pairs, back to back, each pair an "off" and an "on" run in an order that
alternates from round to round (round 0: off then on; round 1: on then off; ...), DUR seconds
each; the first run of each load follows a 1 s load that is not measured (the server's warm-up).
An "on" run starts `loadlens-observer --port P -j FILE -i 0 [OBS_ARGS]`, waits for the line
"loadlens-observer: observing ..." on its stderr, then starts the load at once; 0.3 s after
the load is done (the server may still answer, and log, requests in flight) it stops the observer
with SIGINT and waits for it (its JSON is written at exit). An
"off" run is the same without the observer. Per run: the load tool's req/s (h2load's "finished
in ..., X req/s", wrk's "Requests/sec:", the driver's JSON throughput_rps), the server's CPU
seconds over the load (utime+stime of /proc/PID/stat, nginx's single process or the Go server),
the server's CPU a request (that CPU over the requests the server counted), and in "on" runs the
observer's requests for the port (request_timing.slots[], the slots whose "port" is P, their
"requests" summed: tcp and udp) against the server's count (nginx access-log lines the run
added; grpc_kv's "calls" summed). The load tools stop with requests in flight, which the server
may still answer (and the observer count) after the tool's own count ends: obs - server is
reported, not asserted.

Prints Markdown on stdout: per load, the pairs, the throughput loss (1 - on/off of each round's
pair: the median and min..max over rounds), the server's CPU a request on/off (the same), the
median req/s off and on, and the observer's count against the server's (summed over the on
runs, with the largest |obs - server| of a run). A line per run goes to stderr.

Environment:
  ROUNDS=5        pairs per load
  DUR=6           seconds of each measured run
  LOADS           the loads, space-separated (default "h2c h2tls grpc keepalive close")
  SRV_CPU=0       CPU of the server (taskset)
  CLI_CPU=1       CPU of the load tool (taskset)
  OBS_ARGS        extra observer arguments, split on spaces (e.g. "--lean off")
  TSV=FILE        append a row per run to FILE, tab-separated: this invocation's start (a round's
                  off and on rows share it), load, round, setting, req/s, requests (the tool's),
                  server CPU s, observer requests ("-" off), server count
  LOADLENS_BIN    the build's bin directory (default build/bin beside bench/)
  BENCH_GOPATH    Go's module and binary cache for the gRPC server (default
                  /tmp/loadlens-bench-gopath: a rerun reuses the server built there)
  BEFORE=DIR      also run DIR/loadlens-observer (another build: the commit before a change) in
                  each round, as a setting of its own ("before"), paired with the same "off"
  KEEP=1          keep the scratch directory (configs, logs, the observer's JSON) and print it

Loopback only; every load is bounded in time (h2load -D, wrk -d, driver -d, and a timeout over
each). Needs root (exit 64 otherwise: the observer loads BPF programs), nginx, h2load, wrk,
openssl and taskset (apt-get install -y nginx-light nghttp2-client wrk, tried when missing);
gRPC needs go (/usr/local/go/bin or PATH) and protoc. Every child is stopped at exit, Ctrl-C
included.
"""
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchproc import Children, cpu_s, free_port, lines_since, tail, wait_port, wait_text  # noqa: E402
from benchproc import undelivered_since  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
KV_PROTO = os.path.join(ROOT, "tests", "data", "kv.proto")
ALL_LOADS = ("h2c", "h2tls", "grpc", "keepalive", "close")
NGINX_LOADS = ("h2c", "h2tls", "keepalive", "close")
GRPC_MIX = ('weight=1 /kv.Store/Put {"key":"k{{rand:0-99999}}","value":"dmFs"}\n'
            'weight=9 /kv.Store/Get {"key":"k{{rand:0-99999}}"}\n')
NAME = os.path.basename(sys.argv[0])


class Skip(Exception):
	"""A load that cannot run here (said in one line, the others go on)."""


def die(msg, code=1):
	print("%s: %s" % (NAME, msg), file=sys.stderr)
	sys.exit(code)


def log(msg):
	print(msg, file=sys.stderr, flush=True)


def env_int(name, default):
	v = os.environ.get(name, str(default))
	if not v.isdigit():
		die("%s must be a whole number, not '%s'" % (name, v), 64)
	return int(v)


def fmt_range(v, f="%.1f"):
	if not v:
		return "-"
	return (f + " [" + f + ".." + f + "]") % (statistics.median(v), min(v), max(v))


class Bench:
	def __init__(self):
		self.rounds = env_int("ROUNDS", 5)
		self.dur = env_int("DUR", 6)
		self.srv_cpu = env_int("SRV_CPU", 0)
		self.cli_cpu = env_int("CLI_CPU", 1)
		if self.rounds < 1 or self.dur < 1:
			die("ROUNDS and DUR must be 1 or more", 64)
		self.loads = os.environ.get("LOADS", " ".join(ALL_LOADS)).split()
		bad = [l for l in self.loads if l not in ALL_LOADS]
		if bad:
			die("unknown load %s (the loads: %s)" % (" ".join(bad), " ".join(ALL_LOADS)), 64)
		self.obs_args = os.environ.get("OBS_ARGS", "").split()
		self.tsv = os.environ.get("TSV")
		self.keep = os.environ.get("KEEP") == "1"
		self.gopath = os.environ.get("BENCH_GOPATH", "/tmp/loadlens-bench-gopath")
		self.bin = os.environ.get("LOADLENS_BIN", os.path.join(ROOT, "build", "bin"))
		self.observer = os.path.join(self.bin, "loadlens-observer")
		# the observers measured: "on" (this build's), and with BEFORE=DIR "before" (another
		# build's, e.g. the commit before a change), each paired with the same round's "off"
		self.variants = {"on": self.observer}
		if os.environ.get("BEFORE"):
			self.variants["before"] = os.path.join(os.environ["BEFORE"], "loadlens-observer")
		self.driver = os.path.join(self.bin, "loadlens-driver")
		self.kids = Children()
		self.tmp = tempfile.mkdtemp(prefix="loadlens-observer-cost.")
		self.started = time.strftime("%Y-%m-%dT%H:%M:%S")
		self.ports = {}
		self.nginx = None
		self.grpc_server = None
		self.results = {}  # load -> [(round, setting, run dict)]
		self.skipped = {}  # load -> why

	# --- setup --------------------------------------------------------------------------------

	def check_tools(self):
		for b in list(self.variants.values()) + [self.driver]:
			if not os.access(b, os.X_OK):
				die("build first: %s" % b)
		need = {"nginx": "nginx-light", "h2load": "nghttp2-client", "wrk": "wrk"}
		missing = [pkg for b, pkg in need.items() if not shutil.which(b)]
		if missing:
			log("installing %s ..." % " ".join(missing))
			subprocess.run(["apt-get", "install", "-y"] + missing, stdout=subprocess.DEVNULL,
			               stderr=subprocess.DEVNULL)
		for b in ("nginx", "h2load", "wrk", "openssl", "taskset"):
			if not shutil.which(b):
				die("needs %s (apt-get install -y nginx-light nghttp2-client wrk)" % b)

	def nginx_up(self):
		loads = [l for l in self.loads if l in NGINX_LOADS]
		if not loads:
			return
		d = self.tmp
		taken = set()
		servers = []
		for l in loads:
			p = self.ports[l] = free_port(taken)
			listen = {"h2c": " http2", "h2tls": " ssl http2"}.get(l, "")
			body = "ok\\n" if l.startswith("h2") else "hello world\\n"
			tls = ""
			if l == "h2tls":
				subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes",
				                "-keyout", d + "/key.pem", "-out", d + "/cert.pem", "-days", "2",
				                "-subj", "/CN=localhost"], check=True,
				               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
				tls = "ssl_certificate %s/cert.pem; ssl_certificate_key %s/key.pem; " % (d, d)
			servers.append(
				'\tserver { listen 127.0.0.1:%d%s; %saccess_log %s/%s.access.log; '
				'location / { return 200 "%s"; } }' % (p, listen, tls, d, l, body))
		temps = "".join("\t%s_temp_path %s/%s;\n" % (t, d, t) for t in (
			"client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
		conf = ("master_process off;\ndaemon off;\nworker_processes 1;\npid %s/nginx.pid;\n"
		        "error_log %s/error.log;\nevents { worker_connections 4096; }\nhttp {\n"
		        "\tkeepalive_requests 1000000;\n%s%s\n}\n" % (d, d, temps, "\n".join(servers)))
		with open(d + "/nginx.conf", "w") as f:
			f.write(conf)
		self.nginx = self.kids.start(
			["taskset", "-c", str(self.srv_cpu), "nginx", "-c", d + "/nginx.conf", "-p", d,
			 "-e", d + "/error.log"], stdout=subprocess.DEVNULL,
			stderr=open(d + "/nginx.err", "w"))
		for l in loads:
			try:
				wait_port(self.ports[l], self.nginx, "nginx")
			except RuntimeError as e:
				die("%s: %s %s" % (e, tail(d + "/nginx.err"), tail(d + "/error.log")))

	def grpc_build(self):
		"""The Go server, built once into BENCH_GOPATH (rebuilt when main.go or kv.proto is
		newer); raises Skip when it cannot be built."""
		exe = os.path.join(self.gopath, "loadlens-bench", "grpc_kv_server")
		src = max(os.path.getmtime(os.path.join(HERE, "grpc_kv", "main.go")),
		          os.path.getmtime(KV_PROTO))
		if os.path.exists(exe) and os.path.getmtime(exe) >= src:
			return exe
		os.makedirs(os.path.dirname(exe), exist_ok=True)
		log("grpc: building the server (bench/grpc_ghz.sh --server-only, Go module proxy) ...")
		env = dict(os.environ, BENCH_GOPATH=self.gopath)
		try:
			r = subprocess.run([os.path.join(HERE, "grpc_ghz.sh"), "--server-only", exe],
			                   env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
			                   stdin=subprocess.DEVNULL, timeout=900)
		except subprocess.TimeoutExpired:
			raise Skip("the server's build took over 900 s")
		out = r.stdout.decode(errors="replace").strip().splitlines()
		if r.returncode != 0 or not os.access(exe, os.X_OK):
			raise Skip("the server did not build (bench/grpc_ghz.sh --server-only exit %d): %s" % (
				r.returncode, out[-1] if out else ""))
		return exe

	# --- one run ------------------------------------------------------------------------------

	def load_argv(self, load, dur):
		p = self.ports[load]
		pin = ["taskset", "-c", str(self.cli_cpu)]
		if load in ("h2c", "h2tls"):
			scheme = "https" if load == "h2tls" else "http"
			return pin + ["h2load", "-c", "4", "-m", "10", "-D", str(dur),
			              "%s://127.0.0.1:%d/" % (scheme, p)]
		if load in ("keepalive", "close"):
			extra = ["-H", "Connection: close"] if load == "close" else []
			return pin + ["wrk", "-t1", "-c50", "-d%ds" % dur] + extra + [
				"http://127.0.0.1:%d/" % p]
		return pin + [self.driver, "grpc://127.0.0.1:%d" % p, "--proto-file", KV_PROTO,
		              "--requests-file", self.tmp + "/mix.txt", "--seed", "1", "-c", "4",
		              "--streams", "10", "-d", "%ds" % dur, "-q", "--json", self.tmp + "/d.json"]

	def parse_load(self, load, out):
		"""(req/s, requests completed, a note on errors or "") from the load tool's output."""
		if load in ("h2c", "h2tls"):
			m = re.search(r"finished in [\d.]+m?s, ([\d.]+) req/s", out)
			n = re.search(r"requests: \d+ total, \d+ started, \d+ done, (\d+) succeeded, "
			              r"(\d+) failed, (\d+) errored, (\d+) timeout", out)
			if not m or not n:
				raise RuntimeError("h2load: no result: %s" % out.strip()[-300:])
			bad = sum(int(x) for x in n.groups()[1:])
			s = re.search(r"status codes: \d+ 2xx, (\d+) 3xx, (\d+) 4xx, (\d+) 5xx", out)
			other = sum(int(x) for x in s.groups()) if s else 0
			note = ", ".join(x for x in (
				"%d failed/errored/timeout" % bad if bad else "",
				"%d not 2xx" % other if other else "") if x)
			return float(m.group(1)), int(n.group(1)), note
		if load in ("keepalive", "close"):
			m = re.search(r"Requests/sec:\s+([\d.]+)", out)
			n = re.search(r"(\d+) requests in", out)
			if not m or not n:
				raise RuntimeError("wrk: no result: %s" % out.strip()[-300:])
			note = "; ".join(l.strip() for l in out.splitlines()
			                 if "Socket errors" in l or "Non-2xx" in l)
			return float(m.group(1)), int(n.group(1)), note
		with open(self.tmp + "/d.json") as f:
			d = json.load(f)
		reqs = sum(x["requests"] for x in d["records"])
		errs = sum(x.get("errors", 0) for x in d["records"])
		return float(d["throughput_rps"]), reqs, ("%d errors" % errs) if errs else ""

	def run_load(self, load, dur):
		"""The load tool for dur seconds, pinned; its output."""
		argv = self.load_argv(load, dur)
		p = self.kids.start(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
		try:
			out = p.communicate(timeout=dur + 30)[0].decode(errors="replace")
		except subprocess.TimeoutExpired:
			self.kids.stop(p, signal.SIGKILL)
			raise RuntimeError("%s ran past %d s" % (argv[3], dur + 30))
		except BaseException:
			self.kids.stop(p, signal.SIGTERM, 5)
			raise
		self.kids.procs.remove(p)
		if p.returncode != 0:
			raise RuntimeError("%s exited %d: %s" % (argv[3], p.returncode, out.strip()[-300:]))
		return out

	def grpc_server_up(self):
		exe = self.grpc_exe
		d = self.tmp
		for f in ("grpc.json", "grpc.err"):
			if os.path.exists(d + "/" + f):
				os.remove(d + "/" + f)
		self.grpc_server = self.kids.start(
			["taskset", "-c", str(self.srv_cpu), exe, "-listen", "127.0.0.1:%d" % self.ports["grpc"],
			 "-json", d + "/grpc.json"], stdout=subprocess.DEVNULL,
			stderr=open(d + "/grpc.err", "w"))
		if not wait_text(d + "/grpc.err", b"listening", self.grpc_server, 10):
			raise RuntimeError("grpc_kv did not start: %s" % tail(d + "/grpc.err"))

	def grpc_server_down(self):
		"""Stops the server; the calls it counted."""
		self.kids.stop(self.grpc_server, signal.SIGTERM, 10)
		self.grpc_server = None
		try:
			with open(self.tmp + "/grpc.json") as f:
				return sum(json.load(f)["calls"].values())
		except (OSError, ValueError, KeyError):
			raise RuntimeError("grpc_kv left no counts: %s" % tail(self.tmp + "/grpc.err"))

	def observer_up(self, load, rnd, setting):
		base = "%s/%s-%d%s" % (self.tmp, load, rnd, "" if setting == "on" else "-" + setting)
		argv = [self.variants[setting], "--port", str(self.ports[load]), "-j", base + ".json",
		        "-i", "0"] + self.obs_args
		obs = self.kids.start(argv, stdout=open(base + ".out", "w"),
		                      stderr=open(base + ".err", "w"))
		obs.observer = True
		obs.files = base
		obs.port = self.ports[load]
		if not wait_text(base + ".err", b"observing", obs, 60):
			self.kids.stop(obs, signal.SIGINT)
			raise RuntimeError("the observer did not start (exit %s): %s" % (
				obs.returncode, tail(base + ".err")))
		return obs

	def observer_down(self, obs):
		"""SIGINT, wait; the requests its JSON counts on the load's port (None if none), the
		requests it saw answered in an HTTP/2 gap (h2_gap_answered: not in requests), and those
		it saw read and never answered (unanswered: the client gone first)."""
		rc = self.kids.stop(obs, signal.SIGINT, 30)
		try:
			with open(obs.files + ".json") as f:
				d = json.load(f)
		except (OSError, ValueError):
			raise RuntimeError("the observer (exit %s) wrote no JSON: %s" % (
				rc, tail(obs.files + ".err")))
		rt = d.get("request_timing") or {}
		slots = [s for s in rt.get("slots") or [] if s.get("port") == obs.port]
		if not slots:
			return None, 0, 0
		return (sum(s.get("requests", 0) for s in slots),
		        sum(s.get("h2_gap_answered", 0) for s in slots),
		        sum(s.get("unanswered", 0) for s in slots))

	def one(self, load, rnd, setting):
		grpc = load == "grpc"
		if grpc:
			self.grpc_server_up()
			pid = self.grpc_server.pid
		else:
			pid = self.nginx.pid
			logf = "%s/%s.access.log" % (self.tmp, load)
			_, off = lines_since(logf, 0)
		obs = self.observer_up(load, rnd, setting) if setting != "off" else None
		try:
			c0 = cpu_s(pid)
			out = self.run_load(load, self.dur)
			cpu = cpu_s(pid) - c0
		finally:
			# the answers to the last requests in flight, which the server may still write
			# (and log) after the load tool is gone: before the observer stops, in both settings
			time.sleep(0.3)
			obs_n, gap, unans = self.observer_down(obs) if obs else (None, 0, 0)
		undelivered = 0
		if grpc:
			srv_n = self.grpc_server_down()
		else:
			srv_n, _ = lines_since(logf, off)
			undelivered = undelivered_since(logf, off)
		rps, n, note = self.parse_load(load, out)
		per = 1e6 * cpu / (srv_n or n or 1)
		r = dict(rps=rps, n=n, cpu=cpu, per=per, obs=obs_n, srv=srv_n)
		msg = "%s round %d %s: %.0f req/s, %d requests; server %.2f s CPU, %.2f us a request, " \
		      "counted %d" % (load, rnd, setting, rps, n, cpu, per, srv_n)
		if setting != "off":
			msg += "; observer %s (obs - server %s)" % (
				"-" if obs_n is None else obs_n, "-" if obs_n is None else "%+d" % (obs_n - srv_n))
		if gap:
			note = ("%s; " % note if note else "") + "observer's h2_gap_answered %d" % gap
		if unans:
			note = ("%s; " % note if note else "") + "observer's unanswered %d" % unans
		if undelivered:
			note = ("%s; " % note if note else "") + \
				"%d logged with no body sent or 499 (the client gone)" % undelivered
		log(msg + ("; " + note if note else ""))
		if self.tsv:
			with open(self.tsv, "a") as f:
				f.write("\t".join(str(x) for x in (
					self.started, load, rnd, setting, "%.1f" % rps, n, "%.3f" % cpu,
					"-" if obs_n is None else obs_n, srv_n)) + "\n")
		return r

	# --- one load -----------------------------------------------------------------------------

	def warm(self, load):
		"""1 s of the load, not measured (and for grpc a check that the driver calls gRPC)."""
		if load == "grpc":
			self.grpc_server_up()
			try:
				self.run_load(load, 1)
				self.parse_load(load, "")
			except (RuntimeError, OSError, ValueError, KeyError) as e:
				raise Skip("the driver's warm-up failed: %s" % e)
			finally:
				self.grpc_server_down()
		else:
			self.run_load(load, 1)

	def bench_load(self, load):
		if load == "grpc":
			self.grpc_exe = self.grpc_build()
			self.ports["grpc"] = free_port(set(self.ports.values()))
			with open(self.tmp + "/mix.txt", "w") as f:
				f.write(GRPC_MIX)
		self.warm(load)
		res = self.results[load] = []
		settings = ["off"] + list(self.variants)
		for rnd in range(self.rounds):
			# each setting first in turn (off, on: then on, off; with "before", a rotation)
			k = rnd % len(settings)
			order = settings[k:] + settings[:k]
			for setting in order:
				res.append((rnd, setting, self.one(load, rnd, setting)))

	# --- report -------------------------------------------------------------------------------

	def report(self):
		print("### loadlens-observer off and on, as a user starts it (%s)\n" % self.started)
		print("%d rounds of %d s a setting; server on CPU %d, load on CPU %d, observer unpinned "
		      "(`--port P -j FILE -i 0%s`); %d CPUs, kernel %s.\n" % (
			      self.rounds, self.dur, self.srv_cpu, self.cli_cpu,
			      "".join(" " + a for a in self.obs_args), os.cpu_count(), os.uname().release))
		print("| load | pairs | loss %, median [min..max] | server CPU a request on/off, "
		      "median [min..max] | off req/s | on req/s | requests: observer / server "
		      "(on runs) | max abs(obs - server) a run |")
		print("|---|---|---|---|---|---|---|---|")
		for load in self.loads:
			if load in self.skipped:
				print("| %s | 0 | skipped: %s | | | | | |" % (
					load, self.skipped[load].replace("|", "\\|")))
				continue
			by = {}
			for rnd, setting, r in self.results.get(load, []):
				by.setdefault(rnd, {})[setting] = r
			for v in self.variants:
				self.report_row(load if len(self.variants) == 1 else "%s (%s)" % (load, v),
				                by, v)
		print("\nloss: 1 - on/off of each round's pair; server CPU a request: utime+stime of the "
		      "server over the load, over the requests it counted (nginx access-log lines, "
		      "grpc_kv's calls); observer: request_timing.slots[] of the port, `requests` summed.")

	def report_row(self, name, by, v):
		"""One load's row for variant v: its runs paired with the same round's "off"."""
		pairs = [d for d in by.values() if v in d and "off" in d]
		loss = [100 * (1 - d[v]["rps"] / d["off"]["rps"]) for d in pairs]
		ratio = [d[v]["per"] / d["off"]["per"] for d in pairs if d["off"]["per"] > 0]
		off = [d["off"]["rps"] for d in by.values() if "off" in d]
		ons = [d[v] for d in by.values() if v in d]
		counted = [r for r in ons if r["obs"] is not None]
		if counted:
			cnt = "%d / %d" % (sum(r["obs"] for r in counted), sum(r["srv"] for r in counted))
			diff = "%d" % max(abs(r["obs"] - r["srv"]) for r in counted)
		else:
			cnt, diff = "- (no slot for the port)", "-"
		print("| %s | %d | %s | %s | %s | %s | %s | %s |" % (
			name, len(pairs), fmt_range(loss), fmt_range(ratio, "%.3f"),
			"%.0f" % statistics.median(off) if off else "-",
			"%.0f" % statistics.median([r["rps"] for r in ons]) if ons else "-", cnt, diff))

	def main(self):
		self.check_tools()
		self.nginx_up()
		for load in self.loads:
			try:
				self.bench_load(load)
			except Skip as e:
				self.skipped[load] = str(e)
				log("%s: skipped: %s" % (load, e))
		self.report()

	def cleanup(self):
		self.kids.stop_all()
		if self.keep:
			log("scratch directory kept: %s" % self.tmp)
		else:
			shutil.rmtree(self.tmp, ignore_errors=True)


def main():
	if os.geteuid() != 0:
		print("%s: needs root (it loads BPF programs)" % NAME, file=sys.stderr)
		sys.exit(64)
	signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
	b = Bench()
	try:
		b.main()
	except KeyboardInterrupt:
		log("%s: interrupted" % NAME)
		sys.exit(130)
	except RuntimeError as e:
		die(str(e))
	finally:
		b.cleanup()


if __name__ == "__main__":
	main()
