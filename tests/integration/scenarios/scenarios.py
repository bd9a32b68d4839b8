"""The scenario matrix as data: server, load, expected findings (harness.py runs them).

Each scenario runs in its own network namespace ('sysctls' set there). Placeholders: {port} (a
random port), {tmp} (the scenario's temp dir), {NAME_pid} (a process the harness started, e.g.
{server_pid}), {server_worker_pid} (nginx's worker with master_process on).

- group: healthy (no warning/critical finding; exactly the notes in 'expect') or sick.
- servers: kind refserver | py (servers.py) | go | nginx | redis | memcached; cpu 0 by default.
- loads: kind driver | py | redis-benchmark | wrk | ab | h2load; cpu 1 by default; 'delay' after the
  load phase starts; 'rc' exit codes accepted; 'errors_ok' (driver) when errors are the point.
- observer: its target arguments (default --port {port}); -i 0.5s, --ndjson and --json are added.
- expect: [{kind, evidence: {key: value}, forecast: may come before the onset, range: {key:
  [lo, hi]} and estimate_of: a load whose JSON 'requests' the finding's estimated_requests
  matches within 'tolerance', absent: evidence keys it must not have (all on the summary's
  finding)}].
- exclusive: the scenario changes a host-wide limit (fs.file-max): it skips while other
  loadlens programs run on the host, whose unprivileged parts it would starve.
- allow: kinds that may also fire (a CLOSE_WAIT leak is an fd leak too).
- onset: how the harness measures, apart from the observer, when the sick condition starts:
  polled every 50 ms (log: a line in a file; tcp_state: N sockets in a state on a port;
  fds: open fds grown by N; netstat: a TcpExt counter grown by N), or read after the run
  (driver_errors / driver_mean: the start of the driver's first 0.1 s interval with errors, or
  with a mean latency >= min_s; logtime: a time a helper wrote; event: a harness action).
"""

HTTP = "http://127.0.0.1:{port}/"
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
	{"name": "healthy_tw_reuse_1", "group": "healthy",
	 "what": "tcp_tw_reuse=1, port range of 300, client closes at 200/s for 5 s: TIME_WAIT "
		 "fills the range and is reused after 1 s, no connect fails",
	 "sysctls": {"net.ipv4.tcp_tw_reuse": 1, "net.ipv4.ip_local_port_range": "40000 40299"},
	 "servers": [refserver("--proto", "tcp")],
	 "loads": [driver(TCP, "--new-conn", "--rate", "200", "-c", "4", "-d", "5s")]},
	{"name": "healthy_tw_reuse_2", "group": "healthy",
	 "what": "tcp_tw_reuse=2 (loopback only; the default), port range of 300, client closes "
		 "at 200/s for 5 s: as with 1",
	 "sysctls": {"net.ipv4.tcp_tw_reuse": 2, "net.ipv4.ip_local_port_range": "40000 40299"},
	 "servers": [refserver("--proto", "tcp")],
	 "loads": [driver(TCP, "--new-conn", "--rate", "200", "-c", "4", "-d", "5s")]},
	{"name": "healthy_redis_pipelined", "group": "healthy",
	 "what": "redis-server, a client pipelining 16 SETs a batch, one write() per command "
		 "(as clients that flush each command do), 4 connections for 3 s",
	 "servers": [{"kind": "redis"}],
	 "loads": [{"kind": "py", "name": "load",
		    "args": ["redispipe", "--port", "{port}", "--depth", "16", "--children", "4",
			     "--seconds", "3", "--count", "400000"]}],
	 "expect": [{"kind": "pipelining", "evidence": {"port": "{port}"}}]},
	{"name": "healthy_redis_batched", "group": "healthy",
	 "what": "redis-server, redis-benchmark -P 16: each batch of 16 commands in one write(), "
		 "one arrival, one read and one write per batch; the bytes of sampled reads hold "
		 "16 commands: the note says requests are reads, 16 per read (600,000 commands)",
	 "servers": [{"kind": "redis"}],
	 "loads": [{"kind": "redis-benchmark", "name": "load",
		    "args": ["-P", "16", "-c", "4", "-n", "300000", "-t", "set,get", "-q"]}],
	 "expect": [{"kind": "pipelining", "evidence": {"port": "{port}"},
		     "range": {"requests_per_read": [14.4, 16.0],
			       "estimated_requests": [540000, 612000]}}]},
	{"name": "healthy_http_pipelined", "group": "healthy",
	 "what": "nginx, the driver's HTTP/1.1 pipelining (-P 8, 4 connections, 3 s): reads hold "
		 "several requests; the note's estimate of requests served matches the driver's "
		 "count within 15%",
	 "servers": [{"kind": "nginx"}],
	 "loads": [driver(HTTP, "-P", "8", "-c", "4", "-d", "3s")],
	 "expect": [{"kind": "pipelining", "evidence": {"port": "{port}"},
		     "estimate_of": "load", "tolerance": 0.15}]},
	{"name": "healthy_h2_nginx", "group": "healthy",
	 "what": "nginx over HTTP/2 (h2c), h2load with one stream in flight per connection: "
		 "binary frames, never counted as lines: no note",
	 "servers": [{"kind": "nginx", "http2": True}],
	 "loads": [{"kind": "h2load", "name": "load",
		    "args": ["-c", "4", "-m", "1", "-n", "20000", "http://127.0.0.1:{port}/"]}]},
	{"name": "healthy_h2_multiplexed", "group": "healthy",
	 "what": "nginx over HTTP/2 (h2c), h2load with 16 streams in flight per connection, each "
		 "written on its own: reads take several writes (60,000 requests, about 4,000 "
		 "reads), the arrivals' note says so; the bytes are binary: no payload figures",
	 "servers": [{"kind": "nginx", "http2": True}],
	 "loads": [{"kind": "h2load", "name": "load",
		    "args": ["-c", "4", "-m", "16", "-n", "60000", "http://127.0.0.1:{port}/"]}],
	 "expect": [{"kind": "pipelining", "evidence": {"port": "{port}"},
		     "absent": ["sampled_reads"]}]},
	{"name": "healthy_memcached_tcp", "group": "healthy",
	 "what": "memcached (4 threads) over TCP, 'get' keep-alive, 8 connections for 3 s",
	 "servers": [{"kind": "memcached", "args": ["-t", "4", "-U", "0"]}],
	 "files": {"get.bin": b"get scenario\r\n"},
	 "loads": [driver(TCP, "--payload", "{tmp}/get.bin", "--response", "delim:END\\r\\n",
			  "-c", "8", "-d", "3s")]},
	{"name": "healthy_memcached_udp", "group": "healthy",
	 "what": "memcached's 4 threads reading one UDP socket, 'get' at 2,000/s for 3 s",
	 "servers": [{"kind": "memcached", "args": ["-t", "4", "-U", "{port}"]}],
	 "files": {"get_udp.bin": MEMC_UDP_GET},
	 "loads": [driver("udp://127.0.0.1:{port}", "--payload", "{tmp}/get_udp.bin",
			  "--rate", "2000", "-c", "8", "-d", "3s", "--timeout", "200ms")],
	 "expect": [{"kind": "udp_shared_socket", "evidence": {"port": "{port}"}}]},

	{"name": "healthy_no_listener_note", "group": "healthy",
	 "what": "nginx serves in the scenario's namespace, the observer runs in another one "
		 "with --port: nothing listens on that port where it looks",
	 "servers": [{"kind": "nginx"}],
	 "observer_outside": True,
	 "loads": [driver(HTTP, "-c", "4", "-d", "3s")],
	 "expect": [{"kind": "no_listener", "evidence": {"port": "{port}"}}]},

	{"name": "healthy_idle_100k", "group": "healthy",
	 "what": "100,000 idle keep-alive connections (one request each, then held) opened at "
		 "5,000/s by one driver command (it runs 6 processes of <= 20,000 fds) from 16 "
		 "source addresses, against nginx with 20 reuseport workers (<= 5,000 each, 25% of "
		 "their fds): 200,000 sockets, nothing wrong",
	 "sysctls": {"net.core.somaxconn": 65535, "net.ipv4.tcp_max_syn_backlog": 65535},
	 "servers": [{"kind": "nginx", "master": True, "workers": 20, "worker_rlimit_nofile": 20000,
		      "worker_connections": 19900, "keepalive_timeout": "300s", "backlog": 65535,
		      "cpu": None}],
	 "loads": [driver(HTTP, "-c", "100000", "-d", "26s", "--delay", "3600s", "--connect-rate",
			  "5k", "--timeout", "30s", "--source-addr", IDLE_SOURCES, timeout=60, cpu=None)]},

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
	 "sysctls": {"net.core.somaxconn": 65535, "net.ipv4.tcp_max_syn_backlog": 65535},
	 "servers": [{"kind": "nginx", "master": True, "workers": 20, "worker_rlimit_nofile": 4000,
		      "worker_connections": 19900, "keepalive_timeout": "300s", "backlog": 65535,
		      "cpu": None}],
	 "loads": [driver(HTTP, "-c", "100000", "-d", "20s", "--delay", "3600s", "--connect-rate",
			  "10k", "--timeout", "30s", "--source-addr", IDLE_SOURCES, errors_ok=True,
			  rc=[0, 1], timeout=60, cpu=None)],
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
	 "onset": {"how": "driver_mean", "min_s": 0.05},
	 "expect": [{"kind": "worker_saturation", "evidence": {"port": "{port}"}}]},
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
	 "servers": [refserver("--proto", "http")],
	 "loads": [driver(HTTP, "-c", "4", "-d", "4s"),
		   {"kind": "py", "name": "enfile", "delay": 1.0,
		    "args": ["enfile", "--margin", "3000", "--release", "150", "--hold", "2.5",
			     "--log", "{tmp}/enfile.log"]}],
	 "onset": {"how": "logtime", "file": "{tmp}/enfile.log"},
	 "expect": [{"kind": "system_fds"}]},
	{"name": "sick_process_cap", "group": "sick",
	 "what": "a python3 pre-forking HTTP server forks 20 children 50 ms apart under "
		 "--pid --children: the 17th process (16th child) is past the watched-process cap",
	 "servers": [{"kind": "py", "args": ["fork", "--children", "20", "--gap", "0.05",
					     "--log", "{tmp}/fork.log",
					     "--wait-file", "{tmp}/go"]}],
	 "observer": ["--pid", "{server_pid}", "--children", "--port", "{port}"],
	 "max_procs": 16,
	 "loads": [driver(HTTP, "--http-close", "--rate", "100", "-c", "4", "-d", "3s")],
	 "actions": [{"at": 0.0, "do": "touch", "file": "{tmp}/go", "event": "forks"}],
	 "onset": {"how": "logtime", "file": "{tmp}/fork.log", "line": 15, "field": 2,
		   "pid_field": 1},
	 "expect": [{"kind": "process_cap", "evidence": {"pid": "{onset_pid}"}}]},
	{"name": "sick_addrinuse", "group": "sick",
	 "what": "while refserver serves a keep-alive load, a second process tries to bind() its "
		 "port every 0.1 s for 3 s (a restart that finds the port busy): EADDRINUSE; "
		 "--syscalls on (a failed bind() leaves no trace outside the syscall tracepoints)",
	 "servers": [refserver("--proto", "http")],
	 "observer": ["--port", "{port}", "--syscalls", "on"],
	 "loads": [driver(HTTP, "-c", "4", "-d", "4s"),
		   {"kind": "py", "name": "binder", "delay": 0.5,
		    "args": ["bindloop", "--port", "{port}", "--every", "0.1", "--seconds", "3",
			     "--log", "{tmp}/bind.log"]}],
	 "onset": {"how": "logtime", "file": "{tmp}/bind.log"},
	 "expect": [{"kind": "addrinuse"}]},
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
