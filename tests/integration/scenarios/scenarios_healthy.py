"""The healthy scenarios: no warning or critical finding, exactly the notes they expect
(scenarios.py says what a scenario holds)."""

from scenario_parts import (CHILDREN_TIMED, FORK_LOAD, HTTP, HTTPS, PID_CHILDREN, TCP, driver,
			    h2_nginx_logged, idle_driver, idle_nginx, idle_sysctls, java_leak,
			    ldap_searches, memcached_udp_shared, nginx_pipelined, pipelining,
			    postgres_children, refserver, refserver_sleeping, sclient_resumed,
			    tw_reused)

HEALTHY = [
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
	 "loads": [driver(HTTP, "--http-close", "--rate", "300", "-c", "8", "-d", "4s")],
	 # under an emulated CPU a connection and its request take the one worker ~3 ms: 300/s
	 # kept it near full, and its queue (7.4 ms, 30x the service, on 6.12) was true
	 "emulated": {"loads": [driver(HTTP, "--http-close", "--rate", "150", "-c", "8",
				       "-d", "4s")]}},
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
	 **nginx_pipelined("4", "3s", estimate_of="load", tolerance=0.15)},
	# HTTP/2: each stream one request (bpf/req_h2.bpf.h); the access log is the truth
	{"name": "healthy_h2_nginx", "group": "healthy",
	 "what": "nginx over HTTP/2 (h2c), h2load with one stream in flight per connection: "
		 "requests = nginx's access log exactly (the connection's preface and SETTINGS are "
		 "no request); binary frames, never counted as lines: no note",
	 **h2_nginx_logged("-c", "4", "-m", "1", "-n", "20000")},
	{"name": "healthy_h2_multiplexed", "group": "healthy",
	 "what": "nginx over HTTP/2 (h2c), h2load with 16 streams in flight per connection: each "
		 "stream is one request, timed apart: requests = nginx's access log exactly "
		 "(60,000; counted by turns, about 4,000), and reads that take several streams are "
		 "no pipelining: no note",
	 **h2_nginx_logged("-c", "4", "-m", "16", "-n", "60000")},
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
	 **CHILDREN_TIMED,
	 "loads": [driver(HTTP, "--rate", "400", "-c", "40", "-d", "2s")]},
	{"name": "healthy_prefork_existing", "group": "healthy",
	 "what": "a python3 pre-forking server whose 4 children were forked before the observer "
		 "started, under --pid parent --children: the children found at the start are "
		 "targets, every request they serve is timed",
	 "servers": [{"kind": "py", "args": ["fork", "--children", "4", "--gap", "0"]}],
	 **CHILDREN_TIMED,
	 "loads": [driver(HTTP, "--http-close", "--rate", "200", "-c", "4", "-d", "3s")]},
	{"name": "healthy_postgres_pgbench_C", "group": "healthy",
	 "what": "PostgreSQL 15 under pgbench -C (a new connection, so a new backend, per "
		 "transaction; select-only), 4 clients for 3 s, --pid postmaster --children "
		 "--max-procs 16: hundreds of backends come and go; none is a finding",
	 "max_procs": 16,
	 **postgres_children("-C", "-S", "-c", "4", "-j", "1", "-T", "3")},
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
	 **CHILDREN_TIMED,
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
	 "servers": [refserver_sleeping("http", "4", "20ms", name="backend",
					listen="127.0.0.1:{port2}"),
		     {"kind": "nginx", "tls": "TLSv1.3", "access_log": True, "proxy": "{port2}"}],
	 "loads": [driver(HTTPS, "-k", "--http-close", "-c", "4", "-n", "300")],
	 "access_log": {"tls": "load", "service": 0.02}},
	{"name": "healthy_tls12_resumed", "group": "healthy",
	 "what": "nginx with TLS 1.2 only; openssl s_client: a full handshake saving its session "
		 "(-sess_out), 20 resuming it (-sess_in), 2 x -reconnect (a full handshake and 5 "
		 "resumed each): 33 handshakes, 30 resumed, 23 requests = the access log",
	 **sclient_resumed("1.2", 30)},
	{"name": "healthy_tls13_resumed", "group": "healthy",
	 "what": "the same with TLS 1.3 only (resumption by session ticket, encrypted: not "
		 "counted apart): 33 handshakes, 23 requests = the access log",
	 **sclient_resumed("1.3", 0)},
	{"name": "healthy_tls13_slow_switch", "group": "healthy",
	 "what": "the same, the observer's attach child 0.7 s late to each switch (a busy "
		 "machine): the copy hook, still attached after the first interval gave every "
		 "hook back, takes no TLS connection's first read: 33 handshakes",
	 "observer_env": {"LOADLENS_OBSERVER_SWITCH_DELAY_MS": "700"},
	 **sclient_resumed("1.3", 0)},
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
	 **nginx_pipelined("2", "60ms",
			   range={"requests_per_read": [4.0, 8.0], "sampled_reads": [3, 12]})},
	{"name": "healthy_redis_burst_interval0", "group": "healthy",
	 "what": "redis-server, a pipelined burst (redis-benchmark -P 16, 30,000 SETs on one "
		 "connection) with the observer at --interval 0 (the agent's mode: no live lines, a "
		 "tick a second): the burst, shorter than a second, is decided on the final read "
		 "(it never was)",
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
	{"name": "healthy_h2_more_streams", "group": "healthy",
	 "what": "refserver over HTTP/2 (h2c), 4 workers sleeping 5 ms a stream: one stream in "
		 "flight for 1.5 s, then 3 more connections with one each: 4x as many in service "
		 "and served at once, the rate follows: nothing waits inside",
	 "servers": [refserver_sleeping("h2", "4", "5ms")],
	 "loads": [driver(HTTP, "--http2", "-c", "1", "--streams", "1", "-d", "4s"),
		   driver(HTTP, "--http2", "-c", "3", "--streams", "1", "-d", "2.5s", name="load2",
			  delay=1.5)]},
	{"name": "healthy_slapd", "group": "healthy",
	 "what": "OpenLDAP slapd 2.5 with 10,000 entries, 16 connections searching one uid each "
		 "at 2,000/s for 4 s: nothing wrong; the observer's requests = slapd's stats log "
		 "(its searches and binds) exactly",
	 "servers": [{"kind": "slapd"}],
	 "loads": [ldap_searches("--rate", "2000", "-c", "16", "-d", "4s")],
	 "slapd_log": True},
]
