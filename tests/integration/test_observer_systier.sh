#!/bin/bash
# The syscall tier (observer/kernel/systier.c): with --syscalls auto (the default) and nothing near a
# limit, no syscalls:* tracepoint is attached, except for a sample (250 ms of one interval in ten); the
# accepted count is still exact, and the accept-queue waits of the sample are a part of the
# accepts. With --syscalls on, the accept exits are attached all the time and every accept is
# timed. Handshakes store their time only while an accept may read it (with auto, from an
# interval before the sample, or once an accept queue is past a quarter of its backlog). A bad mode
# is a usage error. The observer and its attaching helper keep only the
# capabilities they need.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver
command -v bpftool >/dev/null || skip "bpftool is not installed"

# sys_exit tracepoints attached by the observer (pid $1) or its helper child
sys_attached() {
	local pids
	pids=$(printf '%s,' "$1" $(pgrep -P "$1"))
	bpftool perf -j | jq -r --argjson p "[${pids%,}]" \
		'[.[] | select(.pid as $x | $p | index($x)) | select(.tracepoint | startswith("sys_"))]
		 | length'
}

"$LOADLENS_BIN/loadlens-observer" --port 1 --syscalls bogus 2>"$LL_TMP/bad.err"
rc=$?
[ "$rc" = 64 ] || fail "--syscalls bogus exited $rc, expected 64"
grep -q "invalid --syscalls" "$LL_TMP/bad.err" || fail "no clear line for --syscalls bogus"

port=$(free_port)
refserver_up --pin rs "$port" --proto tcp

# auto: 7.5 s of new connections at 400/s; the sample is 250 ms from t=5s
start_observer auto "$port"
sleep 1.5
# privilege: the observer keeps no capability (fds from a task iterator; see
# test_observer_privilege.sh); its helper CAP_BPF and CAP_PERFMON only
cap_eff() { awk '/^CapEff:/ { print $2 }' "/proc/$1/status"; }
helper=$(pgrep -P "$PID_auto" | head -1)
[ -n "$helper" ] || fail "auto: no helper process under the observer"
[ "$(cap_eff "$PID_auto")" = 0000000000000000 ] ||
	fail "observer CapEff $(cap_eff "$PID_auto"), expected none"
[ "$(cap_eff "$helper")" = 000000c000000000 ] ||
	fail "helper CapEff $(cap_eff "$helper"), expected CAP_BPF|CAP_PERFMON only (0xc000000000)"
n=$(sys_attached "$PID_auto")
[ "$n" = 0 ] || fail "auto, no pressure: $n sys_exit tracepoints attached at t=1.5s, expected 0"
load_cpu "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" --new-conn -c 4 --rate 400 \
	-d 6s -q --json "$LL_TMP/drv_auto.json" >"$LL_TMP/drv_auto.out" 2>&1 ||
	fail "driver exited $? ($(tail -3 "$LL_TMP/drv_auto.out"))"
sleep 0.3
# handshakes store their time only from an interval before the sample to an interval after it:
# about 2 s of the 6 s of connections (all of them, were they stored all the time)
stamped=$(observer_map_count "$PID_auto" queued '.tag != 0')
stop auto
drv=$(jget "$LL_TMP/drv_auto.json" .connections)
acc=$(jget "$LL_TMP/auto.json" .accepted)
timed=$(jget "$LL_TMP/auto.json" .accept_queue_wait.count)
share=$(jget "$LL_TMP/auto.json" .syscalls.attached_share)
echo "auto: driver $drv connections, observer accepted $acc, $timed timed, tier attached" \
	"$(awk -v s="$share" 'BEGIN { printf "%.0f%%", 100 * s }') of the run"
[ "$acc" = "$drv" ] || fail "auto: observer accepted $acc, driver opened $drv"
[ "$timed" -gt 0 ] || fail "auto: no accept timed in the sample interval"
[ "$timed" -lt "$acc" ] || fail "auto: $timed of $acc accepts timed: the tier was not sampled"
unmatched=$(jget "$LL_TMP/auto.json" .accept_queue_wait_unmatched)
echo "auto: $stamped handshakes stamped, $unmatched accepts unmatched"
[ "$stamped" -ge "$timed" ] || fail "auto: $stamped handshakes stamped, fewer than the $timed timed"
[ "$((2 * stamped))" -lt "$acc" ] ||
	fail "auto: $stamped of $acc handshakes stamped: stored outside the sample's lead"
[ "$unmatched" = 0 ] || fail "auto: $unmatched accepts in the sample found no handshake time"
# the sample is the first 250 ms (OBS_SYSTIER_SAMPLE_MS) of that interval: ~3% of 7.5 s, where a
# whole interval would be 13%
awk -v s="$share" 'BEGIN { exit !(s > 0.01 && s < 0.08) }' ||
	fail "auto: tier attached a share of $share of the run, expected 250 ms of it"

# on: attached from the start, every accept timed
start_observer on "$port" --syscalls on
n=$(sys_attached "$PID_on")
[ "$n" -ge 2 ] || fail "--syscalls on: $n sys_exit tracepoints attached, expected accept4, accept, ..."
new_conns drv_on "$port" 500
stop on
acc=$(jget "$LL_TMP/on.json" .accepted)
timed=$(jget "$LL_TMP/on.json" .accept_queue_wait.count)
[ "$acc" = 500 ] || fail "on: observer accepted $acc, driver opened 500"
[ "$timed" = 500 ] || fail "on: $timed of 500 accepts timed"
[ "$(jget "$LL_TMP/on.json" .accept_queue_wait_unmatched)" = 0 ] || fail "on: accepts unmatched"
stop rs

# auto, an accept queue that builds: past a quarter of its backlog (16) the stamps go on, past
# half the tier attaches; the children that came after the quarter have their waits when the
# server accepts at last (without the lead, none would: all were queued before the attach)
qport=$(free_port)
start slow /usr/bin/python3 "$(dirname "$0")/slow_accept.py" "$qport" 16 "$LL_TMP/release"
wait_for slow listening
start_observer queue "$qport"
hold() { # hold N: N more connections, held open by this shell, waiting in the accept queue
	local i fd
	for i in $(seq "$1"); do exec {fd}<>"/dev/tcp/127.0.0.1/$qport" || fail "connect $i"; done
}
hold 5   # 5 of 16: a quarter, not half
sleep 2.5
hold 4   # 9: past half
sleep 2.5
n=$(sys_attached "$PID_queue")
[ "$n" -ge 2 ] || fail "queue: accept queue past half its backlog, $n sys_exit tracepoints attached"
touch "$LL_TMP/release"
wait_for slow accepted 10
sleep 1.2
stop queue
stop slow
calls=$(jget "$LL_TMP/queue.json" .accept_calls_seen)
qtimed=$(jget "$LL_TMP/queue.json" .accept_queue_wait.count)
qunm=$(jget "$LL_TMP/queue.json" .accept_queue_wait_unmatched)
echo "queue: $calls accepts seen, $qtimed timed, $qunm queued before the stamps"
[ "$calls" = 9 ] || fail "queue: $calls accepts seen, the server made 9"
[ "$qtimed" = 4 ] && [ "$qunm" = 5 ] ||
	fail "queue: $qtimed timed and $qunm unmatched, expected the 4 after the quarter timed"
pass "auto: no syscall tracepoint outside the sample, accepted exact; on: all $timed timed;" \
	"a building queue: the $qtimed queued after its quarter timed"
