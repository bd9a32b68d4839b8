"""The scenario matrix as data: server, load, expected findings (harness.py runs them).

Each scenario runs in its own network namespace ('sysctls' set there). Placeholders: {port} (a
random port), {tmp} (the scenario's temp dir), {NAME_pid} (a process the harness started, e.g.
{server_pid}), {server_worker_pid} (nginx's worker with master_process on).

- group: healthy (no warning/critical finding; exactly the notes in 'expect') or sick.
- servers: kind refserver | py (servers.py) | go | nginx | redis | memcached | node_cluster
  (cluster.js) | haproxy (under strace, in front of {port} on {port1}) | postgres | java
  (javaserver/HelloServer.java, the JDK's HttpServer; access log {tmp}/NAME/access.log) |
  slapd (10,000 entries, tests/integration/lib/servers.sh's slapd_db; 'threads'); cpu 0 by
  default; nginx's 'nice' its nice and its session's autogroup's (sandbox.autogroup_nice).
- loads: kind driver | py | redis-benchmark | wrk | ab | h2load | pgbench; cpu 1 by default; 'delay' after the
  load phase starts; 'rc' exit codes accepted; 'errors_ok' (driver) when errors are the point.
- slapd_log: the observer's TCP requests equal slapd's stats log's searches and binds exactly.
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
from scenarios_healthy import HEALTHY
from scenarios_sick import SICK

SCENARIOS = HEALTHY + SICK
