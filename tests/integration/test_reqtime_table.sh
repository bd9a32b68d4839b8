#!/bin/bash
# Request timing's TCP state: a direct-mapped table indexed by a hash of the socket's address,
# with the socket's own storage for a socket whose entry another live socket holds.
# 3,000 connections open at once (about 70 of them expected to find their entry taken): every
# request is counted exactly once, both paths were used (tcp_own_storage > 0), and no entry was
# found left behind by a socket gone (tcp_stale_entries = 0).
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-refserver loadlens-driver
command -v jq >/dev/null || skip "needs jq"
[ "$(ulimit -n)" -ge 8000 ] || ulimit -n 8000 2>/dev/null || skip "needs 8000 fds (ulimit -n)"
p=$(free_port)
refserver_up --pin rs "$p" --proto tcp
start_observer obs "$p"
load_cpu timeout 120 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$p" -c 3000 -n 15000 -q \
	--json "$LL_TMP/drv.json" >"$LL_TMP/drv.out" 2>&1 || fail "driver exited $? ($(tail -3 "$LL_TMP/drv.out"))"
sleep 0.3
stop obs
stop rs
n=$(jget "$LL_TMP/rs.json" .responses)
got=$(jget "$LL_TMP/obs.json" '.request_timing.slots[] | select(.proto == "tcp") | .requests')
svc=$(jget "$LL_TMP/obs.json" '.request_timing.slots[] | select(.proto == "tcp") | .service_time.count')
own=$(jget "$LL_TMP/obs.json" .request_timing.tcp_own_storage)
nos=$(jget "$LL_TMP/obs.json" .request_timing.no_storage)
echo "server $n responses; observer $got requests ($svc service times); $own sockets in their own storage, $nos without state"
[ "$n" = 15000 ] || fail "the server answered $n of 15000"
[ "$got" = "$n" ] && [ "$svc" = "$n" ] || fail "observer counted $got requests ($svc timed), server $n"
[ "$nos" = 0 ] || fail "$nos sockets got no state"
stale=$(jget "$LL_TMP/obs.json" .request_timing.tcp_stale_entries)
[ "$stale" = 0 ] || fail "$stale table entries were left behind by sockets gone"
[ "$own" -gt 0 ] || fail "no socket found its entry taken among 3000: the fallback path was not exercised"
pass "3000 connections at once: $got requests = the server's, $own sockets timed from their own storage"
