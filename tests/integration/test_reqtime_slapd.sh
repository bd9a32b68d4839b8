#!/usr/bin/env bash
# Request timing on Debian's slapd (10,000 entries, one entry a search) against slapd's own stats
# log, request by request (slapd_etime.py): the observer's requests = slapd's searches + binds,
# exactly; and its mean service to the last write within 2% of slapd's mean etime once the two
# fixed edges are accounted for. slapd 2.5's pool thread reads a PDU in two reads (liblber: the
# tag and length, then the rest) and takes o_time after the second and the messageID's decoding;
# the observer starts at the first: that start offset (6-9 us on a slow day, 2 on a fast one) is measured per request, o_time
# less the observer's read, and removed. slapd stamps etime after its last write() returned and
# the reply's bookkeeping ran (perf on raw_syscalls, bench/slapd_edges.sh: 3 us where the start
# offset was 6-9 us, 0.9 us where it was 2.1 us on a faster day); the observer ends inside that
# write: 0.4 of the run's mean start offset is added (slapd_etime.py's 0.4x). Without the two
# edges the observer is +3.7..+5.3% of etime on a slow day.
# Healthy: 16 connections, slapd's default threads. Saturated: "threads 2", slapd pinned to CPU 0
# and 256 connections from CPU 1, so that the searches queue before slapd reads them (socket-queue
# wait p50 over 1 ms, a saturation finding named (below), none in the healthy run; slapd's qtime stays a few
# us: the thread that reads a PDU runs it). slapd runs at SCHED_FIFO where allowed, as the
# reference server does in test_reqtime_tcp_accuracy.sh: a preemption on the way out of the last
# write() falls in etime and not in the observer's window (one on the way out of the first read
# falls in the start offset, and is removed with it). A case whose timing misses runs up to twice
# more, its counts exact each time. ~15-30 s.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-driver
command -v jq >/dev/null || skip "jq is not installed"
require_slapd
N=${LL_SLAPD_SEARCHES:-20000}
CHECK=$(dirname "$0")/slapd_etime.py
RT=()
if chrt -f 10 true 2>/dev/null; then
	RT=(chrt -f 10)
else
	echo "note: cannot run slapd at SCHED_FIFO; timings may include preemptions by others"
fi

# case NAME CONNS THREADS SEARCHES: slapd with THREADS pool threads (0: its default), the observer
# with --trace, SEARCHES searches on CONNS connections; returns 2 when only the timing missed
case_() {
	local name=$1 c=$2 threads=$3 n=$4 port pin=() rc=0
	local dir=$LL_TMP/$name
	LAST=$name
	if [ "$threads" = 0 ]; then slapd_db "$dir" stats; else slapd_db "$dir" stats "threads $threads"; fi ||
		{ cat "$dir/slapadd.out"; fail "slapadd of 10,000 entries failed"; }
	[ "$threads" != 0 ] && [ "$(nproc)" -ge 2 ] && pin=(taskset -c 0)
	port=$(free_port)
	start "slapd_$name" "${pin[@]}" "${RT[@]}" "$SLAPD" -h "ldap://127.0.0.1:$port/" \
		-f "$dir/slapd.conf" -d 256
	wait_for "slapd_$name" "slapd starting" 30
	start_observer "obs_$name" "$port" --trace "$LL_TMP/trace_$name.csv"
	if [ -n "${pin[*]}" ]; then DRV=(taskset -c 1); else DRV=(); fi
	timeout 300 "${DRV[@]}" "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" --proto ldap \
		--base ou=people,dc=example,dc=com --filter '(uid=user{{rand:0-9999}})' -c "$c" -n "$n" \
		--timeout 60s -q --json "$LL_TMP/drv_$name.json" >"$LL_TMP/drv_$name.out" 2>&1 ||
		fail "$name: driver exited $? ($(tail -3 "$LL_TMP/drv_$name.out"))"
	expect_json "$name: searches" "$LL_TMP/drv_$name.json" .ldap.searches "$n"
	sleep 0.3
	stop "obs_$name" "slapd_$name"
	/usr/bin/python3 "$CHECK" "$name" "$LL_TMP/slapd_$name.err" "$LL_TMP/obs_$name.json" \
		"$LL_TMP/trace_$name.csv" "$port" 2 0.4x || rc=$?
	[ "$rc" = 0 ] || [ "$rc" = 2 ] || fail "$name: counts or the request-by-request join (above)"
	return "$rc"
}
# up to two more runs of a case whose timing missed: the machine is shared
thrice() {
	case_ "$1" "$2" "$3" "$4" || case_ "${1}_2" "$2" "$3" "$4" || case_ "${1}_3" "$2" "$3" "$4" ||
		fail "$1: the timing missed three times (above)"
}
thrice healthy 16 0 "$N"
H=$LAST
# 6x the searches: 20,000 at saturation took 1-2 s on a quiet host, too short for the 2 intervals
# of a saturation finding, and 60,000 took ~2 s on a fast day (27k searches/s)
thrice saturated 256 2 $((6 * N))
q=$(jget "$LL_TMP/obs_$LAST.json" \
	'.request_timing.slots[] | select(.proto == "tcp") | .socket_queue_wait.p50')
[ "$q" -gt 1000000 ] || fail "saturated: socket-queue wait p50 $q ns: no queue formed"
echo "saturated: socket-queue wait p50 $q ns"
# the check fires on a request count or join that does not hold: the healthy run's observer
# against the saturated run's slapd log
rc=0
/usr/bin/python3 "$CHECK" mixed "$LL_TMP/slapd_$LAST.err" "$LL_TMP/obs_$H.json" \
	"$LL_TMP/trace_$H.csv" "$(jget "$LL_TMP/obs_$H.json" '.request_timing.slots[0].port')" \
	2 0.4x >"$LL_TMP/mixed.out" 2>&1 || rc=$?
[ "$rc" = 1 ] && grep -q "observer counted" "$LL_TMP/mixed.out" ||
	fail "the check passed (exit $rc) on another run's log: $(cat "$LL_TMP/mixed.out")"
# the queue before slapd's reads is named: its 2 pool threads full (worker_saturation), or, where
# they keep slapd's one CPU busy themselves (a quiet host: 2.0 waiting, 1.0 running), that CPU
# (cpu_saturation, "more workers would not help"); the healthy run has neither
sat='[.findings[] | select(.kind == "worker_saturation" or .kind == "cpu_saturation")] | length'
[ "$(jq "$sat" "$LL_TMP/obs_$H.json")" = 0 ] ||
	fail "healthy: saturation named: $(jq -c '[.findings[] | .text]' "$LL_TMP/obs_$H.json")"
[ "$(jq "$sat" "$LL_TMP/obs_$LAST.json")" -ge 1 ] ||
	fail "saturated: no saturation named: $(jq -c '[.findings[] | .text]' "$LL_TMP/obs_$LAST.json")"

# --lean auto (no --trace) over 4 s: slapd writes a search's entries and its Done apart, so the
# lean hooks stay (the copy hook alone could not time those responses: tried, it left half the
# searches of a 2 s run without an arrival); every search keeps its arrival
dir=$LL_TMP/lean
slapd_db "$dir" 0 || { cat "$dir/slapadd.out"; fail "slapadd of 10,000 entries failed"; }
port=$(free_port)
start slapd_lean "$SLAPD" -h "ldap://127.0.0.1:$port/" -f "$dir/slapd.conf" -d 256
wait_for slapd_lean "slapd starting" 30
start_observer obs_lean "$port"
"$LOADLENS_BIN/loadlens-driver" "ldap://127.0.0.1:$port/ou=people,dc=example,dc=com?cn?sub?(uid=user{{rand:0-10999}})" \
	-c 4 -d 4s -q --json "$LL_TMP/drv_lean.json" >"$LL_TMP/drv_lean.out" 2>&1 ||
	fail "lean: driver exited $? ($(tail -3 "$LL_TMP/drv_lean.out"))"
sleep 0.3
stop obs_lean slapd_lean
O=$LL_TMP/obs_lean.json
slot='.request_timing.slots[] | select(.proto == "tcp")'
echo "lean: $(jq -c "{no_arrival: ($slot | .no_arrival), untimed: ($slot | .untimed),
	requests: ($slot | .requests), lean: .request_timing.features.lean_state,
	why: .request_timing.features.lean_reason}" "$O")"
expect_json "lean: the observer's requests (searches + binds)" "$O" "$slot | .requests" \
	"$(jq '.ldap.searches + .ldap.bind.success' "$LL_TMP/drv_lean.json")"
[ "$(jq "[$slot | .no_arrival * 100 <= .requests] | all" "$O")" = true ] ||
	fail "lean: more than 1% of the searches without an arrival stamp"
[ "$(jget "$O" .request_timing.features.lean_state)" = lean ] &&
	jget "$O" .request_timing.features.lean_reason | grep -q "written in several writes" ||
	fail "lean: not the lean hooks for responses written in pieces"
pass "slapd: requests equal its stats log; service within 2% of etime, healthy and saturated;" \
	"--lean auto keeps every arrival"
