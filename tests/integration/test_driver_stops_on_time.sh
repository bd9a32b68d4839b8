#!/usr/bin/env bash
# The driver stops on time. No request starts after -d by the clock; what is
# in flight gets at most --timeout; the run ends within -d + --timeout; the schedule's requests
# that could not start are counted as not sent; a signal during --start-at exits at once.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY for the silent UDP server"

# timed NAME LIMIT_S ARGS...: the driver with a hard kill at LIMIT_S (a run past it fails the
# test, not the suite); sets WALL to its wall time in seconds.
timed() {
	local name=$1 limit=$2 t0 t1 rc=0
	shift 2
	t0=$(date +%s.%N)
	timeout -s KILL "$limit" "$LOADLENS_BIN/loadlens-driver" "$@" --json "$LL_TMP/$name.json" \
		>"$LL_TMP/$name.out" 2>"$LL_TMP/$name.err" || rc=$?
	t1=$(date +%s.%N)
	WALL=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
	[ "$rc" = 137 ] && fail "$name: still running after ${limit}s (killed)"
	[ -s "$LL_TMP/$name.json" ] || { cat "$LL_TMP/$name.out" "$LL_TMP/$name.err"; fail "$name: no JSON (rc $rc)"; }
}

# le A B: A <= B (decimals)
le() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; }

# 1. A slow TCP server (100 ms per request, one at a time): 2 slots cannot keep --rate 100.
#    Before: the schedule, not the clock, was compared with -d, and the run went on for ~30 s.
P=$(free_port)
refserver_up slow "$P" --proto tcp --service-time 100ms --service-mode sleep
timed slow_tcp 20 "tcp://127.0.0.1:$P" -c 2 --rate 100 -d 3s --timeout 2s -q
stop slow
le "$WALL" 6.5 || fail "slow tcp: ran ${WALL}s, bound -d + --timeout = 5s (+1.5s margin)"
J=$LL_TMP/slow_tcp.json
ok=$(jget "$J" .requests) errs=$(jget "$J" .errors_total) can=$(jget "$J" .cancelled)
ns=$(jget "$J" .not_sent)
[ $((ok + errs + can + ns)) = 300 ] ||
	fail "slow tcp: ok $ok + errors $errs + cancelled $can + not sent $ns != 300 scheduled"
[ "$ns" -gt 200 ] || fail "slow tcp: only $ns not sent (the server serves ~10/s)"
srv=$(jget "$LL_TMP/slow.json" .responses)
[ "$srv" = $((ok + errs + can)) ] || fail "slow tcp: server answered $srv, driver sent $((ok + errs + can))"
grep -q "^  not sent     $ns (the server could not keep up with --rate)" "$LL_TMP/slow_tcp.out" ||
	fail "slow tcp: no 'not sent' line"
pass "slow tcp: ${WALL}s, $ok ok + $errs errors + $can cancelled + $ns not sent = 300"

# 2. A UDP server that never replies: each of 4 slots sends at 0 s, ~1 s and ~2 s (each lost after
#    the 1 s timeout); nothing starts after 3 s. Before: ~25 minutes.
P=$(free_port)
start silent "$PY" -c "
import signal, socket, sys, time
signal.signal(signal.SIGINT, lambda *_: sys.exit(0))  # bash's background jobs ignore SIGINT
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(('127.0.0.1', $P))
print('listening', flush=True)
time.sleep(60)"
for _ in $(seq 1 50); do grep -q listening "$LL_TMP/silent.out" && break; sleep 0.1; done
timed silent_udp 20 "udp://127.0.0.1:$P" --rate 2k -c 4 --timeout 1s -d 3s -q
le "$WALL" 5.5 || fail "silent udp: ran ${WALL}s, bound -d + --timeout = 4s (+1.5s margin)"
J=$LL_TMP/silent_udp.json
[ "$(jget "$J" .requests)" = 0 ] || fail "silent udp: replies from a silent server"
[ "$(jget "$J" .errors.lost)" = 12 ] || fail "silent udp: $(jget "$J" .errors.lost) lost, expected 12"
[ "$(jget "$J" .cancelled)" = 0 ] || fail "silent udp: cancelled $(jget "$J" .cancelled), expected 0"
[ "$(jget "$J" .not_sent)" = 5988 ] || fail "silent udp: not sent $(jget "$J" .not_sent), expected 5988"
pass "silent udp: ${WALL}s, 12 lost, 5988 not sent"

# 3. One slot in the closed loop waits in the socket's own blocking read (scheduling/pingpong.h),
#    not in the loop: a silent server still gets each request lost at its --timeout (the sweep is
#    a worker timer, which the read gives way to), nothing starts after -d, and the run ends on
#    time. Sends at 0, ~1 and ~2 s; the third is lost at >= 3 s, past -d: 3 lost, none cancelled.
#    UDP, and TCP against a listener that never reads (each timeout closes the connection, so
#    there each request is a new connection's first, read by the loop: the same bounds hold).
P=$(free_port)
start silent1 "$PY" -c "
import signal, socket, sys, time
signal.signal(signal.SIGINT, lambda *_: sys.exit(0))
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
u.bind(('127.0.0.1', $P))
t = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(('127.0.0.1', $P))
t.listen(16)
print('listening', flush=True)
time.sleep(60)"
for _ in $(seq 1 50); do grep -q listening "$LL_TMP/silent1.out" && break; sleep 0.1; done
for proto in udp tcp; do
	timed "silent1_$proto" 20 "$proto://127.0.0.1:$P" -c 1 --timeout 1s -d 3s -q
	le "$WALL" 4.5 || fail "silent $proto -c 1: ran ${WALL}s, bound -d + --timeout = 4s (+0.5s margin)"
	J=$LL_TMP/silent1_$proto.json
	[ "$(jget "$J" .requests)" = 0 ] || fail "silent $proto -c 1: replies from a silent server"
	[ "$(jget "$J" .errors_total)" = 3 ] ||
		fail "silent $proto -c 1: $(jget "$J" .errors_total) errors, expected 3: $(jq -c .errors "$J")"
	[ "$(jget "$J" .cancelled)" = 0 ] || fail "silent $proto -c 1: cancelled $(jget "$J" .cancelled), expected 0"
	pass "silent $proto, one slot, closed loop: ${WALL}s, 3 timed out: $(jq -c .errors "$J")"
done

# 4. SIGINT while the thread blocks in that read (seen in /proc: recvfrom, x86-64 syscall 45):
#    the run stops at once (the read has no timeout: the thread's own POSIX timer, listed in
#    /proc/PID/timers as a signal to that thread, ends it every 10 ms), the request in flight
#    cancelled, with the summary.
D=$LOADLENS_BIN/loadlens-driver
"$D" "udp://127.0.0.1:$P" -c 1 --timeout 20s -d 30s --json "$LL_TMP/sigread.json" \
	>"$LL_TMP/sigread.out" 2>"$LL_TMP/sigread.err" &
pid=$!
ll_track "$pid"
inread=""
for _ in $(seq 1 50); do
	sleep 0.1
	inread=$(grep -l '^45 ' /proc/"$pid"/task/*/syscall 2>/dev/null | head -1)
	[ -n "$inread" ] && break
done
[ -n "$inread" ] || { kill -KILL "$pid"; fail "SIGINT during a blocking read: no thread in recvfrom"; }
tid=$(basename "$(dirname "$inread")")
# (/proc/PID/timers needs CONFIG_CHECKPOINT_RESTORE: where it is absent, not checked)
if [ -r /proc/"$pid"/timers ]; then
	grep -q "^notify: signal/tid\.$tid\$" /proc/"$pid"/timers || {
		cat /proc/"$pid"/timers; kill -KILL "$pid"
		fail "SIGINT during a blocking read: no tick timer to the reading thread $tid"
	}
fi
t0=$(date +%s.%N)
kill -INT "$pid"
for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; fail "SIGINT during a blocking read: still running 2.5 s later"; }
wait "$pid" || fail "SIGINT during a blocking read: exit $?"
WALL=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
le "$WALL" 1 || fail "SIGINT during a blocking read: exited ${WALL}s after the signal"
[ "$(jget "$LL_TMP/sigread.json" .cancelled)" = 1 ] ||
	fail "SIGINT during a blocking read: cancelled $(jget "$LL_TMP/sigread.json" .cancelled), expected 1"
[ "$(jget "$LL_TMP/sigread.json" .errors_total)" = 0 ] || fail "SIGINT during a blocking read: errors"
grep -q "cancelled" "$LL_TMP/sigread.out" || { cat "$LL_TMP/sigread.out"; fail "SIGINT during a blocking read: no summary"; }
stop silent1
pass "SIGINT during a blocking read: exited ${WALL}s after it, 1 cancelled, with the summary"

# 5. SIGINT while waiting for --start-at: exits at once with the summary. Before: only SIGKILL.
P=$(free_port)
t0=$(date +%s.%N)
"$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$P" -n 10 --start-at $(($(date +%s) + 30)) \
	--json "$LL_TMP/sig.json" >"$LL_TMP/sig.out" 2>"$LL_TMP/sig.err" &
pid=$!
ll_track "$pid"
sleep 0.5
kill -INT "$pid"
for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
kill -0 "$pid" 2>/dev/null && { kill -KILL "$pid"; fail "SIGINT during --start-at: still running 5 s later"; }
wait "$pid" || fail "SIGINT during --start-at: exit $?"
WALL=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }')
grep -q "stopped by signal, cancelled before start" "$LL_TMP/sig.out" || { cat "$LL_TMP/sig.out"; fail "no 'cancelled before start' summary"; }
[ "$(jget "$LL_TMP/sig.json" .cancelled_before_start)" = true ] || fail "JSON: not cancelled_before_start"
[ "$(jget "$LL_TMP/sig.json" .connect_attempts)" = 0 ] || fail "connected before the start"
pass "SIGINT during --start-at: exited after ${WALL}s with the summary"
