"""Starting a scenario's servers and loads, and checking that the load was what it says."""
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import time

from common import BIN, HERE, PY, SERVERS, SERVERS_SH, Fail, Skip
from sandbox import children


# --- servers ---

NGINX_CONF = """daemon off;
master_process {master};
worker_processes {workers};
{rlimit}
pid {dir}/nginx.pid;
error_log {dir}/error.log {loglevel};
events {{ worker_connections {wconn}; accept_mutex off; }}
http {{
	log_format scenario '$request_time';
	access_log {access_log};
	keepalive_requests 1000000;
	keepalive_timeout {keepalive};
	client_body_temp_path {dir}/tmp/body;
	proxy_temp_path {dir}/tmp/proxy;
	fastcgi_temp_path {dir}/tmp/fastcgi;
	uwsgi_temp_path {dir}/tmp/uwsgi;
	scgi_temp_path {dir}/tmp/scgi;
	{upstream}
	server {{
		listen 127.0.0.1:{port} backlog={backlog}{reuseport}{ssl}{http2};
		{tls}
		location / {{ {location} }}
	}}
}}
"""
# nginx terminating TLS: a self-signed P-256 certificate made by openssl for the run
NGINX_TLS = ("ssl_certificate {dir}/cert.pem; ssl_certificate_key {dir}/key.pem; "
	     "ssl_protocols {protocols}; ssl_session_cache shared:scenario:1m;")
# a location that proxies to a backend (keep-alive upstream connections)
NGINX_UPSTREAM = "upstream backend {{ server 127.0.0.1:{port}; keepalive 16; }}"
NGINX_PROXY = ('proxy_pass http://backend; proxy_http_version 1.1; '
	       'proxy_set_header Connection "";')


def self_signed(d):
	r = subprocess.run([need("openssl"), "req", "-x509", "-newkey", "ec", "-pkeyopt",
			    "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", d + "/key.pem",
			    "-out", d + "/cert.pem", "-days", "2", "-subj", "/CN=localhost"],
			   capture_output=True, text=True)
	if r.returncode:
		raise Fail("openssl could not make a certificate: " + r.stderr[-500:])


HAPROXY_CONF = """global
	nbthread 1
defaults
	mode {mode}
	timeout connect 1s
	timeout client 5s
	timeout server 5s
	retries 0
frontend fe
	bind 127.0.0.1:{front}
	default_backend be
backend be
	server s1 127.0.0.1:{port}
"""


def need(prog):
	path = shutil.which(prog, path="/usr/sbin:/usr/bin:/sbin:/bin:" +
			    os.environ.get("PATH", ""))
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


def java_classes():
	"""Compiles javaserver/HelloServer.java (the JDK only) once per build directory."""
	javac = shutil.which("javac", path="/usr/bin:/usr/lib/jvm/default-java/bin")
	if not javac or not shutil.which("java", path="/usr/bin"):
		raise Skip("no JDK (openjdk-17-jdk-headless) to build the Java server")
	src = os.path.join(HERE, "javaserver", "HelloServer.java")
	outdir = os.path.join(BIN, "..", "scenarios", "java")
	os.makedirs(outdir, exist_ok=True)
	cls = os.path.join(outdir, "HelloServer.class")
	if os.path.exists(cls) and os.path.getmtime(cls) >= os.path.getmtime(src):
		return outdir
	r = subprocess.run([javac, "-d", outdir, src], capture_output=True, text=True, timeout=300)
	if r.returncode:
		raise Fail("javac of the Java server failed: %s" % r.stderr.strip()[-500:])
	return outdir


def start_server(run, spec):
	name = spec.get("name", "server")
	kind = spec["kind"]
	port = run.vars["port"]
	cpu = spec.get("cpu", 0)
	if kind == "refserver":
		argv = [os.path.join(BIN, "loadlens-refserver"), "--listen",
			spec.get("listen", "127.0.0.1:{port}"),
			"--json", "{tmp}/%s.json" % name] + spec.get("args", [])
		if spec.get("nofile"):  # at most our hard limit (raising it needs privilege)
			n = spec["nofile"]
			hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
			if hard != resource.RLIM_INFINITY:
				n = min(n, hard)
			argv = ["prlimit", "--nofile=%d:%d" % (n, n)] + argv
		run.spawn(name, argv, cpu)
		run.wait_for(name, "listening")
	elif kind == "py":
		run.spawn(name, [PY, SERVERS] + spec["args"] + ["--port", "{port}"], cpu)
		run.wait_for(name, "^ready")
		if spec["args"][0] != "fork":
			run.wait_listen(name, port)
	elif kind == "java":
		# the JDK's HttpServer; its access log ({tmp}/NAME/access.log, one line a request)
		# is the truth of the counts. It keeps up to 200 idle connections and closes the
		# ones past that, and any idle for 30 s: raised, so that a client's connections
		# stay as the client leaves them. TCP_NODELAY: it writes an answer's headers and body
		# apart, and the body would wait for the client's delayed ACK (40 ms a request on a
		# keep-alive connection). One GC thread and the first JIT tier only: on the
		# one CPU it is pinned to, its own compiler and collectors do not queue the requests
		d = os.path.join(run.tmp, name)
		os.makedirs(d)
		run.spawn(name, ["/usr/bin/java", "-Xmx256m", "-XX:+UseSerialGC",
				 "-XX:TieredStopAtLevel=1",
				 "-Dsun.net.httpserver.maxIdleConnections=100000",
				 "-Dsun.net.httpserver.idleInterval=3600",
				 "-Dsun.net.httpserver.nodelay=true",
				 "-cp", java_classes(), "HelloServer", "{port}",
				 d + "/access.log", str(spec.get("threads", 4))], cpu)
		run.wait_for(name, "^listening", 60)
		run.wait_listen(name, port)
	elif kind == "go":
		run.spawn(name, [go_binary(), "-port", "{port}"], cpu)
		run.wait_listen(name, port)
	elif kind == "nginx":
		need("nginx")
		d = os.path.join(run.tmp, name)
		os.makedirs(os.path.join(d, "tmp"))
		rl = spec.get("worker_rlimit_nofile")
		if spec.get("tls"):
			self_signed(d)
		with open(os.path.join(d, "nginx.conf"), "w") as f:
			f.write(NGINX_CONF.format(
				master="on" if spec.get("master") else "off", dir=d, port=port,
				rlimit="worker_rlimit_nofile %d;" % rl if rl else "",
				wconn=spec.get("worker_connections", 4096),
				workers=spec.get("workers", 1),
				keepalive=spec.get("keepalive_timeout", "75s"),
				backlog=spec.get("backlog", 1024),
				reuseport=" reuseport" if spec.get("workers", 1) > 1 else "",
				loglevel=spec.get("loglevel", "warn"),
				http2=" http2" if spec.get("http2") else "",
				ssl=" ssl" if spec.get("tls") else "",
				tls=NGINX_TLS.format(dir=d, protocols=spec["tls"])
				if spec.get("tls") else "",
				access_log=d + "/access.log scenario" if spec.get("access_log")
				else "off",
				upstream=NGINX_UPSTREAM.format(port=run.fmt(spec["proxy"]))
				if spec.get("proxy") else "",
				location=NGINX_PROXY if spec.get("proxy")
				else 'return 200 "hello, scenario\\n";'))
		run.spawn(name, [need("nginx"), "-p", d, "-e", d + "/error.log", "-c",
				 d + "/nginx.conf"], cpu, nice=spec.get("nice", 0))
		run.wait_listen(name, port)
		if spec.get("master"):
			for _ in range(100):
				kids = children(run.procs[name].pid)
				if kids:
					break
				time.sleep(0.05)
			if not kids:
				raise Fail("nginx started no worker")
			for _ in range(100):  # every worker up
				kids = children(run.procs[name].pid)
				if len(kids) >= spec.get("workers", 1):
					break
				time.sleep(0.05)
			run.vars[name + "_worker_pid"] = kids[0]
	elif kind == "node_cluster":
		run.spawn(name, [need("node"), os.path.join(HERE, "cluster.js"), "{port}",
				 str(spec.get("workers", 2))], cpu)
		run.wait_for(name, "^ready")
		run.wait_listen(name, port)
	elif kind == "haproxy":
		# in front of the port's server, on {port1} (mode http: keeps its backend
		# connections alive; mode tcp: a backend connection per client connection, closed
		# first by haproxy once the client closes); run under strace -f -e connect: its
		# connect() failures are the ground truth of a port finding (strace.log)
		d = os.path.join(run.tmp, name)
		os.makedirs(d)
		with open(os.path.join(d, "haproxy.cfg"), "w") as f:
			f.write(HAPROXY_CONF.format(
				front=run.vars["port1"], port=port, mode=spec.get("mode", "http")))
		run.spawn(name, [need("strace"), "-f", "-ttt", "-e", "trace=connect", "-o",
				 d + "/strace.log", need("haproxy"), "-db", "-f",
				 d + "/haproxy.cfg"], cpu)
		run.wait_listen(name, run.vars["port1"])
		kids = children(run.procs[name].pid)
		if not kids:
			raise Fail("strace started no haproxy")
		run.vars[name + "_haproxy_pid"] = kids[0]
		run.stop_first[name] = kids[0]
	elif kind == "postgres":
		# PostgreSQL 15 as user postgres (it refuses root): a fresh cluster in the temp dir,
		# fsync off, the postmaster in the foreground (setpriv execs in place: the pid is
		# the postmaster's), pgbench's tables made before the observer starts
		pgbin = "/usr/lib/postgresql/15/bin"
		if not os.access(os.path.join(pgbin, "postgres"), os.X_OK):
			raise Skip("PostgreSQL 15 is not installed (postgresql-15)")
		d = os.path.join(run.tmp, name)
		os.makedirs(d)
		os.chmod(run.tmp, 0o755)
		shutil.chown(d, "postgres", "postgres")
		asuser = ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups"]
		r = subprocess.run(run.fmt(asuser + [pgbin + "/initdb", "-D", d + "/data", "-A",
						     "trust", "-U", "postgres", "--no-sync"]),
				   capture_output=True, text=True, timeout=120)
		if r.returncode:
			raise Fail("initdb failed: " + r.stderr[-500:])
		run.spawn(name, asuser + [pgbin + "/postgres", "-D", d + "/data", "-k", d,
					  "-p", "{port}", "-c", "listen_addresses=127.0.0.1",
					  "-c", "fsync=off", "-c", "max_connections=100"], cpu)
		run.wait_listen(name, port)
		# the postmaster listens before it takes connections ("the database system is
		# starting up"): pgbench -i again until it does, for 20 s at most
		for _ in range(100):
			r = subprocess.run(["ip", "netns", "exec", run.ns, pgbin + "/pgbench", "-i",
					    "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "postgres",
					    "postgres"], capture_output=True, text=True, timeout=120)
			if not r.returncode or "starting up" not in r.stderr:
				break
			time.sleep(0.2)
		if r.returncode:
			raise Fail("pgbench -i failed: " + r.stderr[-500:])
	elif kind == "slapd":
		# Debian's slapd with 10,000 entries from tests/integration/lib/servers.sh's slapd_db
		# (the LDAP tests' one config), its stats log (one line a search, a bind, a result)
		# on stderr; "threads": its pool (default: slapd's own)
		slapd = need("slapd")
		if not os.path.exists("/etc/ldap/schema/inetorgperson.schema"):
			raise Skip("slapd's schema is not in /etc/ldap/schema (slapd)")
		d = os.path.join(run.tmp, name)
		extra = ["threads %d" % spec["threads"]] if spec.get("threads") else []
		r = subprocess.run(["bash", "-c", '. "$0" && slapd_db "$@"', SERVERS_SH, d,
				    "stats"] + extra, capture_output=True, text=True, timeout=120)
		if r.returncode:
			raise Fail("slapd_db failed: %s" % (r.stderr + run.text(name + "/slapadd",
									  "out"))[-500:])
		run.spawn(name, [slapd, "-h", "ldap://127.0.0.1:{port}/", "-f", d + "/slapd.conf",
				 "-d", "256"], cpu)
		run.wait_for(name, "slapd starting", 30)
	elif kind == "redis":
		run.spawn(name, [need("redis-server"), "--port", "{port}", "--bind", "127.0.0.1",
				 "--save", "", "--appendonly", "no", "--daemonize", "no",
				 "--protected-mode", "no", "--dir", "{tmp}"], cpu)
		run.wait_listen(name, port)
	elif kind == "memcached":
		run.spawn(name, [need("memcached"), "-u", "nobody", "-l", "127.0.0.1",
				 "-p", "{port}"] + spec.get("args", []), cpu)
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
	if kind in ("wrk", "ab", "h2load"):
		return [need(kind)] + spec["args"]
	if kind == "sh":  # a short shell loop of a peer client (openssl s_client)
		return ["/bin/sh", "-c", spec["script"]]
	if kind == "redis-benchmark":
		return [need("redis-benchmark"), "-h", "127.0.0.1", "-p", "{port}"] + spec["args"]
	if kind == "pgbench":
		return ["/usr/lib/postgresql/15/bin/pgbench", "-h", "127.0.0.1", "-p", "{port}",
			"-U", "postgres"] + spec["args"] + ["postgres"]
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
	out = run.text(spec["name"], "out")
	if spec["kind"] == "wrk":
		n = re.search(r"(\d+) requests in", out)
		bad = re.search(r"Socket errors.*|Non-2xx.*", out)
		if not n or bad:
			raise Fail("wrk: %s" % (bad.group(0) if bad else "no request count"))
		return "wrk: %s requests, no socket error, no non-2xx" % n.group(1)
	if spec["kind"] == "ab":
		n = re.search(r"Complete requests:\s+(\d+)", out)
		failed = re.search(r"Failed requests:\s+(\d+)", out)
		if not n or not failed or failed.group(1) != "0" or "Non-2xx" in out:
			raise Fail("ab: not every request succeeded:\n" + out[-1500:])
		return "ab: %s requests, 0 failed" % n.group(1)
	if spec["kind"] == "h2load":
		m = re.search(r"requests: \d+ total, \d+ started, (\d+) done, (\d+) succeeded, "
			      r"(\d+) failed, (\d+) errored", out)
		if not m or m.group(1) != m.group(2) or m.group(3) != "0" or m.group(4) != "0":
			raise Fail("h2load: not every request succeeded:\n" + out[-1500:])
		if "h2c" not in out:
			raise Fail("h2load did not speak HTTP/2 (h2c):\n" + out[-1500:])
		return "h2load: %s requests over h2c, all succeeded" % m.group(1)
	if spec["kind"] == "pgbench":
		n = re.search(r"number of transactions actually processed: (\d+)", out)
		failed = re.search(r"number of failed transactions: (\d+)", out)
		if not n or (failed and failed.group(1) != "0"):
			raise Fail("pgbench: not every transaction succeeded:\n" + out[-1500:])
		return "pgbench: %s transactions, a connection each" % n.group(1)
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
