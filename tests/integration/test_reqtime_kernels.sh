#!/bin/bash
# Request timing with the mechanism this kernel offers (docs/observer.md, "Kernels"): the sock:
# tracepoints (6.3+) or BPF trampolines on the functions they sit in (fentry/fexit, before 6.3).
# Against the reference server at 1 ms and 5 ms of service (one request in flight, keep-alive):
# every request counted exactly once (observer = driver = server) and the observer's service p50
# within 2% of the server's own. Where the kernel offers both mechanisms (trampolines and the
# tracepoints, e.g. Debian's 6.12), both run and must agree within 2%.
#
# Under an emulated CPU (qemu TCG, the kernel matrix: LL_EMULATED_CPU=1) a syscall's way in and
# out costs 50-100 us where it costs about 1 us here, and the observer's service time (the
# kernel's read to the transmit) holds that path while the server's own clock (its read callback
# to its write call) does not. So there the gap is measured first, in the same boot, at a service
# time of 0 (the server's own p50 is then 0 to 2 us), and taken off before the 2% comparison; the
# test prints it. Nothing is corrected on a real CPU.
. "$(dirname "$0")/lib.sh"
require_bpf
require_bin loadlens-observer loadlens-refserver loadlens-driver

N=${LL_REQTIME_N:-400}

# run NAME SERVICE MECH: one keep-alive run; sets OBS_P50 and RS_P50 (ns)
run() {
	local name=$1 svc=$2 mech=$3 port obs rs drv slot n
	port=$(free_port)
	start_refserver_rt "rs_$name" tcp "$port" --service-time "$svc" --workers 1
	LOADLENS_OBSERVER_TIMING=$mech start_observer "obs_$name" "$port"
	load_cpu "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" -c 1 -n "$N" -q \
		--json "$LL_TMP/drv_$name.json" >"$LL_TMP/drv_$name.out" 2>&1 ||
		fail "driver exited $? ($(tail -3 "$LL_TMP/drv_$name.out"))"
	sleep 0.2
	stop "obs_$name"
	stop "rs_$name"
	obs=$LL_TMP/obs_$name.json rs=$LL_TMP/rs_$name.json drv=$LL_TMP/drv_$name.json
	slot='.request_timing.slots[] | select(.proto == "tcp")'
	[ "$(jget "$obs" .request_timing.features.mechanism)" = "$mech" ] ||
		fail "$name: mechanism $(jget "$obs" .request_timing.features.mechanism), $mech asked"
	[ "$(jget "$drv" .requests)" = "$N" ] || fail "$name: driver completed $(jget "$drv" .requests) of $N"
	[ "$(jget "$rs" .responses)" = "$N" ] || fail "$name: server answered $(jget "$rs" .responses) of $N"
	n=$(jget "$obs" "$slot | .requests")
	[ "$n" = "$N" ] || fail "$name: observer counted $n requests, driver and server $N"
	[ "$(jget "$obs" "$slot | .service_time.count")" = "$N" ] || fail "$name: service count"
	[ "$(jget "$obs" "$slot | .socket_queue_wait.count")" = "$N" ] || fail "$name: queue count"
	[ "$(jget "$obs" .accepted)" = 1 ] || fail "$name: accepted $(jget "$obs" .accepted), 1 expected"
	OBS_P50=$(jget "$obs" "$slot | .service_time.p50")
	RS_P50=$(jget "$rs" .service_time.p50)
	echo "$name ($mech on $(uname -r)): $N = $N = $N requests; service p50 observer $OBS_P50 ns," \
		"server $RS_P50 ns"
}

# mech_here WANT: the mechanism the observer's --check chooses (LOADLENS_OBSERVER_TIMING=WANT)
mech_here() {
	LOADLENS_OBSERVER_TIMING=$1 "$LOADLENS_BIN/loadlens-observer" --check=json 2>/dev/null |
		jq -r '.features[] | select(.feature | startswith("request timing")) | .mechanism' |
		awk '{print $1}'
}
best=$(mech_here auto)
case $best in
tracepoints | fentry) ;;
*) fail "request timing is off on $(uname -r): $("$LOADLENS_BIN/loadlens-observer" --check 2>/dev/null | grep 'request timing')" ;;
esac
mechs=$best
if [ "$best" = tracepoints ]; then
	if [ "$(mech_here fentry)" = fentry ]; then
		mechs="tracepoints fentry"
	else
		echo "note: this kernel refuses BPF trampolines: only the tracepoints are timed"
	fi
fi

gap=0
for mech in $mechs; do
	if [ -n "${LL_EMULATED_CPU:-}" ]; then
		run "floor_$mech" 0 "$mech"
		gap=$((OBS_P50 - RS_P50))
		echo "emulated CPU: the syscall path costs $gap ns here (service 0: observer $OBS_P50," \
			"server $RS_P50); taken off below"
	fi
	for svc in 1ms 5ms; do
		run "${svc}_$mech" "$svc" "$mech"
		check_within "$svc $mech service p50" "$((OBS_P50 - gap))" "$RS_P50" 2
		eval "P50_${svc}_$mech=$OBS_P50"
	done
done
if [ "$mechs" = "tracepoints fentry" ]; then
	check_within "1ms fentry against tracepoints" "$P50_1ms_fentry" "$P50_1ms_tracepoints" 2
	check_within "5ms fentry against tracepoints" "$P50_5ms_fentry" "$P50_5ms_tracepoints" 2
fi
pass "request timing by $mechs on $(uname -r): counts exact, service p50 within 2% of the server's"
