#!/bin/bash
# Request timing over TCP against the reference server at a fixed 1 ms service time, request by
# request: each request's observed read and first write lie within the server's own moments
# (reqtime_pairs.py: after its previous write returned and before its read callback; after its
# service ended and before its write call returned); the observer's service-time p50 within ±2%
# and p99 within ±5% of the server's own; every request counted exactly once (observer = driver =
# server); at low load (one request in flight) and near saturation (8 in flight on one worker, so a
# queue forms); keep-alive (all requests of a run on 1 or 8 connections) and a new connection per
# 10 requests, where a connection's first request must be timed like the others.
#
# The server runs at a real-time priority (SCHED_FIFO) when it can (refserver_up --rt): the
# observer's service time runs from the kernel's read to the transmit, the server's own from
# after its read callback began to before its write, so a preemption by another process in
# between (the return from read(), the path into the write) is in the first and not in the
# second. Under SCHED_FIFO no other process preempts the server, and both measure the same work.
# What SCHED_FIFO cannot stop is the host: on a virtual machine it stalls some of the server's
# write calls on the way to the transmit, which the observer's span holds and the server's clock
# does not (that moved the p99 by +10-14% on 2026-11-26). The server's trace holds the kernel's
# transmit moment (a software transmit timestamp), so the p99 is compared over the requests whose
# write call reached the transmit within 3x its median, at least 90% of them; the stalled ones are
# still held to the bounds above. (The whole write call cannot tell them apart: it also holds the
# delivery to the client after the transmit, over 150 us in 10-45% of the calls on 2026-11-27,
# which CI once read as 198 of 1500 stalls.) What moves one run beyond that (a softirq, a busy CI
# machine) runs the case up to twice more, its counts and bounds exact each time.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-refserver loadlens-driver
[ -x /usr/bin/python3 ] || skip "needs /usr/bin/python3 to read the --trace file"

# run NAME CONNS REQUESTS [DRIVER ARGS...]
run() {
	local name=$1 c=$2 n=$3 port obs rs drv slot
	shift 3
	port=$(free_port)
	refserver_up --rt "rs_$name" "$port" --proto tcp --service-time 1ms --workers 1 \
		--trace "$LL_TMP/rs_trace_$name.csv"
	start_observer "obs_$name" "$port" --trace "$LL_TMP/obs_trace_$name.csv" ${OBS_ARGS:-}
	load_cpu "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" -c "$c" -n "$n" -q \
		--json "$LL_TMP/drv_$name.json" "$@" >"$LL_TMP/drv_$name.out" 2>&1 ||
		fail "driver exited $? ($(tail -3 "$LL_TMP/drv_$name.out"))"
	sleep 0.2
	stop "obs_$name"
	stop "rs_$name"
	obs=$LL_TMP/obs_$name.json rs=$LL_TMP/rs_$name.json drv=$LL_TMP/drv_$name.json
	slot='.request_timing.slots[] | select(.proto == "tcp")'

	[ "$(jget "$drv" .requests)" = "$n" ] || fail "$name: driver completed $(jget "$drv" .requests) of $n"
	[ "$(jget "$rs" .responses)" = "$n" ] || fail "$name: server answered $(jget "$rs" .responses) of $n"
	[ "$(jget "$obs" "$slot | .requests")" = "$n" ] ||
		fail "$name: observer counted $(jget "$obs" "$slot | .requests") requests, driver $n"
	[ "$(jget "$obs" "$slot | .unanswered")" = 0 ] || fail "$name: unanswered requests"
	[ "$(jget "$obs" "$slot | .service_time.count")" = "$n" ] || fail "$name: service count"
	[ "$(jget "$obs" "$slot | .socket_queue_wait.count")" = "$n" ] ||
		fail "$name: queue wait count $(jget "$obs" "$slot | .socket_queue_wait.count"), $n expected"
	# each request's stamps within the server's own moments: exact, or the test fails
	/usr/bin/python3 "$(dirname "$0")/reqtime_pairs.py" "$LL_TMP/obs_trace_$name.csv" \
		"$LL_TMP/rs_trace_$name.csv" "$n" >"$LL_TMP/pairs_$name.txt" ||
		fail "$name: $(cat "$LL_TMP/pairs_$name.txt")"
	local pairs o50 r50 o99 r99 calm
	pairs=$(cat "$LL_TMP/pairs_$name.txt")
	echo "$name: $pairs"
	o50=$(jget "$obs" "$slot | .service_time.p50") r50=$(jget "$rs" .service_time.p50)
	o99=$(kv "$pairs" calm_obs_p99) r99=$(kv "$pairs" calm_srv_p99) calm=$(kv "$pairs" calm)
	# a host that stalls more than a tenth of the transmits leaves too few to compare: like a
	# missed p99, the caller runs the case again
	if [ $((calm * 100)) -lt $((n * 90)) ]; then
		LAST_MISS="$name: the host stalled $((n - calm)) of the server's $n transmits (at most 10%)"
		echo "note: $LAST_MISS"
		return 1
	fi
	# a preemption the real-time priority cannot stop can move a p99 once: the caller runs again
	if ! within_pct "$o50" "$r50" 2 || ! within_pct "$o99" "$r99" 5; then
		LAST_MISS="$name: service p50 $o50 vs $r50, p99 $o99 vs $r99 (limits ±2%, ±5%)"
		echo "note: $LAST_MISS"
		return 1
	fi
	check_within "$name service p50" "$o50" "$r50" 2
	check_within "$name service p99, $calm requests whose write call the host did not stall" \
		"$o99" "$r99" 5
	echo "$name: queue p50 $(jget "$obs" "$slot | .socket_queue_wait.p50") ns," \
		"residence p50 $(jget "$obs" "$slot | .residence.p50") ns"
}

# kv "k=v k2=v2 ..." KEY: the value of KEY
kv() {
	local f
	for f in $1; do [ "${f%%=*}" = "$2" ] && echo "${f#*=}" && return; done
	fail "no $2 in: $1"
}

# up to two more runs of a case whose timing missed (counts and bounds must be exact in each): on
# this VM the server's own p99 sits 13-35% above its 1 ms of service on some days (steal and
# interrupts it cannot stop even at SCHED_FIFO)
twice() {
	run "$@" || { echo "note: $1 again: the machine is shared"; run "$@"; } ||
		{ echo "note: $1 a third time"; run "$@"; } || fail "three times: $LAST_MISS"
}
twice low 1 1500
twice saturated 8 3000
# accept times come from the syscall tier, which the default (auto) attaches only in samples
OBS_ARGS="--syscalls on" twice reconnect 2 1000 \
	--reconnect-every 10
# near saturation the requests queue behind each other: 7 ahead of each, about 7 ms
q=$(jget "$LL_TMP/obs_saturated.json" '.request_timing.slots[0].socket_queue_wait.p50')
[ "$q" -gt 5000000 ] || fail "saturated: queue wait p50 $q ns, expected about 7 ms"
# a new connection every 10 requests: each connection's first request has an accept share
a=$(jget "$LL_TMP/obs_reconnect.json" '.request_timing.slots[0].accept_queue_share.count')
[ "$a" = 100 ] || fail "reconnect: $a first requests with an accept-queue share, 100 expected"
# A connection's first request is timed like the others: the median service of first requests
# within 1% (10 us) of the others'. (The first write was once stamped after the client's quick ACK
# was processed at the end of the write, which put the delivery to the client, +15-35 us, into
# every first request's service.)
/usr/bin/python3 - "$LL_TMP/obs_trace_reconnect.csv" >"$LL_TMP/first.txt" <<'PY' ||
import csv, statistics, sys
# a connection's first request is the one with an accept time (the syscall tier is on)
rows = list(csv.DictReader(l for l in open(sys.argv[1]) if not l.startswith("#")))
first = [int(r["service_ns"]) for r in rows if r["accept_ns"] != "0"]
rest = [int(r["service_ns"]) for r in rows if r["accept_ns"] == "0"]
print(len(first), len(rest), int(statistics.median(first)), int(statistics.median(rest)))
PY
	fail "reconnect: cannot read the trace"
read -r nf nr mf mr <"$LL_TMP/first.txt"
[ "$nf" = 100 ] && [ "$nr" = 900 ] || fail "reconnect: trace has $nf first and $nr other requests"
check_within "reconnect first requests' service p50 vs the others'" "$mf" "$mr" 1
pass "request timing over TCP matches the reference server"
