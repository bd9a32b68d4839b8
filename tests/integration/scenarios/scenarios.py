"""The scenario matrix as data: server, load, expected findings (harness.py runs them).

Each scenario runs in its own network namespace ('sysctls' set there). Placeholders: {port} (a
random port), {tmp} (the scenario's temp dir), {NAME_pid} (a process the harness started, e.g.
{server_pid}), {server_worker_pid} (nginx's worker with master_process on).

- group: healthy (no warning/critical finding; exactly the notes in 'expect') or sick.
- servers: kind refserver | py (servers.py) | go | nginx | redis | memcached | node_cluster
  (cluster.js) | haproxy (under strace, in front of {port} on {port1}) | postgres | java
  (javaserver/HelloServer.java, the JDK's HttpServer; access log {tmp}/NAME/access.log); cpu 0
  by default.
- loads: kind driver | py | redis-benchmark | wrk | ab | h2load | pgbench; cpu 1 by default; 'delay' after the
  load phase starts; 'rc' exit codes accepted; 'errors_ok' (driver) when errors are the point.
- requests_match: the observer's TCP request count is the driver's, within 'requests_slack'
  (default: a request per connection and 1%); "udp": its UDP count, between the driver's
  answered requests (and late replies) and those plus the ones it gave up on.
- observer: its target arguments (default --port {port}); -i 0.5s, --ndjson and --json are added.
- expect: [{kind, evidence: {key: value} (key: a path into the evidence too, as
  holders.processes.0.pid), forecast: may come before the onset, range: {key:
  [lo, hi]} and estimate_of: a load whose JSON 'requests' the finding's estimated_requests
  matches within 'tolerance', absent: evidence keys it must not have (all on the summary's
  finding)}].
- exclusive: the scenario changes a host-wide limit (fs.file-max): it skips while other
  loadlens programs run on the host, whose unprivileged parts it would starve.
- allow: kinds that may also fire (a CLOSE_WAIT leak is an fd leak too).
- emulated: keys that replace the scenario's own under an emulated CPU (the kernel matrix; e.g.
  a slower sick server under a lighter load); there a sick scenario may also name
  the queue its load makes (cpu_saturation, worker_saturation).
- onset: how the harness measures, apart from the observer, when the sick condition starts:
  polled every 50 ms (log: a line in a file; tcp_state: N sockets in a state on a port;
  fds: open fds grown by N; netstat: a TcpExt counter grown by N), or read after the run
  (driver_errors / driver_mean: the start of the driver's first 0.1 s interval with errors, or
  with a mean latency >= min_s; logtime: a time a helper wrote; event: a harness action).
"""

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


def refserver(*args, **kw):
	d = {"kind": "refserver", "args": list(args)}
	d.update(kw)
	return d


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
# the forking scenarios' load: a new connection per request, 100/s for 3 s
FORK_LOAD = driver(HTTP, "--http-close", "--rate", "100", "-c", "4", "-d", "3s")

SCENARIOS = [
	# ---------------------------------------------------------------- healthy
	{"name": "healthy_keepalive_nginx", "group": "healthy",
	 "what": "nginx hello world, keep-alive, 16 connections for 4 s; their 16 closes at the "
		 "end are observed",
	 "servers": [{"kind": "nginx"}],
	 "loads": [driver(HTTP, "-c", "16", "-d", "4s")]},
	{"name": "healthy_keepalive_refserver", "group": "healthy",
	 "what": "refserver tcp echo, keep-alive, 16 connections for 3 s",
	 "servers": [refserver("--proto", "tcp")],
	 "loads": [driver(TCP, "-c", "16", "-d", "3s")]},
	{"name": "healthy_keepalive_python", "group": "healthy",
	 "what": "python3 ThreadingHTTPServer (HTTP/1.1 keep-alive), 8 connections for 3 s",
	 "servers": [{"kind": "py", "args": ["http", "--keepalive"]}],
	 "loads": [driver(HTTP, "-c", "8", "-d", "3s")]},
	{"name": "healthy_keepalive_go", "group": "healthy",
	 "what": "Go net/http server (stdlib, built offline), keep-alive, 16 connections for 3 s, "
		 "observed by --pid only; the observer's request count must be the driver's",
	 "servers": [{"kind": "go"}],
	 "observer": ["--pid", "{server_pid}"],
	 "requests_match": True,
	 "loads": [driver(HTTP, "-c", "16", "-d", "3s")]},
	{"name": "healthy_keepalive_wrk", "group": "healthy",
	 "what": "nginx driven by wrk (a peer load tool), 1 thread, 32 keep-alive connections for "
		 "3 s",
	 "servers": [{"kind": "nginx"}],
	 "loads": [{"kind": "wrk", "name": "load",
		    "args": ["-t1", "-c32", "-d3s", "http://127.0.0.1:{port}/"]}]},
	{"name": "healthy_close_ab", "group": "healthy",
	 "what": "nginx driven by ab: 3,000 HTTP/1.0 requests, a connection each, 8 at a time, as "
		 "fast as they go (the server closes first)",
	 "servers": [{"kind": "nginx"}],
	 "loads": [{"kind": "ab", "name": "load",
		    "args": ["-q", "-n", "3000", "-c", "8", "http://127.0.0.1:{port}/"]}]},
	{"name": "healthy_close_nginx", "group": "healthy",
	 "what": "nginx, Connection: close at 500/s for 4 s (the server closes first: its "
		 "TIME_WAIT costs the client no ports)",
	 "servers": [{"kind": "nginx"}],
	 "loads": [driver(HTTP, "--http-close", "--rate", "500", "-c", "8", "-d", "4s")]},
	{"name": "healthy_close_python", "group": "healthy",
	 "what": "python3 ThreadingHTTPServer, HTTP/1.0 (closes each connection), 200/s for 4 s",
	 "servers": [{"kind": "py", "args": ["http"]}],
	 "loads": [driver(HTTP, "--http-close", "--rate", "200", "-c", "8", "-d", "4s")]},
	{"name": "healthy_short_run", "group": "healthy",
	 "what": "refserver http, a 500-request keep-alive run over 16 connections (well under a "
		 "second), then their closes",
	 "servers": [refserver("--proto", "http")],
	 "loads": [driver(HTTP, "-c", "16", "-n", "500")]},
	{"name": "healthy_short_burst", "group": "healthy",
	 "what": "refserver tcp, 500 new connections as fast as 4 slots go (a burst of client-side "
		 "TIME_WAIT, 2% of the port range)",
	 "servers": [refserver("--proto", "tcp")],
	 "loads": [driver(TCP, "--new-conn", "-c", "4", "-n", "500")]},
	{"name": "healthy_server_closes", "group": "healthy",
	 "what": "refserver http, Connection: close at 300/s for 4 s: the server closes first, "
		 "1,200 TIME_WAIT on the server side",
	 "servers": [refserver("--proto", "http")],
	 "loads": [driver(HTTP, "--http-close", "--rate", "300", "-c", "8", "-d", "4s")]},
	{"name": "healthy_client_closes", "group": "healthy",
	 "what": "refserver tcp, a new connection per request at 300/s for 4 s: the client "
		 "closes first, 1,200 client-side TIME_WAIT of 28,232 ports (4%)",
	 "servers": [refserver("--proto", "tcp")],
	 "loads": [driver(TCP, "--new-conn", "--rate", "300", "-c", "8", "-d", "4s")]},
	{"name": "healthy_tw_reuse_0", "group": "healthy",
	 "what": "tcp_tw_reuse=0, client closes at 100/s for 4 s: 400 TIME_WAIT, steady state "
		 "6,000 of 28,232 ports (21%) after 60 s",
	 "sysctls": {"net.ipv4.tcp_tw_reuse": 0},
	 "servers": [refserver("--proto", "tcp")],
	 "loads": [driver(TCP, "--new-conn", "--rate", "100", "-c", "4", "-d", "4s")]},
	tw_reused(1, "tcp_tw_reuse=1, port range of 300, client closes at 200/s for 5 s: TIME_WAIT "
		  "fills the range and is reused after 1 s, no connect fails"),
	tw_reused(2, "tcp_tw_reuse=2 (loopback only; the default), port range of 300, client closes "
		  "at 200/s for 5 s: as with 1"),
	{"name": "healthy_redis_pipelined", "group": "healthy",
	 "what": "redis-server, a client pipelining 16 SETs a batch, one write() per command "
		 "(as clients that flush each command do), 4 connections for 3 s",
	 "servers": [{"kind": "redis"}],
	 "loads": [{"kind": "py", "name": "load",
		    "args": ["redispipe", "--port", "{port}", "--depth", "16", "--children", "4",
			     "--seconds", "3", "--count", "400000"]}],
	 "expect": pipelining()},
	{"name": "healthy_redis_batched", "group": "healthy",
	 "what": "redis-server, redis-benchmark -P 16: each batch of 16 commands in one write(), "
		 "one arrival, one read and one write per batch; the bytes of sampled reads hold "
		 "16 commands: the note says requests are reads, 16 per read (600,000 commands)",
	 "servers": [{"kind": "redis"}],
	 "loads": [{"kind": "redis-benchmark", "name": "load",
		    "args": ["-P", "16", "-c", "4", "-n", "300000", "-t", "set,get", "-q"]}],
	 "expect": pipelining(range={"requests_per_read": [14.4, 16.0],
				    "estimated_requests": [540000, 612000]})},
	{"name": "healthy_http_pipelined", "group": "healthy",
	 "what": "nginx, the driver's HTTP/1.1 pipelining (-P 8, 4 connections, 3 s): reads hold "
		 "several requests; the note's estimate of requests served matches the driver's "
		 "count within 15%",
	 "servers": [{"kind": "nginx"}],
	 "loads": [driver(HTTP, "-P", "8", "-c", "4", "-d", "3s")],
	 "expect": pipelining(estimate_of="load", tolerance=0.15)},
	# HTTP/2: each stream one request (bpf/req_h2.bpf.h); the access log is the truth
	{"name": "healthy_h2_nginx", "group": "healthy",
	 "what": "nginx over HTTP/2 (h2c), h2load with one stream in flight per connection: "
		 "requests = nginx's access log exactly (the connection's preface and SETTINGS are "
		 "no request); binary frames, never counted as lines: no note",
	 "servers": [{"kind": "nginx", "http2": True, "access_log": True}],
	 "loads": [{"kind": "h2load", "name": "load",
		    "args": ["-c", "4", "-m", "1", "-n", "20000", "http://127.0.0.1:{port}/"]}],
	 "access_log": {}},
	{"name": "healthy_h2_multiplexed", "group": "healthy",
	 "what": "nginx over HTTP/2 (h2c), h2load with 16 streams in flight per connection: each "
		 "stream is one request, timed apart: requests = nginx's access log exactly "
		 "(60,000; counted by turns, about 4,000), and reads that take several streams are "
		 "no pipelining: no note",
	 "servers": [{"kind": "nginx", "http2": True, "access_log": True}],
	 "loads": [{"kind": "h2load", "name": "load",
		    "args": ["-c", "4", "-m", "16", "-n", "60000", "http://127.0.0.1:{port}/"]}],
	 "access_log": {}},
	{"name": "healthy_memcached_tcp", "group": "healthy",
	 "what": "memcached (4 threads) over TCP, 'get' keep-alive, 8 connections for 3 s",
	 "servers": [{"kind": "memcached", "args": ["-t", "4", "-U", "0"]}],
	 "files": {"get.bin": b"get scenario\r\n"},
	 "loads": [driver(TCP, "--payload", "{tmp}/get.bin", "--response", "delim:END\\r\\n",
			  "-c", "8", "-d", "3s")]},
	{"name": "healthy_memcached_udp", "group": "healthy",
	 "what": "memcached's 4 threads reading one UDP socket, 'get' at 2,000/s for 3 s: "
		 "requests = the server's replies exactly, no note",
	 **memcached_udp_shared("3s")},

	{"name": "healthy_fork_per_connection", "group": "healthy",
	 "what": "a python3 forking server (the parent accepts, a child per connection answers "
		 "and exits 0, as PostgreSQL's backends), --pid parent --children --max-procs 16, "
		 "100 new connections/s for 3 s: 300 children come and go; no exit is a finding, "
		 "the cap counts live processes, every request is timed",
	 "servers": [{"kind": "py", "args": ["forkper"]}],
	 "observer": PID_CHILDREN,
	 "max_procs": 16,
	 "requests_match": True, "requests_slack": 0,
	 "loads": [FORK_LOAD]},
	{"name": "healthy_fork_load_stops", "group": "healthy",
	 "what": "the forking server of healthy_fork_per_connection under 40 keep-alive "
		 "connections for 2 s (a child each), then the load stops at once: the 40 children "
		 "end with status 0 in one interval, as many connections close; no spike of exits",
	 "servers": [{"kind": "py", "args": ["forkper"]}],
	 "observer": PID_CHILDREN,
	 "requests_match": True, "requests_slack": 0,
	 "loads": [driver(HTTP, "--rate", "400", "-c", "40", "-d", "2s")]},
	{"name": "healthy_prefork_existing", "group": "healthy",
	 "what": "a python3 pre-forking server whose 4 children were forked before the observer "
		 "started, under --pid parent --children: the children found at the start are "
		 "targets, every request they serve is timed",
	 "servers": [{"kind": "py", "args": ["fork", "--children", "4", "--gap", "0"]}],
	 "observer": PID_CHILDREN,
	 "requests_match": True, "requests_slack": 0,
	 "loads": [driver(HTTP, "--http-close", "--rate", "200", "-c", "4", "-d", "3s")]},
	{"name": "healthy_postgres_pgbench_C", "group": "healthy",
	 "what": "PostgreSQL 15 under pgbench -C (a new connection, so a new backend, per "
		 "transaction; select-only), 4 clients for 3 s, --pid postmaster --children "
		 "--max-procs 16: hundreds of backends come and go; none is a finding",
	 "servers": [{"kind": "postgres"}],
	 "observer": PID_CHILDREN,
	 "max_procs": 16,
	 "loads": [{"kind": "pgbench", "name": "load",
		    "args": ["-C", "-S", "-c", "4", "-j", "1", "-T", "3"]}]},
	{"name": "healthy_ephemeral_port_server", "group": "healthy",
	 "what": "refserver http listening on a port inside the namespace's ephemeral range "
		 "(20000-30999), keep-alive, 8 connections for 3 s, watched with --pid only: its "
		 "accepted sockets are a server's (timed, as many requests as the driver's), not "
		 "client connections",
	 "sysctls": {"net.ipv4.ip_local_port_range": "20000 30999"},
	 "servers": [refserver("--proto", "http")],
	 "observer": ["--pid", "{server_pid}"],
	 "requests_match": True, "server_sockets_only": True,
	 "loads": [driver(HTTP, "-c", "8", "-d", "3s")]},
	{"name": "healthy_node_cluster", "group": "healthy",
	 "what": "a Node.js cluster (primary + 2 workers, forked before the observer started; "
		 "the primary accepts and hands each connection to a worker), keep-alive, 8 "
		 "connections at 1,000 requests/s for 3 s, under --pid primary --children: the "
		 "workers' requests are timed, as many as the driver's (a closed loop as fast as it "
		 "goes queued requests 7.8 ms behind the workers on a busy CI host: worker_saturation, "
		 "true of that load)",
	 "servers": [{"kind": "node_cluster", "workers": 2}],
	 "observer": PID_CHILDREN,
	 "requests_match": True, "requests_slack": 0,
	 "loads": [driver(HTTP, "--rate", "1000", "-c", "8", "-d", "3s")]},

	{"name": "healthy_connection_ramp", "group": "healthy",
	 "what": "refserver tcp with RLIMIT_NOFILE 1000; a client opens 750 connections over "
		 "1.5 s and holds them for 3.5 s more, closing one and opening another every "
		 "0.1 s: the fds stop at 75% of the limit, no forecast (a ramp that stopped is "
		 "no trend)",
	 "servers": [refserver("--proto", "tcp", nofile=1000)],
	 "loads": [{"kind": "py", "name": "load",
		    "args": ["ramp", "--port", "{port}", "--count", "750", "--ramp", "1.5",
			     "--every", "0.1", "--seconds", "5"]}]},

	{"name": "healthy_proxy_keepalive", "group": "healthy",
	 "what": "haproxy in front of refserver (haproxy keeps its backend connections alive), "
		 "tcp_tw_reuse 0 and 300 ephemeral ports, 400 requests/s for 3 s: no port "
		 "pressure, nothing to say",
	 "sysctls": {"net.ipv4.tcp_tw_reuse": 0, "net.ipv4.ip_local_port_range": "40000 40299"},
	 "servers": [refserver("--proto", "http"),
		     {"kind": "haproxy", "name": "proxy", "mode": "http"}],
	 "observer": ["--port", "{port}"],
	 "loads": [driver("http://127.0.0.1:{port1}/", "--rate", "400", "-c", "4", "-d", "3s")]},

	{"name": "healthy_cluster_primary_note", "group": "healthy",
	 "what": "the Node.js cluster of healthy_node_cluster under --pid of the primary alone "
		 "(no --children): it accepts every connection and serves none; a note says so and "
		 "names its children, the workers",
	 "servers": [{"kind": "node_cluster", "workers": 2}],
	 "observer": ["--pid", "{server_pid}"],
	 "loads": [driver(HTTP, "--http-close", "--rate", "200", "-c", "4", "-d", "3s")],
	 "expect": [{"kind": "served_elsewhere", "text_has": ["the targets' children: "]}]},

	# TLS: the handshake is no request; nginx's access log is the ground truth
	{"name": "healthy_tls_keepalive", "group": "healthy",
	 "what": "nginx terminating TLS 1.2/1.3 (self-signed P-256 certificate), the driver's https "
		 "(libcurl), 8 keep-alive connections, 8,000 requests: requests = nginx's access "
		 "log exactly, one handshake timed per connection, none counted as a request",
	 "servers": [{"kind": "nginx", "tls": "TLSv1.2 TLSv1.3", "access_log": True}],
	 "loads": [driver(HTTPS, "-k", "-c", "8", "-n", "8000")],
	 "access_log": {"tls": "load"}},
	{"name": "healthy_tls_close_proxy", "group": "healthy",
	 "what": "nginx terminating TLS 1.3 in front of refserver (20 ms a request), Connection: "
		 "close (a handshake per request), 4 at a time, 300 requests: requests = the access "
		 "log, 300 handshakes, mean service time within 2% of nginx's $request_time; "
		 "TLS records read together are no pipelining",
	 "servers": [refserver("--proto", "http", "--workers", "4", "--service-time", "20ms",
			       "--service-mode", "sleep", name="backend", listen="127.0.0.1:{port2}"),
		     {"kind": "nginx", "tls": "TLSv1.3", "access_log": True, "proxy": "{port2}"}],
	 "loads": [driver(HTTPS, "-k", "--http-close", "-c", "4", "-n", "300")],
	 "access_log": {"tls": "load", "service": 0.02}},
	{"name": "healthy_tls12_resumed", "group": "healthy",
	 "what": "nginx with TLS 1.2 only; openssl s_client: a full handshake saving its session "
		 "(-sess_out), 20 resuming it (-sess_in), 2 x -reconnect (a full handshake and 5 "
		 "resumed each): 33 handshakes, 30 resumed, 23 requests = the access log",
	 "servers": [{"kind": "nginx", "tls": "TLSv1.2", "access_log": True}],
	 "loads": [{"kind": "sh", "name": "load", "script": SCLIENT.format(v="-tls1_2")}],
	 "access_log": {"tls": 33, "resumed": 30}},
	{"name": "healthy_tls13_resumed", "group": "healthy",
	 "what": "the same with TLS 1.3 only (resumption by session ticket, encrypted: not "
		 "counted apart): 33 handshakes, 23 requests = the access log",
	 "servers": [{"kind": "nginx", "tls": "TLSv1.3", "access_log": True}],
	 "loads": [{"kind": "sh", "name": "load", "script": SCLIENT.format(v="-tls1_3")}],
	 "access_log": {"tls": 33, "resumed": 0}},
	{"name": "healthy_request_with_close", "group": "healthy",
	 "what": "nginx, 600 HTTP/1.0 requests each written with the client's FIN right after it "
		 "(as pgbench -C's Terminate): the server reads request and close together, "
		 "which is no pipelining; requests = the access log",
	 "servers": [{"kind": "nginx", "access_log": True}],
	 "loads": [{"kind": "py", "name": "load",
		    "args": ["closewrite", "--port", "{port}", "--children", "4", "--count",
			     "600"]}],
	 "access_log": {}},
	{"name": "healthy_pipelined_burst", "group": "healthy",
	 "what": "nginx, a 60 ms burst of HTTP/1.1 pipelining (the driver's -P 8, 2 connections): "
		 "the payload sampler takes one read per CPU each 8 ms, about 7 here, fewer than "
		 "the 10 a long run needs: the note all the same, every run",
	 "servers": [{"kind": "nginx"}],
	 "loads": [driver(HTTP, "-P", "8", "-c", "2", "-d", "60ms")],
	 "expect": pipelining(range={"requests_per_read": [4.0, 8.0], "sampled_reads": [3, 12]})},
	{"name": "healthy_redis_burst_interval0", "group": "healthy",
	 "what": "redis-server, a pipelined burst (redis-benchmark -P 16, 30,000 SETs on one "
		 "connection) with the observer at --interval 0 (the agent's mode, a one-shot run): "
		 "the note is decided on the final read (it never was)",
	 "interval": 0,
	 "servers": [{"kind": "redis"}],
	 "loads": [{"kind": "redis-benchmark", "name": "load",
		    "args": ["-P", "16", "-c", "1", "-n", "30000", "-t", "set", "-q"]}],
	 "expect": pipelining(range={"requests_per_read": [14.0, 16.0]})},
	{"name": "healthy_memcached_udp_interval0", "group": "healthy",
	 "what": "memcached's 4 threads reading one UDP socket (2,000/s for 2 s) with the observer "
		 "at --interval 0: counted on the final read, exactly, no note",
	 "interval": 0,
	 **memcached_udp_shared("2s")},

	{"name": "healthy_no_listener_note", "group": "healthy",
	 "what": "nginx serves in the scenario's namespace, the observer runs in another one "
		 "with --port: nothing listens on that port where it looks",
	 "servers": [{"kind": "nginx"}],
	 "observer_outside": True,
	 "loads": [driver(HTTP, "-c", "4", "-d", "3s")],
	 "expect": [{"kind": "no_listener", "evidence": {"port": "{port}"}}]},

	java_leak("healthy_java_clients",
		  "the JDK's HttpServer (a JVM) with 1,000 ephemeral ports: a python3 client makes "
		  "900 requests, a connection each, reading every answer and closing (its TIME_WAIT, "
		  "which tcp_tw_reuse 2 lets a connect() take back on loopback, holds no port), then "
		  "the driver opens a connection per request at 300/s for 3 s: nothing wrong, and "
		  "the requests equal the server's access log",
		  ["--port", "{port}"], ["--keepalive"]),

	{"name": "healthy_idle_100k", "group": "healthy",
	 "what": "100,000 idle keep-alive connections (one request each, then held) opened at "
		 "5,000/s by one driver command (it runs 6 processes of <= 20,000 fds) from 16 "
		 "source addresses, against nginx with 20 reuseport workers (<= 5,000 each, 25% of "
		 "their fds): 200,000 sockets, nothing wrong",
	 "sysctls": idle_sysctls(),
	 "servers": [idle_nginx(20000)],
	 "loads": [idle_driver("26s", "5k")]},

	# ---------------------------------------------------------------- sick
	{"name": "sick_port_exhaustion", "group": "sick",
	 "what": "netns with tcp_tw_reuse=0 and 200 ephemeral ports; the client closes first at "
		 "400/s: its TIME_WAIT holds every port, connect() fails with EADDRNOTAVAIL",
	 "sysctls": {"net.ipv4.tcp_tw_reuse": 0, "net.ipv4.ip_local_port_range": "40000 40199"},
	 "servers": [refserver("--proto", "tcp")],
	 "loads": [driver(TCP, "--new-conn", "--rate", "400", "-c", "8", "-d", "4s",
			  errors_ok=True)],
	 "onset": {"how": "driver_errors"},
	 "expect": [{"kind": "port_exhaustion", "evidence": {"dport": "{port}"},
		     "forecast": True}],
	 "portfail_truth": {"load": "load", "comm": "loadlens-driver"},
	 "allow": ["time_wait"]},
	{"name": "sick_port_exhaustion_ipv6", "group": "sick",
	 "what": "the same over IPv6 ([::1]): the finding names the group as ss prints it, and "
		 "every NDJSON interval record spells it the same way",
	 "sysctls": {"net.ipv4.tcp_tw_reuse": 0, "net.ipv4.ip_local_port_range": "40000 40199"},
	 "servers": [refserver("--proto", "tcp", listen="[::1]:{port}")],
	 "loads": [driver("tcp://[::1]:{port}", "--new-conn", "--rate", "400", "-c", "8", "-d",
			  "4s", errors_ok=True)],
	 "onset": {"how": "driver_errors"},
	 "expect": [{"kind": "port_exhaustion",
		     "evidence": {"dport": "{port}", "group": "[::1] -> [::1]:{port}"},
		     "forecast": True}],
	 "one_spelling": True,
	 "allow": ["time_wait"]},
	{"name": "sick_emfile_nginx", "group": "sick",
	 "what": "nginx (master + 1 worker) with worker_rlimit_nofile 64 and 100 keep-alive "
		 "clients: the worker's accept4() fails with EMFILE",
	 "servers": [{"kind": "nginx", "master": True, "worker_rlimit_nofile": 64,
		      "worker_connections": 512}],
	 "loads": [driver(HTTP, "-c", "100", "-d", "4s", "--timeout", "1s", errors_ok=True,
			  rc=[0, 1])],
	 "onset": {"how": "log", "file": "{tmp}/server/error.log", "re": "Too many open files"},
	 "expect": [{"kind": "fd_exhaustion", "evidence": {"pid": "{server_worker_pid}"},
		     "forecast": True}],
	 "allow": ["worker_saturation"]},  # true: 100 closed-loop clients on one worker
	{"name": "sick_emfile_idle_100k", "group": "sick",
	 "what": "the same 100,000 idle connections against nginx whose 20 workers may hold 4,000 "
		 "fds each (worker_rlimit_nofile): accept4() fails with EMFILE once ~80,000 are in "
		 "(nginx then closes idle connections to take new ones; the driver, its connections "
		 "idle, sees no error)",
	 "sysctls": idle_sysctls(),
	 "servers": [idle_nginx(4000)],
	 "loads": [idle_driver("20s", "10k", errors_ok=True, rc=[0, 1])],
	 "onset": {"how": "log", "file": "{tmp}/server/error.log", "re": "Too many open files"},
	 "expect": [{"kind": "fd_exhaustion", "forecast": True}],
	 "allow": ["listen_overflow", "worker_saturation"]},
	{"name": "sick_fd_leak", "group": "sick",
	 "what": "refserver http --leak-fds 1 (one /dev/null per connection, never closed), 20 "
		 "new connections/s, RLIMIT_NOFILE 65536 or the hard limit (no exhaustion for "
		 "minutes)",
	 "servers": [refserver("--proto", "http", "--leak-fds", "1", nofile=65536)],
	 "loads": [driver(HTTP, "--http-close", "--rate", "20", "-c", "2", "-d", "5s")],
	 "onset": {"how": "fds", "min_growth": 20},
	 "expect": [{"kind": "fd_leak", "evidence": {"pid": "{server_pid}"}}],
	 "allow": ["fd_exhaustion"]},
	{"name": "sick_close_wait_leak", "group": "sick",
	 "what": "refserver tcp --no-close: the client closes after each request (50/s), the "
		 "server never does; its sockets stay in CLOSE_WAIT",
	 "servers": [refserver("--proto", "tcp", "--no-close")],
	 "loads": [driver(TCP, "--new-conn", "--rate", "50", "-c", "2", "-d", "4s")],
	 "onset": {"how": "tcp_state", "state": "CLOSE_WAIT", "port": "{port}", "min": 10},
	 "expect": [{"kind": "close_wait_leak",
		     "evidence": {"port": "{port}", "pid": "{server_pid}"}}],
	 "allow": ["fin_wait2_orphans", "fd_leak"]},
	{"name": "sick_fin_wait2_orphans", "group": "sick",
	 "what": "a python3 HTTP server that never closes; the client closes after each request "
		 "(50/s): its closed sockets wait in FIN_WAIT2 for a FIN that never comes",
	 "servers": [{"kind": "py", "args": ["noclose"]}],
	 "loads": [driver(HTTP, "--new-conn", "--rate", "50", "-c", "2", "-d", "4s")],
	 "onset": {"how": "tcp_state", "state": "FIN_WAIT2", "port": "{port}", "side": "rport",
		   "min": 10},
	 "expect": [{"kind": "fin_wait2_orphans", "evidence": {"port": "{port}"}}],
	 "allow": ["close_wait_leak", "fd_leak"]},
	{"name": "sick_listen_overflow", "group": "sick",
	 "what": "a python3 server with listen(2) that accepts one connection every 0.2 s; 16 "
		 "clients connect at 50/s: the accept queue overflows, SYNs are dropped",
	 "servers": [{"kind": "py", "args": ["slowaccept", "--backlog", "2", "--every", "0.2"]}],
	 "loads": [driver(HTTP, "--http-close", "--rate", "50", "-c", "16", "-d", "4s",
			  "--timeout", "2s", errors_ok=True, rc=[0, 1])],
	 "onset": {"how": "netstat", "key": "ListenOverflows", "min": 1},
	 "expect": [{"kind": "listen_overflow", "evidence": {"port": "{port}"}}]},
	{"name": "sick_worker_saturation", "group": "sick",
	 "what": "refserver tcp, 1 worker sleeping 5 ms per request (capacity ~195/s), open loop "
		 "at 300/s: requests queue in the socket far longer than they are served",
	 "servers": [refserver("--proto", "tcp", "--workers", "1", "--service-time", "5ms",
			       "--service-mode", "sleep")],
	 "observer": ["--port", "{port}", "--runq"],
	 "loads": [driver(TCP, "--rate", "300", "-c", "64", "-d", "4s")],
	 # the kernel matrix's emulated CPU: 20 ms a request (capacity ~49/s) at 75/s, the same
	 # overrun at a quarter of the load; 16 connections (at most 320 ms queued in the server:
	 # 64 left a 1.3 s backlog whose connections sat in CLOSE_WAIT after the driver closed them),
	 # the onset 4x later, as the service and the finding's 10x threshold
	 "emulated": {
		 "servers": [refserver("--proto", "tcp", "--workers", "1", "--service-time", "20ms",
				       "--service-mode", "sleep")],
		 "loads": [driver(TCP, "--rate", "75", "-c", "16", "-d", "4s")],
		 "onset": {"how": "driver_mean", "min_s": 0.2}},
	 "onset": {"how": "driver_mean", "min_s": 0.05},
	 "expect": [{"kind": "worker_saturation", "evidence": {"port": "{port}"}}]},
	{"name": "sick_workers_h2_inside", "group": "sick",
	 "what": "refserver over HTTP/2 (h2c), one worker sleeping 5 ms a stream (about 190/s): one "
		 "stream in flight for 1.5 s, then a second connection with 40: the server reads "
		 "the 40 at once and serves them one by one, so they wait inside it, in their "
		 "service time (no socket queue to see); 40x as many in service, the same rate",
	 "servers": [refserver("--proto", "h2", "--workers", "1", "--service-time", "5ms",
			       "--service-mode", "sleep")],
	 "loads": [driver(HTTP, "--http2", "-c", "1", "--streams", "1", "-d", "4s"),
		   driver(HTTP, "--http2", "-c", "1", "--streams", "40", "-d", "2.5s", name="load2",
			  delay=1.5)],
	 "onset": {"how": "driver_mean", "load": "load2", "min_s": 0.05},
	 "expect": [{"kind": "worker_saturation",
		     "evidence": {"port": "{port}", "source": "inside"}}]},
	{"name": "healthy_h2_more_streams", "group": "healthy",
	 "what": "refserver over HTTP/2 (h2c), 4 workers sleeping 5 ms a stream: one stream in "
		 "flight for 1.5 s, then 3 more connections with one each: 4x as many in service "
		 "and served at once, the rate follows: nothing waits inside",
	 "servers": [refserver("--proto", "h2", "--workers", "4", "--service-time", "5ms",
			       "--service-mode", "sleep")],
	 "loads": [driver(HTTP, "--http2", "-c", "1", "--streams", "1", "-d", "4s"),
		   driver(HTTP, "--http2", "-c", "3", "--streams", "1", "-d", "2.5s", name="load2",
			  delay=1.5)]},
	{"name": "sick_worker_saturation_h2", "group": "sick",
	 "what": "nginx over HTTP/2 (h2c), its one worker under h2load's 100 connections with 10 "
		 "streams in flight each (closed loop) for 5 s: each stream is timed apart; the "
		 "streams wait in the sockets far longer than the worker takes to answer them",
	 "servers": [{"kind": "nginx", "http2": True}],
	 "loads": [{"kind": "h2load", "name": "load",
		    "args": ["-c", "100", "-m", "10", "-D", "5", "http://127.0.0.1:{port}/"]}],
	 "onset": {"how": "event", "event": "load_start"},
	 "expect": [{"kind": "worker_saturation", "evidence": {"port": "{port}"}}]},
	{"name": "sick_workers_pool_2", "group": "sick",
	 "what": "refserver tcp, a pool of 2 workers sleeping 5 ms per request (capacity ~390/s) "
		 "with the CPU idle, open loop at 600/s, no --runq: the workers, not the CPU (the "
		 "targets' threads barely wait for one)",
	 "servers": [refserver("--proto", "tcp", "--workers", "2", "--service-time", "5ms",
			       "--service-mode", "sleep")],
	 "loads": [driver(TCP, "--rate", "600", "-c", "64", "-d", "4s")],
	 "onset": {"how": "driver_mean", "min_s": 0.05},
	 "expect": [{"kind": "worker_saturation", "evidence": {"port": "{port}"}}]},
	{"name": "sick_cpu_postgres_pinned", "group": "sick",
	 "what": "PostgreSQL 15 (a process per connection) pinned to CPU 0, pgbench -S with 40 "
		 "clients, --pid postmaster --children, no --runq: 40 backends wait for one CPU; "
		 "the targets' schedstat names the CPU, never 'add workers'",
	 "servers": [{"kind": "postgres"}],
	 "observer": PID_CHILDREN,
	 "loads": [{"kind": "pgbench", "name": "load",
		    "args": ["-S", "-c", "40", "-j", "2", "-T", "4"]}],
	 # the 40 clients connected: pgbench forks 40 backends on the one CPU first (0.1-0.5 s
	 # after its start), and only then do 40 of them wait for it
	 "onset": {"how": "tcp_state", "state": "ESTABLISHED", "port": "{port}", "min": 40},
	 "expect": [{"kind": "cpu_saturation", "evidence": {"source": "schedstat", "cpus": "1"}}]},
	{"name": "sick_cpu_saturation", "group": "sick", "needs_cpus": 2,
	 "what": "refserver tcp, 2 workers spinning 4 ms per request, pinned to CPU 0 with four "
		 "CPU hogs; 100 req/s (each worker needs 20% of the CPU, its fair share is a "
		 "sixth); --runq: the serving threads wait for the CPU",
	 "servers": [refserver("--proto", "tcp", "--workers", "2", "--service-time", "4ms")],
	 "observer": ["--port", "{port}", "--runq"],
	 "loads": [{"kind": "py", "name": "hog1", "args": ["spin", "--seconds", "6"], "cpu": 0},
		   {"kind": "py", "name": "hog2", "args": ["spin", "--seconds", "6"], "cpu": 0},
		   {"kind": "py", "name": "hog3", "args": ["spin", "--seconds", "6"], "cpu": 0},
		   {"kind": "py", "name": "hog4", "args": ["spin", "--seconds", "6"], "cpu": 0},
		   driver(TCP, "--rate", "100", "-c", "16", "-d", "4s", delay=0.3)],
	 "onset": {"how": "event", "event": "load_start"},  # the driver's start: first wake-ups
	 "expect": [{"kind": "cpu_saturation"}]},
	{"name": "sick_system_fds", "group": "sick", "exclusive": True,
	 "what": "fs.file-max lowered to file-nr + 3,000 for ~3 s; an unprivileged process "
		 "(nobody, so the limit applies to it) opens files until ENFILE, then frees 150 "
		 "(file-nr stays near 95% of the limit)",
	 **beside_http_load("enfile", 1.0, ["enfile", "--margin", "3000", "--release", "150",
					  "--hold", "2.5"], "{tmp}/enfile.log"),
	 "expect": [{"kind": "system_fds"}]},
	{"name": "sick_process_cap", "group": "sick",
	 "what": "a python3 pre-forking HTTP server forks 20 children 50 ms apart under "
		 "--pid --children: the 17th process (16th child) is past the watched-process cap",
	 "servers": [{"kind": "py", "args": ["fork", "--children", "20", "--gap", "0.05",
					     "--log", "{tmp}/fork.log",
					     "--wait-file", "{tmp}/go"]}],
	 "observer": ["--pid", "{server_pid}", "--children", "--port", "{port}"],
	 "max_procs": 16,
	 "loads": [FORK_LOAD],
	 "actions": [{"at": 0.0, "do": "touch", "file": "{tmp}/go", "event": "forks"}],
	 "onset": {"how": "logtime", "file": "{tmp}/fork.log", "line": 15, "field": 2,
		   "pid_field": 1},
	 "expect": [{"kind": "process_cap", "evidence": {"pid": "{onset_pid}"}}]},
	{"name": "sick_fork_child_crash", "group": "sick",
	 "what": "the forking server of healthy_fork_per_connection, whose every 75th child "
		 "crashes (SIGSEGV) after answering, 100 new connections/s for 3 s: the crashes "
		 "are findings, the 296 children leaving with their clients are not",
	 "servers": [{"kind": "py", "args": ["forkper", "--crash-every", "75",
					     "--log", "{tmp}/crash.log"]}],
	 "observer": PID_CHILDREN,
	 "max_procs": 16,
	 "loads": [FORK_LOAD],
	 "onset": {"how": "logtime", "file": "{tmp}/crash.log", "field": 1, "pid_field": 0},
	 "expect": [{"kind": "target_exit", "evidence": {"pid": "{onset_pid}"}}]},
	{"name": "sick_fork_respawn_loop", "group": "sick",
	 "what": "a python3 pre-forking server (master + 4 workers) under --pid master "
		 "--children and a light load (10 new connections/s for 3 s); 1 s in, each worker "
		 "exits 0 20 ms after it starts and the master forks another at once: about 150 "
		 "status-0 exits a second while 10 connections close",
	 "servers": [{"kind": "py", "args": ["respawn", "--children", "4", "--every", "0.02",
					     "--log", "{tmp}/respawn.log",
					     "--wait-file", "{tmp}/go"]}],
	 "observer": PID_CHILDREN,
	 "loads": [driver(HTTP, "--http-close", "--rate", "10", "-c", "2", "-d", "3s")],
	 "actions": [{"at": 1.0, "do": "touch", "file": "{tmp}/go", "event": "respawn"}],
	 # the rule's condition needs 10 exits in an interval: the onset is the 10th
	 "onset": {"how": "logtime", "file": "{tmp}/respawn.log", "line": 9, "field": 1,
		   "pid_field": 0},
	 "expect": [{"kind": "exit_spike", "evidence": {"pid": "{onset_pid}"}}]},
	{"name": "sick_connection_ramp", "group": "sick",
	 "what": "refserver tcp with RLIMIT_NOFILE 1000; a client opens 1,000 connections over "
		 "6.5 s and holds them: a ramp that goes on is a trend, forecast before the "
		 "server's fds run out (its accept4() fails with EMFILE)",
	 "servers": [refserver("--proto", "tcp", nofile=1000)],
	 "loads": [{"kind": "py", "name": "load",
		    "args": ["ramp", "--port", "{port}", "--count", "1000", "--ramp", "6.5",
			     "--every", "0.5", "--seconds", "7.5"]}],
	 "onset": {"how": "fds", "min_growth": 975},
	 "expect": [{"kind": "fd_exhaustion", "evidence": {"pid": "{server_pid}"},
		     "forecast": True}],
	 # true at the end: out of fds, the server is slow to close what the client closes
	 "allow": ["close_wait_leak", "fin_wait2_orphans"]},
	proxy_ports("sick_proxy_ports_port",
		    "haproxy (mode tcp) in front of refserver tcp: a backend connection per client "
		    "connection, closed first by haproxy, its TIME_WAIT holding the port 60 s "
		    "(tcp_tw_reuse 0); 300 ephemeral ports; the driver opens a connection per request "
		    "at 300/s for 3 s from two source addresses (600 ports of its own); --port of the "
		    "backend: the finding names haproxy, its failures exactly strace's count",
		    ["--port", "{port}"]),
	proxy_ports("sick_proxy_ports_pid", "sick_proxy_ports_port watched with --pid of haproxy alone",
		    ["--pid", "{proxy_haproxy_pid}"]),
	{"name": "sick_port_tw_reuse_2", "group": "sick",
	 "what": "tcp_tw_reuse=2 (loopback), 300 ephemeral ports, the client closes first at "
		 "600 new connections/s for 3 s: a port in TIME_WAIT is taken back only once 1 s "
		 "old, so connect() fails; the cause named is that, not FIN_WAIT2 orphans (the "
		 "census has none)",
	 "sysctls": {"net.ipv4.tcp_tw_reuse": 2, "net.ipv4.ip_local_port_range": "40000 40299"},
	 "servers": [refserver("--proto", "tcp")],
	 "loads": [driver(TCP, "--new-conn", "--rate", "600", "-c", "8", "-d", "3s",
			  errors_ok=True, rc=[0, 1])],
	 "onset": {"how": "driver_errors"},
	 "expect": [{"kind": "port_exhaustion", "evidence": {"dport": "{port}"},
		     "forecast": True, "text_has": ["1 s old", "in loadlens-driver (pid"],
		     "text_lacks": ["FIN_WAIT2"]}],
	 "portfail_truth": {"load": "load", "comm": "loadlens-driver"},
	 "allow": ["time_wait"]},
	{"name": "sick_addrinuse", "group": "sick",
	 "what": "while refserver serves a keep-alive load, a second process tries to bind() its "
		 "port every 0.1 s for 3 s (a restart that finds the port busy): EADDRINUSE; "
		 "--syscalls on (a failed bind() leaves no trace outside the syscall tracepoints)",
	 "observer": ["--port", "{port}", "--syscalls", "on"],
	 **beside_http_load("binder", 0.5, ["bindloop", "--port", "{port}", "--every", "0.1",
					   "--seconds", "3"], "{tmp}/bind.log"),
	 "expect": [{"kind": "addrinuse"}]},
	dict(java_leak("sick_port_leak_java",
		       "the JDK's HttpServer (a JVM) with 1,000 ephemeral ports; a python3 client "
		       "opens 900 connections to it, sends a request on each and never reads the "
		       "answer nor closes (a client that leaks its responses); then the driver's "
		       "connect() fails with EADDRNOTAVAIL. --port: port_exhaustion names the leaker "
		       "by pid and name with its 900 unread connections, and the driver with its "
		       "failures, exactly its own count", ["--port", "{port}"], [],
		       errors_ok=True, rc=[0, 1]),
	     onset={"how": "driver_errors"},
	     expect=[{"kind": "port_exhaustion", "evidence": dict(LEAKER, dport="{port}"),
		      "forecast": True, "range": LEAKER_RANGE,
		      "text_has": ["holds 900 connections to this server", "reads none",
				   "in loadlens-driver (pid"]}],
	     portfail_truth={"load": "load", "comm": "loadlens-driver"},
	     allow=JAVA_BURST),
	dict(java_leak("sick_port_leak_java_pid",
		       "sick_port_leak_java watched with --pid of the JVM alone: the driver's "
		       "failures are not the target's, the 900 connections to it are; the leaker "
		       "is named from the server's side, once it holds half the range",
		       ["--pid", "{server_pid}"], [], errors_ok=True, rc=[0, 1]),
	     onset={"how": "logtime", "file": "{tmp}/leak.log", "field": 1},
	     expect=[{"kind": "port_exhaustion", "evidence": dict(LEAKER, dport="{port}"),
		      "forecast": True, "range": LEAKER_RANGE,
		      "text_has": ["holds 900 connections to this server", "reads none"]}],
	     allow=JAVA_BURST),
	{"name": "sick_target_exit", "group": "sick",
	 "what": "refserver under --pid, stopped (SIGTERM) 1.5 s into a keep-alive load",
	 "servers": [refserver("--proto", "http")],
	 "observer": ["--pid", "{server_pid}", "--port", "{port}"],
	 "loads": [driver(HTTP, "-c", "4", "-d", "3s", errors_ok=True, rc=[0, 1])],
	 "actions": [{"at": 1.5, "do": "signal", "target": "server", "sig": "SIGTERM",
		      "event": "killed"}],
	 "onset": {"how": "event", "event": "killed"},
	 "expect": [{"kind": "target_exit", "evidence": {"pid": "{server_pid}"}}],
	 "allow": ["no_listener"]},  # true once the target has gone
]
