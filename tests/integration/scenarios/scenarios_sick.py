"""The sick scenarios: each names its finding live, within the late limit of its onset
(scenarios.py says what a scenario holds)."""

from scenario_parts import (FORK_LOAD, HTTP, JAVA_BURST, LEAKER, LEAKER_RANGE, PID_CHILDREN, TCP,
			    beside_http_load, cpu_hogs, driver, forking_on_go, h2load, idle_driver,
			    idle_nginx, idle_sysctls, java_leak, ldap_searches, logged_exit,
			    postgres_children, proxy_ports, refserver,
			    refserver_sleeping, workers_named)

SICK = [
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
	 # true: when the driver ends, its 100,000 connections close at once and nginx takes the
	 # ones its EMFILE left in the accept queue, 20 workers on 2 CPUs beside the kernel's
	 # teardown (on average 19 threads wait on a run queue while 1.3 run)
	 "allow": ["listen_overflow", "worker_saturation", "cpu_saturation"]},
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
	 "servers": [refserver_sleeping("tcp", "1", "5ms")],
	 "observer": ["--port", "{port}", "--runq"],
	 "loads": [driver(TCP, "--rate", "300", "-c", "64", "-d", "4s")],
	 # the kernel matrix's emulated CPU: 20 ms a request (capacity ~49/s) at 75/s, the same
	 # overrun at a quarter of the load; 16 connections (at most 320 ms queued in the server:
	 # 64 left a 1.3 s backlog whose connections sat in CLOSE_WAIT after the driver closed them),
	 # the onset 4x later, as the service and the finding's 10x threshold
	 "emulated": {
		 "servers": [refserver_sleeping("tcp", "1", "20ms")],
		 "loads": [driver(TCP, "--rate", "75", "-c", "16", "-d", "4s")],
		 "onset": {"how": "driver_mean", "min_s": 0.2}},
	 **workers_named()},
	{"name": "sick_workers_h2_inside", "group": "sick",
	 "what": "refserver over HTTP/2 (h2c), one worker sleeping 5 ms a stream (about 190/s): one "
		 "stream in flight for 1.5 s, then a second connection with 40: the server reads "
		 "the 40 at once and serves them one by one, so they wait inside it, in their "
		 "service time (no socket queue to see); 40x as many in service, the same rate",
	 "servers": [refserver_sleeping("h2", "1", "5ms")],
	 "loads": [driver(HTTP, "--http2", "-c", "1", "--streams", "1", "-d", "4s"),
		   driver(HTTP, "--http2", "-c", "1", "--streams", "40", "-d", "2.5s", name="load2",
			  delay=1.5)],
	 "onset": {"how": "driver_mean", "load": "load2", "min_s": 0.05},
	 "expect": [{"kind": "worker_saturation",
		     "evidence": {"port": "{port}", "source": "inside"}}]},
	{"name": "sick_worker_saturation_h2", "group": "sick",
	 "what": "nginx over HTTP/2 (h2c), its one worker under h2load's 100 connections with 20 "
		 "streams in flight each (closed loop) for 5 s: each stream is timed apart; the "
		 "streams wait in the sockets far longer than the worker takes to answer them (with "
		 "10 a connection the wait's p50 was 3.4 ms, under the 5 ms floor, where h2load "
		 "shared its CPU)",
	 "servers": [{"kind": "nginx", "http2": True}],
	 "loads": [h2load("-c", "100", "-m", "20", "-D", "5")],
	 "onset": {"how": "event", "event": "load_start"},
	 "expect": [{"kind": "worker_saturation", "evidence": {"port": "{port}"}}]},
	{"name": "sick_workers_pool_2", "group": "sick",
	 "what": "refserver tcp, a pool of 2 workers sleeping 5 ms per request (capacity ~390/s) "
		 "with the CPU idle, open loop at 600/s, no --runq: the workers, not the CPU (the "
		 "targets' threads barely wait for one)",
	 "servers": [refserver_sleeping("tcp", "2", "5ms")],
	 "loads": [driver(TCP, "--rate", "600", "-c", "64", "-d", "4s")],
	 **workers_named()},
	{"name": "sick_cpu_postgres_pinned", "group": "sick",
	 "what": "PostgreSQL 15 (a process per connection) pinned to CPU 0, pgbench -S with 80 "
		 "clients, --pid postmaster --children, no --runq, the default --max-procs 64: 80 "
		 "backends wait for one CPU, ~23 of them not watched; the watched ones' schedstat "
		 "and the CPU's busy time name the CPU, never 'add workers'",
	 # 80, not 40: a request waits about one transaction's CPU (~25 us) a runnable backend,
	 # and with 40 the queue's p50 was 0.95-1.05 ms on a fast host (service 15 us), astride
	 # the rule's 1 ms floor: it fired late or not at all in 5 of 10 runs (CI too)
	 **postgres_children("-S", "-c", "80", "-j", "2", "-T", "4"),
	 # the 80 clients connected: pgbench forks 80 backends on the one CPU first (0.2-1 s
	 # after its start), and only then do 80 of them wait for it
	 "onset": {"how": "tcp_state", "state": "ESTABLISHED", "port": "{port}", "min": 80},
	 # the backends past the cap: named by process_cap, and the CPU still (the watched ran
	 # ~0.72 of it: without /proc/stat's busy time nothing was named)
	 "allow": ["process_cap"],
	 "expect": [{"kind": "cpu_saturation", "evidence": {"source": "schedstat", "cpus": "1"},
		     "range": {"unread": [5, 40]}, "text_has": ["past --max-procs"]}]},
	{"name": "sick_cpu_saturation", "group": "sick", "needs_cpus": 2,
	 "what": "refserver tcp, 2 workers spinning 4 ms per request, pinned to CPU 0 with four "
		 "CPU hogs; 100 req/s (each worker needs 20% of the CPU, its fair share is a "
		 "sixth); --runq: the serving threads wait for the CPU",
	 "servers": [refserver("--proto", "tcp", "--workers", "2", "--service-time", "4ms")],
	 "observer": ["--port", "{port}", "--runq"],
	 "loads": cpu_hogs(4, 6) + [driver(TCP, "--rate", "100", "-c", "16", "-d", "4s", delay=0.3)],
	 "onset": {"how": "event", "event": "load_start"},  # the driver's start: first wake-ups
	 "expect": [{"kind": "cpu_saturation"}]},
	{"name": "sick_cpu_contended", "group": "sick", "needs_cpus": 2,
	 "what": "nginx at nice 5, 1 worker pinned to CPU 0 with twelve CPU hogs (its share "
		 "~2.6%, under what 10,000 req/s need on any machine here: at nice 0, a 13th, a fast "
		 "day's nginx needed 4.5% and its queue stayed under 1 ms), 10,000 req/s keep-alive "
		 "from CPU 1, no --runq: its worker waits for the CPU longer than it runs, and "
		 "requests queue in the socket between its turns; other work holds the CPU, never "
		 "'add workers'",
	 "servers": [{"kind": "nginx", "nice": 5}],
	 "loads": cpu_hogs(12, 6) + [driver(HTTP, "--rate", "10000", "-c", "200", "-d", "4s",
					   delay=0.3)],
	 "onset": {"how": "event", "event": "load_start"},
	 "expect": [{"kind": "cpu_saturation",
		     "evidence": {"source": "schedstat", "contended": "True"}}]},
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
	 **forking_on_go("fork", "fork.log", ["--children", "20", "--gap", "0.05"], 0.0, "forks"),
	 "observer": ["--pid", "{server_pid}", "--children", "--port", "{port}"],
	 "max_procs": 16,
	 "loads": [FORK_LOAD],
	 **logged_exit("process_cap", "fork.log", 2, 1, line=15)},
	{"name": "sick_fork_child_crash", "group": "sick",
	 "what": "the forking server of healthy_fork_per_connection, whose every 75th child "
		 "crashes (SIGSEGV) after answering, 100 new connections/s for 3 s: the crashes "
		 "are findings, the 296 children leaving with their clients are not",
	 "servers": [{"kind": "py", "args": ["forkper", "--crash-every", "75",
					     "--log", "{tmp}/crash.log"]}],
	 "observer": PID_CHILDREN,
	 "max_procs": 16,
	 "loads": [FORK_LOAD],
	 **logged_exit("target_exit", "crash.log", 1, 0)},
	{"name": "sick_fork_respawn_loop", "group": "sick",
	 "what": "a python3 pre-forking server (master + 4 workers) under --pid master "
		 "--children and a light load (10 new connections/s for 3 s); 1 s in, each worker "
		 "exits 0 20 ms after it starts and the master forks another at once: about 150 "
		 "status-0 exits a second while 10 connections close",
	 **forking_on_go("respawn", "respawn.log", ["--children", "4", "--every", "0.02"], 1.0,
			 "respawn"),
	 "observer": PID_CHILDREN,
	 "loads": [driver(HTTP, "--http-close", "--rate", "10", "-c", "2", "-d", "3s")],
	 # the rule's condition needs 10 exits in an interval: the onset is the 10th
	 **logged_exit("exit_spike", "respawn.log", 1, 0, line=9)},
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
	{"name": "sick_slapd_threads_2", "group": "sick",
	 "what": "slapd with a pool of 2 threads on one CPU, 256 connections searching in a closed "
		 "loop: the searches queue in the sockets before slapd reads them (its etime stays "
		 "~70 us, its qtime a few us); its 2 threads keep that CPU busy themselves, so the "
		 "CPU is named, and the requests = slapd's stats log",
	 "servers": [{"kind": "slapd", "threads": 2}],
	 "loads": [ldap_searches("-c", "256", "-d", "4s")],
	 # the searches queue once the 256 connections are open and searching: the start of the
	 # driver's first 0.1 s interval whose mean is 70x slapd's etime (its first, on a quiet
	 # host; a busy one can take an interval or more to open them)
	 "onset": {"how": "driver_mean", "min_s": 0.005},
	 "expect": [{"kind": "cpu_saturation", "evidence": {"source": "schedstat"}}],
	 "slapd_log": True},
]
