#!/bin/bash
# --pid alone (no --port): the target's own sockets scope accepts and request timing. The
# reference server is the target; 300 requests on 30 connections (a new one every 10): the
# observer's accepted connections and timed requests equal the driver's and the server's, exactly.
# The kernel matrix's light check that the socket scope loads and reads right on a kernel (on
# 6.1 it once did not: ip_local_ports before 6.5's layout); test_observer_fd_passing.sh is the
# whole story of a connection served by a process that did not accept it.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-refserver loadlens-driver

P=$(free_port)
refserver_up rs "$P" --proto tcp
start obs "$LOADLENS_BIN/loadlens-observer" --pid "$PID_rs" --interval 1s --json "$LL_TMP/obs.json"
wait_for obs observing 60
"$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$P" -c 3 -n 300 --reconnect-every 10 -q \
	--json "$LL_TMP/drv.json" >"$LL_TMP/drv.out" 2>&1 || fail "driver: $(tail -3 "$LL_TMP/drv.out")"
sleep 1.2
stop obs
stop rs
expect_json "driver requests" "$LL_TMP/drv.json" .requests 300
expect_json "driver connections" "$LL_TMP/drv.json" .connections 30
expect_json "server responses" "$LL_TMP/rs.json" .responses 300
expect_json "observer accepted (--pid)" "$LL_TMP/obs.json" .accepted 30
expect_json "observer timed requests (--pid)" "$LL_TMP/obs.json" \
	'[.request_timing.slots[]? | .requests] | add // 0' 300
expect_json "observer unanswered" "$LL_TMP/obs.json" \
	'[.request_timing.slots[]? | .unanswered] | add // 0' 0
pass "--pid $PID_rs alone on $(uname -r): 30 connections, 300 requests = driver = server"
