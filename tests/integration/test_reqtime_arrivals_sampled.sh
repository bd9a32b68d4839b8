#!/bin/bash
# --arrivals sampled: request arrivals (sk_data_ready) are stamped one interval in ten only.
# Counts and service times must still cover every request; queue wait and residence cover the
# requests that arrived in a window. UDP is the hard case: datagrams queued while stamping was
# off have no stamp, and the reader takes them first, so each window must start its arrival ring
# behind them. Checked under overload, where the socket queue is full across the window's start:
# the sampled queue wait must match the one an always-stamping observer sees (a ring out of step
# reads waits near 0 there). The servers run at SCHED_FIFO where allowed (refserver_up --rt): the
# two UDP runs compare queue waits, which follow the server's throughput, so a busy-looping server
# that loses its CPU to other processes in one run and not in the other is not a sampling error.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-refserver loadlens-driver
command -v python3 >/dev/null || skip "python3 is needed for the open-loop client"
command -v bpftool >/dev/null || skip "bpftool is not installed"
CLIENT=$(dirname "$0")/openloop_client.py

# arrival programs attached by observer pid $1 or its helper children
arrivals_attached() {
	local pids
	pids=$(printf '%s,' "$1" $(pgrep -P "$1"))
	bpftool perf -j | jq -r --argjson p "[${pids%,}]" \
		'[.[] | select(.pid as $x | $p | index($x)) | select(.tracepoint == "sk_data_ready")]
		 | length'
}

# TCP keep-alive, light load: every request counted and served, a part of them with arrivals
port=$(free_port)
refserver_up --rt rs_tcp "$port" --proto tcp --service-time 1ms --workers 1
start_observer obs_tcp "$port" --arrivals sampled
sleep 1
n=$(arrivals_attached "$PID_obs_tcp")
[ "$n" = 0 ] || fail "tcp: sk_data_ready attached at t=1s outside a window ($n)"
load_cpu "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" -c 4 --rate 300 -d 6s -q \
	--json "$LL_TMP/drv_tcp.json" >"$LL_TMP/drv_tcp.out" 2>&1 || fail "tcp driver exited $?"
sleep 0.2
stop obs_tcp
stop rs_tcp
slot='.request_timing.slots[] | select(.proto == "tcp")'
drv=$(jget "$LL_TMP/drv_tcp.json" .requests)
req=$(jget "$LL_TMP/obs_tcp.json" "$slot | .requests")
svc=$(jget "$LL_TMP/obs_tcp.json" "$slot | .service_time.count")
qc=$(jget "$LL_TMP/obs_tcp.json" "$slot | .socket_queue_wait.count")
echo "tcp: driver $drv, observer $req requests, $svc service times, $qc queue waits"
[ "$req" = "$drv" ] || fail "tcp: observer counted $req requests, driver $drv"
[ "$svc" = "$drv" ] || fail "tcp: $svc service times for $drv requests"
[ "$qc" -gt 0 ] && [ "$qc" -lt "$drv" ] || fail "tcp: $qc queue waits: not a sample of $drv"
check_within "tcp service p50" "$(jget "$LL_TMP/obs_tcp.json" "$slot | .service_time.p50")" \
	"$(jget "$LL_TMP/rs_tcp.json" .service_time.p50)" 2
[ "$(jget "$LL_TMP/obs_tcp.json" .request_timing.features.arrivals)" = sampled ] ||
	fail "tcp: features.arrivals is not sampled"

# UDP overload, stamping always and sampled: the steady queue wait must agree
udp_run() {
	local name=$1
	shift
	port=$(free_port)
	refserver_up --rt "rs_$name" "$port" --proto udp --service-time 1ms --workers 1
	start_observer "obs_$name" "$port" "$@"
	load_cpu timeout 40 python3 "$CLIENT" --proto udp --target "127.0.0.1:$port" \
		--rate 1300 --duration 7 >"$LL_TMP/cl_$name.json" || fail "$name: client failed"
	sleep 0.2
	stop "obs_$name"
	stop "rs_$name"
}
# one pair of runs: counts exact, and the sampled queue wait within 25% of the always one's
udp_pair() {
	local name qa qs cs rq
	udp_run udp_always
	udp_run udp_sampled --arrivals sampled
	slot='.request_timing.slots[] | select(.proto == "udp")'
	for name in udp_always udp_sampled; do
		[ "$(jget "$LL_TMP/obs_$name.json" "$slot | .requests")" = \
			"$(jget "$LL_TMP/rs_$name.json" .responses)" ] ||
			fail "$name: observer counted $(jget "$LL_TMP/obs_$name.json" "$slot | .requests")," \
				"server answered $(jget "$LL_TMP/rs_$name.json" .responses)"
	done
	qa=$(jget "$LL_TMP/obs_udp_always.json" "$slot | .socket_queue_wait.p50")
	qs=$(jget "$LL_TMP/obs_udp_sampled.json" "$slot | .socket_queue_wait.p50")
	cs=$(jget "$LL_TMP/obs_udp_sampled.json" "$slot | .socket_queue_wait.count")
	rq=$(jget "$LL_TMP/obs_udp_sampled.json" "$slot | .requests")
	echo "udp overload: queue wait p50 always $qa ns, sampled $qs ns ($cs of $rq requests)"
	[ "$cs" -gt 0 ] && [ "$cs" -lt "$rq" ] || fail "udp: $cs queue waits: not a sample of $rq"
	awk -v a="$qa" 'BEGIN { exit !(a > 20000000) }' || fail "udp: no overload queue ($qa ns)"
	QA=$qa QS=$qs
	within_pct "$qs" "$qa" 25
}
# The two runs are apart: how deep each overload's queue gets (a 7 s run at 1.3x the capacity)
# differs on a shared machine (one CI run: 215 ms always, 383 ms sampled, the counts exact); one
# more pair before the comparison fails.
udp_pair || { echo "note: sampled $QS ns vs always $QA ns: one more pair"; udp_pair; } ||
	check_within "udp sampled queue wait p50 vs always" "$QS" "$QA" 25
check_within "udp sampled queue wait p50 vs always" "$QS" "$QA" 25
pass "arrivals sampled: counts and service exact, queue waits a sample; UDP ring in step"
