#!/bin/bash
# A connection accepted by one process and served by another it did not start (fd passing over
# a unix socket). --port times every request whoever serves it; --pid of the worker
# times them too, silently; --pid of the acceptor, which serves nothing, gets the served_elsewhere
# note naming the worker (pid, and its socket count = the connections made), not a silent zero.
source "$(dirname "$0")/lib.sh"
require_bpf
require_bin loadlens-observer loadlens-driver
P=$(free_port)
SRV="$(dirname "$0")/fdpass_httpd.py"
start worker python3 "$SRV" worker "$LL_TMP/fd.sock"
wait_for worker listening
start acceptor python3 "$SRV" acceptor "$LL_TMP/fd.sock" "$P"
wait_for acceptor listening
W=$PID_worker
A=$PID_acceptor

start_observer by_port "$P"
start by_acceptor "$LOADLENS_BIN/loadlens-observer" --pid "$A" --interval 1s \
	--json "$LL_TMP/by_acceptor.json"
wait_for by_acceptor observing 60
start by_worker "$LOADLENS_BIN/loadlens-observer" --pid "$W" --interval 1s \
	--json "$LL_TMP/by_worker.json"
wait_for by_worker observing 60
# 600 connections, one request each, over 3 s (accepts in every interval); under an emulated CPU
# slower than the kernel matrix was sized for, fewer (LL_LOAD_SCALE, tests/kernels/suite.py)
RATE=$(awk -v s="${LL_LOAD_SCALE:-1}" 'BEGIN { r = int(200 * (s < 1 ? s : 1)); print r < 20 ? 20 : r }')
"$LOADLENS_BIN/loadlens-driver" "http://127.0.0.1:$P/" -c 4 --new-conn --rate "$RATE" -d 3s \
	--json "$LL_TMP/drv.json" >"$LL_TMP/drv.out" 2>&1 || { cat "$LL_TMP/drv.out"; fail "driver"; }
sleep 1.2
stop by_port
stop by_acceptor
stop by_worker
n=$(jget "$LL_TMP/drv.json" '.requests')
conns=$(jget "$LL_TMP/drv.json" '.connections')
echo "driver: $n requests on $conns connections"
# the counts below must equal n, whatever it is; n only has to put accepts in every interval: at
# least 30 (beside 3 observers on one emulated CPU 20x slower the driver made 119 of 297 asked)
[ "$n" -ge 30 ] || fail "driver made $n requests at $RATE/s for 3 s"
req() { jq '[.request_timing.slots[]? | .requests] | add // 0' "$1"; }
[ "$(req "$LL_TMP/by_port.json")" = "$n" ] || fail "--port timed $(req "$LL_TMP/by_port.json") of $n"
[ "$(req "$LL_TMP/by_worker.json")" = "$n" ] ||
	fail "--pid worker timed $(req "$LL_TMP/by_worker.json") of $n"
for o in by_port by_worker; do
	[ "$(jq '[.findings[] | select(.kind == "served_elsewhere")] | length' "$LL_TMP/$o.json")" = 0 ] ||
		fail "$o: a served_elsewhere note where its targets served"
done
J=$LL_TMP/by_acceptor.json
[ "$(req "$J")" = 0 ] || fail "--pid acceptor timed $(req "$J") requests it did not serve"
note=$(jq -c '[.findings[] | select(.kind == "served_elsewhere")][0]' "$J")
[ "$note" != null ] || { jq -c '.findings' "$J"; fail "--pid acceptor: no served_elsewhere note"; }
echo "$note"
# other servers on the host may be listed too (their own sockets); the worker by its pid
wk=$(echo "$note" | jq -c --argjson w "$W" '.evidence.readers[] | select(.pid == $w)')
[ -n "$wk" ] || fail "the note does not name the worker (pid $W)"
[ "$(echo "$wk" | jq .port)" = "$P" ] || fail "the worker's port: $wk"
[ "$(echo "$wk" | jq .sockets)" = "$n" ] || fail "the worker's sockets: $wk for $n connections"
rank=$(echo "$note" | jq --argjson w "$W" '[.evidence.readers[].pid] | index($w)')
if [ "$rank" -lt 4 ]; then
	echo "$note" | jq -r .text | grep -q "python3 (pid $W: $n on tcp/$P)" || fail "the note's text"
fi
pass "fd passing: $n = $n requests by --port and by --pid of the worker; the acceptor's note names pid $W"
