#!/bin/bash
# --arrivals sampled: request arrivals (sk_data_ready) are stamped one interval in ten only (one
# second in ten with --interval 0).
# Counts and service times must still cover every request; queue wait and residence cover the
# requests that arrived in a window. UDP is the hard case: datagrams queued while stamping was
# off have no stamp, and the reader takes them first, so each window must start its arrival ring
# behind them. Checked under overload, where the socket queue is full across the window's start:
# the sampled queue wait must match the one an always-stamping observer sees (a ring out of step
# reads waits near 0 there). Two observers watch the same UDP server at once, one stamping always:
# the same datagrams' queue waits. The servers run at SCHED_FIFO where allowed (refserver_up --rt).
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

# TCP keep-alive, light load: every request counted and served, a part of them with arrivals.
# As an agent runs (--interval 0: no interval lines, a tick a second): its windows are ticks.
port=$(free_port)
refserver_up --rt rs_tcp "$port" --proto tcp --service-time 1ms --workers 1
start_observer obs_tcp "$port" --arrivals sampled --interval 0
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

# UDP overload, one observer stamping always and one sampled on the same server at once: the
# same datagrams, so the sampled queue wait must agree with the always one's (two runs apart did
# not: how deep each overload's queue got differed by 2x between runs, 211 and 397 ms always)
port=$(free_port)
refserver_up --rt rs_udp "$port" --proto udp --service-time 1ms --workers 1
start_observer obs_udp_always "$port"
start_observer obs_udp_sampled "$port" --arrivals sampled
load_cpu timeout 40 python3 "$CLIENT" --proto udp --target "127.0.0.1:$port" \
	--rate 1300 --duration 7 >"$LL_TMP/cl_udp.json" || fail "udp: client failed"
sleep 0.2
stop obs_udp_always
stop obs_udp_sampled
stop rs_udp
slot='.request_timing.slots[] | select(.proto == "udp")'
answered=$(jget "$LL_TMP/rs_udp.json" .responses)
for name in udp_always udp_sampled; do
	got=$(jget "$LL_TMP/obs_$name.json" "$slot | .requests")
	[ "$got" = "$answered" ] || fail "$name: observer counted $got, server answered $answered"
done
qa=$(jget "$LL_TMP/obs_udp_always.json" "$slot | .socket_queue_wait.p50")
qs=$(jget "$LL_TMP/obs_udp_sampled.json" "$slot | .socket_queue_wait.p50")
cs=$(jget "$LL_TMP/obs_udp_sampled.json" "$slot | .socket_queue_wait.count")
rq=$(jget "$LL_TMP/obs_udp_sampled.json" "$slot | .requests")
echo "udp overload: queue wait p50 always $qa ns, sampled $qs ns ($cs of $rq requests)"
[ "$cs" -gt 0 ] && [ "$cs" -lt "$rq" ] || fail "udp: $cs queue waits: not a sample of $rq"
awk -v a="$qa" 'BEGIN { exit !(a > 20000000) }' || fail "udp: no overload queue ($qa ns)"
# the sampled waits are one window's (about 1 s of 7), the always ones the whole run's: where the
# window falls in the overload's growth moves its p50 (-2% and +28% seen); a ring out of step reads
# waits near 0
check_within "udp sampled queue wait p50 vs always, the same datagrams" "$qs" "$qa" 50
pass "arrivals sampled: counts and service exact, queue waits a sample; UDP ring in step"
