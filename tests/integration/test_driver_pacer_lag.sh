#!/usr/bin/env bash
# The pacer keeps time. At 2k/s (udp, 4 slots, the server on CPU 0, the driver on
# CPU 1), the send lag median must be under 15 us: a timer per send woke 27-57 us late on this
# kind of VM. The run's counts stay exact. One retry: the machine is shared. The run says why
# sends ran late: the worker's timer wake-ups (one per send or fewer, never one per request in
# the closed loop, whose only timers are the sweep's), involuntary switches, run-queue wait.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
P=$(free_port)
refserver_up --pin srv "$P" --proto udp

try() {
	local name=$1
	load_cpu "$LOADLENS_BIN/loadlens-driver" "udp://127.0.0.1:$P" -c 4 --rate 2000 -d 2s \
		--timeout 1s -q --json "$LL_TMP/$name.json" >"$LL_TMP/$name.out" 2>&1 ||
		fail "driver exited $?: $(cat "$LL_TMP/$name.out")"
	# every scheduled request is sent or, if the clock passed -d first, counted as not sent
	[ "$(jq '.requests + .not_sent' "$LL_TMP/$name.json")" = 4000 ] ||
		fail "$name: $(jq '"\(.requests) requests + \(.not_sent) not sent"' "$LL_TMP/$name.json"), expected 4000"
	p50=$(jget "$LL_TMP/$name.json" .send_lag.p50)
	p99=$(jget "$LL_TMP/$name.json" .send_lag.p99)
	n=$(jget "$LL_TMP/$name.json" .send_lag.count)
	echo "$name: send lag p50 ${p50}ns p99 ${p99}ns over $n sends (load $(cut -d' ' -f1 /proc/loadavg))"
	# on a busy machine most sends find their time already passed: run again (below)
	[ "$n" -gt 400 ] || { echo "note: $name: only $n sends waited for their time"; return 1; }
	wk=$(jget "$LL_TMP/$name.json" .driver.timer_wakeups)
	[ "$wk" -gt 100 ] && [ "$wk" -le 4100 ] ||
		fail "$name: $wk timer wake-ups for 4000 paced sends"
	jq -e '.driver.involuntary_switches >= 0 and .driver.runq_wait_ns >= 0 and
		.driver.spin_ns >= 0' "$LL_TMP/$name.json" >/dev/null ||
		fail "$name: no scheduling figures: $(jq -c .driver "$LL_TMP/$name.json")"
	[ "$p50" -lt 15000 ]
}
# the closed loop sleeps on its replies, not on the timer: the sweep (every 250 ms) wakes it
load_cpu "$LOADLENS_BIN/loadlens-driver" "udp://127.0.0.1:$P" -c 4 -d 1s --timeout 1s -q \
	--json "$LL_TMP/closed.json" >"$LL_TMP/closed.out" 2>&1 || fail "closed loop: $(cat "$LL_TMP/closed.out")"
wk=$(jget "$LL_TMP/closed.json" .driver.timer_wakeups)
[ "$wk" -le 10 ] || fail "closed loop: $wk timer wake-ups in 1s (the sweep alone: 4)"
grep -q '^  scheduling' "$LL_TMP/closed.out" &&
	fail "closed loop: a scheduling line without send lag: $(cat "$LL_TMP/closed.out")"
try lag1 || try lag2 || fail "send lag p50 ${p50}ns over $n waiting sends, limit 15us and more than 400 (twice)"
pass "send lag p50 ${p50}ns at 2k/s"
