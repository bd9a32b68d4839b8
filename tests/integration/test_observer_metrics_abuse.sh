#!/bin/bash
# The --metrics endpoint against a hostile local client, while the driver makes new
# connections to a refserver the observer watches in agent mode (--interval 0 --metrics):
# metrics_abuse.py checks that a 9 KB header gets 431 (a request of just under 8 KiB still 200),
# that a request trickled a byte at a time is closed at the 5 s header deadline, that pipelining
# GET /metrics without reading does not grow the observer's RSS, and that with 32 hostile
# connections open a real scrape still gets a full 200, with the observer's fds within the cap;
# fds and RSS come back after. The counts stay exact: the accepted connections the observer
# exposes and writes equal the driver's, and every connection closed early is counted
# (loadlens_metrics_refused_connections_total).
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-refserver loadlens-driver
command -v curl >/dev/null || skip "no curl"

port=$(free_port)
mport=$(free_port)
refserver_up --pin rs "$port" --proto tcp
start_agent obs "$port" "$mport"
obs_pid=$PID_obs

# load during the attacks: new connections, one request each
start drv "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" -c 2 -n 4000 --new-conn -q \
	--json "$LL_TMP/drv.json"
python3 "$(dirname "$0")/metrics_abuse.py" "$mport" "$obs_pid" || fail "metrics_abuse.py"
for _ in $(seq 1 300); do kill -0 "$PID_drv" 2>/dev/null || break; sleep 0.1; done
wait "$PID_drv" || fail "the driver exited $?"
conns=$(jget "$LL_TMP/drv.json" .connections)
[ "$conns" = 4000 ] || fail "the driver made $conns connections, 4000 expected"

# the endpoint's view: exact, and the early closes counted
sleep 1.5 # a tick past the last accept
curl -sf "http://127.0.0.1:$mport/metrics" >"$LL_TMP/scrape.txt" || fail "cannot scrape"
acc=$(awk '/^loadlens_accepted_connections_total[{ ]/ {n += $2} END {print n}' "$LL_TMP/scrape.txt")
refused=$(awk '$1 == "loadlens_metrics_refused_connections_total" {print $2}' "$LL_TMP/scrape.txt")
echo "driver $conns connections; /metrics accepted $acc; connections closed early $refused"
[ "$acc" = "$conns" ] || fail "loadlens_accepted_connections_total = $acc, driver $conns"
[ -n "$refused" ] && [ "$refused" -ge 3 ] ||
	fail "loadlens_metrics_refused_connections_total = '$refused': the closes are not counted"
stop obs
obs_acc=$(jget "$LL_TMP/obs.json" .accepted)
[ "$obs_acc" = "$conns" ] || fail "observer --json accepted $obs_acc, driver $conns"
pass "the metrics endpoint stays bounded and answers under abuse; counts exact"
