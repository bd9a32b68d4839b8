#!/bin/bash
# The lean hooks (--lean; docs/observer/request-timing.md, "Lean hooks"): plain TCP reads begun at
# tcp:tcp_rcv_space_adjust, with sk_data_ready and sock_recv_length detached. Each case runs two
# observers on the same server at once, one with every hook (--lean off), so that both see the
# same requests: the counts must be equal to the driver's, the queue waits and service times the
# full hooks' within a few percent, and what the lean hooks cannot know few and counted.
#   1. keep-alive, --lean auto: every hook and the copy hook at the start, then after the first
#      interval with requests the copy hook alone (sk_data_ready, sock_recv_length and
#      sock_send_length detached: the programs attached say so, within 5 s), and it stays
#   2. Connection: close, --lean on: a connection's first request has its arrival too
#   3. HTTP/2 while the copy hook is alone (auto): back to every hook; the connection begun under
#      it is walked again once the full hooks are back (its first read after them that holds whole
#      frames): its requests before that counted as answered in a gap, or (their answers in the
#      write gap, the send hook detached) unknown, after it timed; a later connection timed
#      exactly
#   4. UDP (auto): never lean
#   5. the copy hook alone's responses it learns of late: connections left idle (kept open past
#      the observer's stop: the pass over the sockets), reset by the client, closed by it; and a
#      UDP socket on a target port: lean, never alone
#   6. the copy hook alone, a client's close before a server's slower close: the last response
#      timed at the client's FIN
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-refserver loadlens-driver
command -v bpftool >/dev/null || skip "bpftool is not installed"

# programs NAME TRACEPOINT: how many of that tracepoint's programs observer NAME or its helper
# children have attached (a child forked after an attach holds the link too: programs, not fds)
programs() {
	local pid pids
	pid=$(eval echo "\$PID_$1")
	pids=$(printf '%s,' "$pid" $(pgrep -P "$pid"))
	bpftool perf -j | jq -r --argjson p "[${pids%,}]" --arg tp "$2" \
		'[.[] | select(.pid as $x | $p | index($x)) | select(.tracepoint == $tp)
		 | .prog_id] | unique | length'
}
slot='.request_timing.slots[] | select(.proto == "tcp")'
# same NAME WHAT: the driver's count, and both observers'
counts() {
	local drv full lean
	drv=$(jget "$LL_TMP/drv_$1.json" .requests)
	full=$(jget "$LL_TMP/full_$1.json" "$slot | .requests")
	lean=$(jget "$LL_TMP/lean_$1.json" "$slot | .requests")
	echo "$1: driver $drv, full hooks $full, lean $lean"
	[ "$full" = "$drv" ] && [ "$lean" = "$drv" ] || fail "$1: counts differ"
}
# lean_up NAME PROTO: refserver rs_NAME (PROTO, one worker, pinned) on a free port, $port, and
# observer lean_NAME (--lean auto) on it
lean_up() {
	port=$(free_port)
	refserver_up --pin "rs_$1" "$port" --proto "$2" --workers 1
	start_observer "lean_$1" "$port"
}

# 1. keep-alive, --lean auto
port=$(free_port)
refserver_up --pin rs_ka "$port" --proto http --service-time 200us --workers 1
start_observer full_ka "$port" --lean off
start_observer lean_ka "$port"
grep -q "lean on needs" "$LL_TMP/lean_ka.err" && skip "$(grep "lean on needs" "$LL_TMP/lean_ka.err")"
[ "$(programs lean_ka sk_data_ready)" = 1 ] || fail "auto: sk_data_ready not attached at start"
[ "$(programs lean_ka tcp_rcv_space_adjust)" = 1 ] || fail "auto: the copy hook not attached at start"
load_driver drv_ka "http://127.0.0.1:$port/" -c 4 -d 12s &
drv=$!
# the first interval with requests, and the detach (an RCU grace period per tracepoint)
for t in $(seq 1 20); do
	sleep 0.5
	copy=$(programs lean_ka tcp_rcv_space_adjust)
	arr=$(programs lean_ka sk_data_ready)
	recv=$(programs lean_ka sock_recv_length)
	[ "$copy" = 1 ] && [ "$arr" = 0 ] && [ "$recv" = 0 ] && break
done
echo "auto at $((t / 2)) s: tcp_rcv_space_adjust $copy, sk_data_ready $arr, sock_recv_length $recv"
[ "$copy" = 1 ] && [ "$arr" = 0 ] && [ "$recv" = 0 ] || fail "auto: not lean after 10 s"
[ "$t" -le 10 ] || fail "auto: lean only after $((t / 2)) s (the first interval decides)"
[ "$(programs full_ka sk_data_ready)" = 1 ] || fail "--lean off: sk_data_ready not attached"
[ "$(programs full_ka tcp_rcv_space_adjust)" = 0 ] || fail "--lean off: the copy hook attached"
# the send hook detached with them
for t in $(seq 1 20); do
	sleep 0.5
	send=$(programs lean_ka sock_send_length)
	[ "$send" = 0 ] && break
done
echo "auto: sock_send_length $send, $((t / 2)) s later"
[ "$send" = 0 ] || fail "auto: the send hook still attached 10 s after going lean"
[ "$(programs lean_ka tcp_rcv_space_adjust)" = 1 ] || fail "auto: the copy hook went"
[ "$(programs full_ka sock_send_length)" = 1 ] || fail "--lean off: sock_send_length not attached"
wait $drv || fail "keep-alive driver exited $?"
sleep 0.3
stop lean_ka full_ka rs_ka
grep "copy hook alone from now on" "$LL_TMP/lean_ka.err" ||
	fail "auto: no note of the copy hook alone"
counts ka
expect_json "auto: state" "$LL_TMP/lean_ka.json" .request_timing.features.lean_state 	"copy hook alone"
solo=$(jget "$LL_TMP/lean_ka.json" .request_timing.features.lean_solo_share)
untimed=$(jget "$LL_TMP/lean_ka.json" "$slot | .untimed")
echo "auto: the copy hook alone for $solo of the run; $untimed responses untimed"
awk -v s="$solo" 'BEGIN { exit !(s > 0.5) }' || fail "auto: copy hook alone for $solo of the run"
[ "$(jget "$LL_TMP/full_ka.json" "$slot | .untimed")" = 0 ] || fail "--lean off: untimed responses"
share=$(jget "$LL_TMP/lean_ka.json" .request_timing.features.lean_share)
reads=$(jget "$LL_TMP/lean_ka.json" .request_timing.lean_reads)
unknown=$(jget "$LL_TMP/lean_ka.json" .request_timing.lean_no_arrival)
n=$(jget "$LL_TMP/lean_ka.json" "$slot | .requests")
echo "auto: lean for $share of the run, $reads reads, $unknown without an arrival"
awk -v s="$share" 'BEGIN { exit !(s > 0.5 && s < 1) }' || fail "auto: lean share $share"
[ "$reads" -gt $((n / 3)) ] || fail "auto: $reads lean reads of $n"
[ $((unknown * 200)) -le "$reads" ] || fail "auto: $unknown of $reads without an arrival"
na=$(jget "$LL_TMP/lean_ka.json" "$slot | .no_arrival")
[ $((na * 200)) -le "$n" ] || fail "auto: no_arrival $na of $n"
[ $((untimed * 200)) -le "$n" ] || fail "auto: $untimed of $n untimed"
for k in socket_queue_wait service_time; do
	check_within "keep-alive $k p50, lean vs full" \
		"$(jget "$LL_TMP/lean_ka.json" "$slot | .$k.p50")" \
		"$(jget "$LL_TMP/full_ka.json" "$slot | .$k.p50")" 10
done

# 2. Connection: close, --lean on: each request is its connection's first
port=$(free_port)
refserver_up --pin rs_cl "$port" --proto http --workers 1
start_observer full_cl "$port" --lean off
start_observer lean_cl "$port" --lean on
load_driver drv_cl "http://127.0.0.1:$port/" -c 4 -d 3s -H "Connection: close" ||
	fail "close driver exited $?"
sleep 0.3
stop lean_cl full_cl rs_cl
counts cl
n=$(jget "$LL_TMP/lean_cl.json" "$slot | .requests")
na=$(jget "$LL_TMP/lean_cl.json" "$slot | .no_arrival")
echo "close, lean: $na of $n without an arrival"
[ $((na * 1000)) -le "$n" ] || fail "close: no_arrival $na of $n"
check_within "close socket-queue wait p50, lean vs full" \
	"$(jget "$LL_TMP/lean_cl.json" "$slot | .socket_queue_wait.p50")" \
	"$(jget "$LL_TMP/full_cl.json" "$slot | .socket_queue_wait.p50")" 15

# 3. HTTP/2 while lean: plain requests on one port until lean, then an h2c connection on another
pa=$(free_port)
refserver_up --pin rs_p "$pa" --proto http --workers 1
pb=$(free_port)
refserver_up --pin rs_h2 "$pb" --proto h2 --workers 1
start "lean_h2" "$LOADLENS_BIN/loadlens-observer" --port "$pa" --port "$pb" --interval 1s \
	--json "$LL_TMP/lean_h2.json"
wait_for lean_h2 observing 60
load_driver drv_p "http://127.0.0.1:$pa/" -c 2 -d 9s || fail "plain driver exited $?"
grep -q "copy hook alone from now on" "$LL_TMP/lean_h2.err" ||
	fail "h2: never the copy hook alone"
sleep 1.5 # its detach
# one connection, a request every 10 ms for 5 s: begun while lean, going on past the switch back
load_driver drv_h2a "http://127.0.0.1:$pb/" --http2 -c 1 --rate 100 -d 5s ||
	fail "h2 driver exited $?"
sleep 2
grep "every hook again" "$LL_TMP/lean_h2.err" || fail "h2: the lean hooks stayed"
load_driver drv_h2b "http://127.0.0.1:$pb/" --http2 -c 1 -n 300 || fail "h2 driver exited $?"
sleep 0.3
stop lean_h2 rs_p rs_h2
expect_json "h2: state" "$LL_TMP/lean_h2.json" .request_timing.features.lean_state full
untimed=$(jget "$LL_TMP/lean_h2.json" .request_timing.lean_untimed_connections)
[ "$untimed" = 1 ] || fail "h2: $untimed connections read by the copy hook, not 1"
s2=".request_timing.slots[] | select(.port == $pb and .proto == \"tcp\")"
h2=$(jget "$LL_TMP/lean_h2.json" "$s2 | .requests")
gap=$(jget "$LL_TMP/lean_h2.json" "$s2 | .h2_gap_answered")
gaps=$(jget "$LL_TMP/lean_h2.json" "$s2 | .h2_gaps")
na=$(jget "$LL_TMP/drv_h2a.json" .requests)
nb=$(jget "$LL_TMP/drv_h2b.json" .requests)
unknown=$(jget "$LL_TMP/lean_h2.json" "$s2 | .h2_gap_unknown")
echo "h2: $na + $nb requests; $gap answered in $gaps gap(s) (counted, not timed), $unknown" \
	"answered in the write gap (not known), $h2 timed" \
	"($((h2 - nb)) of the first connection's after its walk resumed)" \
	"$(jq -c "$s2 | {h2_connections, h2_gap_reads, h2_gap_unknown, h2_lost, h2_unmatched, unanswered}" "$LL_TMP/lean_h2.json")"
[ "$gaps" = 1 ] || fail "h2: $gaps gaps, not 1"
[ $((h2 + gap + unknown)) = $((na + nb)) ] ||
	fail "h2: $h2 timed + $gap in the gap + $unknown unknown, the driver $na + $nb"
# the streams of about one interval (100 a second) before every hook was back
[ $((gap + unknown)) -ge 1 ] && [ $((gap + unknown)) -le 300 ] ||
	fail "h2: $gap + $unknown requests in the gap"
[ "$h2" -gt "$nb" ] || fail "h2: the first connection's walk never resumed"
expect_json "h2: lost" "$LL_TMP/lean_h2.json" "$s2 | .h2_lost" 0
expect_json "h2: unmatched" "$LL_TMP/lean_h2.json" "$s2 | .h2_unmatched" 0
plain=$(jget "$LL_TMP/lean_h2.json" ".request_timing.slots[] | select(.port == $pa and .proto == \"tcp\") | .requests")
[ "$plain" = "$(jget "$LL_TMP/drv_p.json" .requests)" ] || fail "h2: plain $plain requests"

# 4. UDP: never lean
lean_up udp udp
load_driver drv_udp "udp://127.0.0.1:$port" -c 2 -d 5s || fail "udp driver exited $?"
sleep 0.3
stop lean_udp rs_udp
expect_json "udp: state" "$LL_TMP/lean_udp.json" .request_timing.features.lean_state full
jget "$LL_TMP/lean_udp.json" .request_timing.features.lean_reason | grep -q UDP ||
	fail "udp: no reason given"
expect_json "udp: lean share" "$LL_TMP/lean_udp.json" .request_timing.features.lean_share 0
u=$(jget "$LL_TMP/lean_udp.json" '.request_timing.slots[] | select(.proto == "udp") | .requests')
[ "$u" = "$(jget "$LL_TMP/rs_udp.json" .responses)" ] || fail "udp: $u requests counted"
# 5. The copy hook alone's late answers: keep-alive load until it is alone, then Python clients
# (http.client, one request at a time): 3 connections of 5 requests left open past the
# observer's stop, 2 of 4 reset (SO_LINGER 0), 1 of 3 closed; every response counted
lean_up late http
load_driver drv_late "http://127.0.0.1:$port/" -c 2 -d 8s || fail "late driver exited $?"
grep -q "copy hook alone from now on" "$LL_TMP/lean_late.err" ||
	fail "late: never the copy hook alone"
[ "$(programs lean_late sock_send_length)" = 0 ] || fail "late: the send hook attached"
mkfifo "$LL_TMP/late_go"
python3 - "$port" "$LL_TMP/late_go" >"$LL_TMP/late_py.out" 2>&1 <<'PY' &
import http.client, socket, struct, sys

port, go = int(sys.argv[1]), sys.argv[2]


def conn(n):
    c = http.client.HTTPConnection("127.0.0.1", port)
    for _ in range(n):
        c.request("GET", "/")
        r = c.getresponse()
        r.read()
        assert r.status == 200, r.status
    return c


idle = [conn(5) for _ in range(3)]
for _ in range(2):
    c = conn(4)
    c.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    c.close()
conn(3).close()
print("ready", flush=True)
open(go).read()  # until the observer has stopped
for c in idle:
    c.close()
PY
py=$!
for _ in $(seq 1 100); do
	grep -q ready "$LL_TMP/late_py.out" && break
	sleep 0.1
done
grep -q ready "$LL_TMP/late_py.out" || fail "late: the clients: $(cat "$LL_TMP/late_py.out")"
sleep 1.5 # an interval: the pass answers the idle ones in it
stop lean_late
echo >"$LL_TMP/late_go"
wait $py || fail "late: the clients exited $?: $(cat "$LL_TMP/late_py.out")"
stop rs_late
n=$(jget "$LL_TMP/lean_late.json" "$slot | .requests")
drv=$(jget "$LL_TMP/drv_late.json" .requests)
echo "late: $n counted; the driver $drv + 26 from the clients"
[ "$n" = $((drv + 26)) ] || fail "late: $n requests counted, not $((drv + 26))"
expect_json "late: state" "$LL_TMP/lean_late.json" .request_timing.features.lean_state \
	"copy hook alone"
expect_json "late: unanswered" "$LL_TMP/lean_late.json" "$slot | .unanswered" 0

# a UDP socket on the target port: lean, never the copy hook alone
port=$(free_port)
refserver_up --pin rs_both "$port" --proto http --workers 1
python3 -c 'import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
time.sleep(30)' "$port" &
udp=$!
ll_on_exit "kill $udp 2>/dev/null"
start_observer lean_both "$port"
load_driver drv_both "http://127.0.0.1:$port/" -c 2 -d 8s || fail "both driver exited $?"
stop lean_both rs_both
kill $udp
expect_json "udp socket: state" "$LL_TMP/lean_both.json" .request_timing.features.lean_state lean
expect_json "udp socket: count" "$LL_TMP/lean_both.json" "$slot | .requests" \
	"$(jget "$LL_TMP/drv_both.json" .requests)"
grep -q "copy hook alone" "$LL_TMP/lean_both.err" && fail "udp socket: the copy hook alone"

# the copy hook alone, a client that closes and a server slower to close than the delayed ACK
# of the client's FIN: the last response is timed at the FIN (CLOSE_WAIT, before that ACK's
# transmit stamp), not counted untimed at the server's close (2,499 of 2,500 timed before)
port=$(free_port)
start_observer lean_slow "$port"
out=$(python3 "$LOADLENS_SRC/tests/integration/slow_close.py" "$port" 2500 2>&1) ||
	fail "slow close: the client: $out"
sleep 1.2
stop lean_slow
echo "slow close: $out; observer: $(jq -c "$slot | {requests, untimed, service: .service_time.count}" "$LL_TMP/lean_slow.json")"
grep -q "the copy hook alone from now on" "$LL_TMP/lean_slow.err" ||
	fail "slow close: the copy hook alone never came"
expect_json "slow close: requests" "$LL_TMP/lean_slow.json" "$slot | .requests" 2500
expect_json "slow close: timed" "$LL_TMP/lean_slow.json" "$slot | .service_time.count" 2500
expect_json "slow close: untimed" "$LL_TMP/lean_slow.json" "$slot | .untimed" 0
pass "lean hooks: counts, waits and switches as the full hooks"
