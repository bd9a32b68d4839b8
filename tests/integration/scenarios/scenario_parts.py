"""What the scenario lists share: targets, servers, loads and expectations built the same way
(scenarios_healthy.py, scenarios_sick.py)."""


HTTP = "http://127.0.0.1:{port}/"
HTTPS = "https://127.0.0.1:{port}/"
# openssl s_client against {port}: a session saved, 20 resumptions of it, 2 x -reconnect (a full
# handshake, then 5 resumed); a request on each but the reconnects' first 5. {v}: the version.
SCLIENT = ("R='GET / HTTP/1.1\\r\\nHost: scenario\\r\\nConnection: close\\r\\n\\r\\n'; "
	   "S={{tmp}}/session.pem; O='openssl s_client -connect 127.0.0.1:{{port}} {v} -quiet'; "
	   "printf \"$R\" | $O -sess_out $S >/dev/null 2>&1 || exit 1; "
	   "for i in $(seq 20); do printf \"$R\" | $O -sess_in $S >/dev/null 2>&1 || exit 1; "
	   "done; for i in 1 2; do printf \"$R\" | $O -reconnect >/dev/null 2>&1 || exit 1; "
	   "done")
TCP = "tcp://127.0.0.1:{port}"
IDLE_SOURCES = ",".join("127.0.0.%d" % i for i in range(2, 18))  # 16 source addresses
MEMC_UDP_GET = b"\x00\x01\x00\x00\x00\x01\x00\x00get scenario\r\n"


def driver(*args, **kw):
	d = {"kind": "driver", "name": "load", "args": list(args)}
	d.update(kw)
	return d


def sclient_resumed(version, resumed):
	"""nginx with TLS VERSION ("1.2", "1.3") only under SCLIENT: 33 handshakes, RESUMED of them
	counted resumed, 23 requests = the access log."""
	return {"servers": [{"kind": "nginx", "tls": "TLSv" + version, "access_log": True}],
		"loads": [{"kind": "sh", "name": "load",
			   "script": SCLIENT.format(v="-tls" + version.replace(".", "_"))}],
		"access_log": {"tls": 33, "resumed": resumed}}


def refserver(*args, **kw):
	d = {"kind": "refserver", "args": list(args)}
	d.update(kw)
	return d


def cpu_hogs(n, seconds, cpu=0):
	"""N python loops spinning for SECONDS on CPU (the loads start them first)."""
	return [{"kind": "py", "name": "hog%d" % i, "args": ["spin", "--seconds", str(seconds)],
		 "cpu": cpu} for i in range(1, n + 1)]


def ldap_searches(*args, **kw):
	"""The driver's LDAP searches of one uid of slapd's 10,000 (kind "slapd"), ARGS its load."""
	return driver(TCP, "--proto", "ldap", "--base", "ou=people,dc=example,dc=com", "--filter",
		      "(uid=user{{{{rand:0-9999}}}})", "--timeout", "60s", *args, **kw)


def refserver_sleeping(proto, workers, service, **kw):
	"""refserver PROTO whose WORKERS workers sleep SERVICE a request (the CPU idle)."""
	return refserver("--proto", proto, "--workers", workers, "--service-time", service,
			 "--service-mode", "sleep", **kw)


def workers_named():
	"""The workers named (worker_saturation on the scenario's port) from the driver's mean."""
	return {"onset": {"how": "driver_mean", "min_s": 0.05},
		"expect": [{"kind": "worker_saturation", "evidence": {"port": "{port}"}}]}


def h2load(*args):
	"""h2load with ARGS as the load, against the scenario's port in h2c."""
	return {"kind": "h2load", "name": "load", "args": list(args) + ["http://127.0.0.1:{port}/"]}


def h2_nginx_logged(*args):
	"""nginx in h2c under h2load ARGS, its access log the truth of the request count."""
	return {"servers": [{"kind": "nginx", "http2": True, "access_log": True}],
		"loads": [h2load(*args)], "access_log": {}}


def postgres_children(*args):
	"""PostgreSQL 15 under --pid postmaster --children, pgbench ARGS the load."""
	return {"servers": [{"kind": "postgres"}], "observer": PID_CHILDREN,
		"loads": [{"kind": "pgbench", "name": "load", "args": list(args)}]}


def forking_on_go(kind, log, args, at, event):
	"""servers.py KIND ARGS (a forking server) under --pid --children, writing its events to
	{tmp}/LOG, that starts forking (EVENT) when the harness touches {tmp}/go AT s in."""
	return {"servers": [{"kind": "py", "args": [kind] + args + ["--log", "{tmp}/" + log,
								   "--wait-file", "{tmp}/go"]}],
		"actions": [{"at": at, "do": "touch", "file": "{tmp}/go", "event": event}]}


def logged_exit(kind, log, field, pid_field, line=None):
	"""The finding KIND naming the process whose event servers.py logged in {tmp}/LOG (its
	LINE-th line, default the first; the time in FIELD, the pid in PID_FIELD) as the onset."""
	onset = {"how": "logtime", "file": "{tmp}/" + log, "field": field, "pid_field": pid_field}
	if line is not None:
		onset["line"] = line
	return {"onset": onset, "expect": [{"kind": kind, "evidence": {"pid": "{onset_pid}"}}]}


def nginx_pipelined(conns, secs, **checks):
	"""nginx under the driver's HTTP/1.1 pipelining (-P 8), CONNS connections for SECS: the
	pipelining note with CHECKS."""
	return {"servers": [{"kind": "nginx"}],
		"loads": [driver(HTTP, "-P", "8", "-c", conns, "-d", secs)],
		"expect": pipelining(**checks)}


def beside_http_load(name, delay, args, log):
	"""refserver http under a 4 s keep-alive load, and beside it servers.py ARGS as load NAME
	(DELAY s in), writing its events to LOG: the onset is its first one."""
	return {"servers": [refserver("--proto", "http")],
		"loads": [driver(HTTP, "-c", "4", "-d", "4s"),
			  {"kind": "py", "name": name, "delay": delay, "args": args + ["--log", log]}],
		"onset": {"how": "logtime", "file": log}}


def pipelining(**checks):
	"""The pipelining note on the scenario's port, with CHECKS on it (range, estimate_of...)."""
	return [{"kind": "pipelining", "evidence": {"port": "{port}"}, **checks}]


def memcached_udp_shared(secs):
	"""memcached's 4 threads on one UDP socket, 'get' at 2,000/s for SECS: each datagram timed
	by the thread that read it, the count the server's replies exactly, no note."""
	return {"servers": [{"kind": "memcached", "args": ["-t", "4", "-U", "{port}"]}],
		"files": {"get_udp.bin": MEMC_UDP_GET},
		"loads": [driver("udp://127.0.0.1:{port}", "--payload", "{tmp}/get_udp.bin",
				 "--rate", "2000", "-c", "8", "-d", secs, "--timeout", "200ms")],
		"requests_match": "udp"}


def idle_sysctls():
	"""Listen queues long enough for 100,000 connections opened at up to 10,000/s."""
	return {"net.core.somaxconn": 65535, "net.ipv4.tcp_max_syn_backlog": 65535}


def idle_nginx(rlimit):
	"""nginx, 20 reuseport workers of RLIMIT fds each, holding idle keep-alive connections."""
	return {"kind": "nginx", "master": True, "workers": 20, "worker_rlimit_nofile": rlimit,
		"worker_connections": 19900, "keepalive_timeout": "300s", "backlog": 65535,
		"cpu": None}


def idle_driver(secs, rate, **kw):
	"""100,000 connections at RATE from IDLE_SOURCES, one request each, then held for SECS."""
	return driver(HTTP, "-c", "100000", "-d", secs, "--delay", "3600s", "--connect-rate", rate,
		      "--timeout", "30s", "--source-addr", IDLE_SOURCES, timeout=60, cpu=None, **kw)


def tw_reused(reuse, what):
	"""A client closing at 200/s for 5 s through 300 ports, TIME_WAIT reused (tcp_tw_reuse)."""
	return {"name": "healthy_tw_reuse_%d" % reuse, "group": "healthy", "what": what,
		"sysctls": {"net.ipv4.tcp_tw_reuse": reuse,
			    "net.ipv4.ip_local_port_range": "40000 40299"},
		"servers": [refserver("--proto", "tcp")],
		"loads": [driver(TCP, "--new-conn", "--rate", "200", "-c", "4", "-d", "5s")]}


def proxy_ports(name, what, observer):
	"""haproxy (mode tcp) in front of the refserver runs out of ports; OBSERVER watches it."""
	return {
		"name": name, "group": "sick", "what": what,
		"sysctls": {"net.ipv4.tcp_tw_reuse": 0,
			    "net.ipv4.ip_local_port_range": "40000 40299"},
		"servers": [refserver("--proto", "tcp"),
			    {"kind": "haproxy", "name": "proxy", "mode": "tcp"}],
		"observer": observer,
		"loads": [driver("tcp://127.0.0.1:{port1}", "--new-conn", "--rate", "300", "-c",
				 "4", "-d", "3s", "--source-addr", "127.0.0.2,127.0.0.3",
				 errors_ok=True, rc=[0, 1])],
		"onset": {"how": "logline", "file": "{tmp}/proxy/strace.log", "re": "EADDRNOTAVAIL",
			  "field": 1},
		"expect": [{"kind": "port_exhaustion", "evidence": {"dport": "{port}"},
			    "forecast": True}],
		"portfail_truth": {"strace": "{tmp}/proxy/strace.log", "pid": "{proxy_haproxy_pid}",
				   "comm": "haproxy"},
		"allow": ["time_wait"],
	}


def java_leak(name, what, observer, leak_args, **kw):
	"""The JDK's HttpServer (a JVM) in a namespace of 1,000 ephemeral ports; a python3 client
	(servers.py leak LEAK_ARGS) opens 900 connections to it first, then the driver opens a
	connection per request at 300/s for 3 s (2 s in); the server's access log is the truth of
	the request counts. OBSERVER watches it."""
	sc = {"name": name, "group": "sick" if "--keepalive" not in leak_args else "healthy",
	      "what": what,
	      "sysctls": {"net.ipv4.ip_local_port_range": "40000 40999"},
	      "servers": [{"kind": "java"}],
	      "observer": observer,
	      "loads": [{"kind": "py", "name": "leak",
			 "args": ["leak", "--port", "{port}", "--count", "900", "--seconds", "6",
				  "--log", "{tmp}/leak.log"] + leak_args},
			driver(HTTP, "--new-conn", "--rate", "300", "-c", "8", "-d", "3s",
			       delay=2.0, **kw)],
	      "access_log": {}}
	return sc


# true, beside the leak: the JVM, cold and on one CPU, answers the leaker's burst of 900
# requests late (requests queue behind its workers, its threads behind its compiler); the
# driver's closes leave TIME_WAIT
JAVA_BURST = ["time_wait", "worker_saturation", "cpu_saturation"]

# the leaking client named: by pid and name, its 900 connections, none of them read
LEAKER = {"holders.processes.0.pid": "{leak_pid}", "holders.processes.0.comm": "python3"}
LEAKER_RANGE = {"holders.processes.0.connections": [900, 900],
		"holders.processes.0.never_read": [900, 900]}

# a forking server observed by its parent and every child (forked before or after the start)
PID_CHILDREN = ["--pid", "{server_pid}", "--children"]
# ... and every request its children serve timed: as many as the driver's, exactly
CHILDREN_TIMED = {"observer": PID_CHILDREN, "requests_match": True, "requests_slack": 0}
# the forking scenarios' load: a new connection per request, 100/s for 3 s
FORK_LOAD = driver(HTTP, "--http-close", "--rate", "100", "-c", "4", "-d", "3s")
