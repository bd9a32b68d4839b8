#!/bin/bash
# Nothing silent: a healthy keep-alive run ends with no finding, and "drops" in the text
# summary equals the JSON's drops and lost_events; the observer's own CPU in the text and the JSON
# agree, and with the kernel's count of it just before the stop; past --max-procs the process left out is named
# by a process_cap finding, live and in the summary; an output that cannot be written (--ndjson,
# --json past a file-size limit, stdout on /dev/full) is said on stderr and the run exits 1.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver
port=$(free_port)
port2=$(free_port)

refserver_up srv1 "$port" --proto http
refserver_up srv2 "$port2" --proto tcp

# healthy keep-alive: 16 connections close at the end; no finding of any kind
start observer "$LOADLENS_BIN/loadlens-observer" --port "$port" --interval 500ms \
	--json "$LL_TMP/obs.json" --ndjson "$LL_TMP/obs.ndjson"
wait_for observer observing 60
timeout 30 "$LOADLENS_BIN/loadlens-driver" "http://127.0.0.1:$port/" -c 16 -d 2s -q \
	>"$LL_TMP/drv.out" 2>&1 || { cat "$LL_TMP/drv.out"; fail "driver"; }
sleep 1.2
# the observer's own CPU, from the kernel's accounting, just before its stop
read -r -a st < <(sed 's/.*) //' "/proc/$PID_observer/stat")
cpu_before=$(awk -v u="${st[11]}" -v s="${st[12]}" -v hz="$(getconf CLK_TCK)" \
	'BEGIN { printf "%.2f", (u + s) / hz }')
stop observer
nf=$(jq '.findings | length' "$LL_TMP/obs.json")
ev=$(jq -c 'select(.type == "finding")' "$LL_TMP/obs.ndjson" | wc -l)
iv=$(jq -c 'select(.type == "interval")' "$LL_TMP/obs.ndjson" | wc -l)
tw=$(jget "$LL_TMP/obs.json" '.forensics.census_max.TIME_WAIT')
echo "keep-alive: $nf findings, $ev finding events, $iv interval records, TIME_WAIT peak $tw"
[ "$nf" = 0 ] && [ "$ev" = 0 ] || {
	jq '.findings' "$LL_TMP/obs.json"
	fail "a healthy keep-alive run has findings"
}
[ "$iv" -ge 3 ] || fail "only $iv interval records"
grep -q "^  - none:" "$LL_TMP/observer.out" || fail "the summary does not say there is no finding"
drops_text=$(awk '$1 == "drops" { print $2 }' "$LL_TMP/observer.out")
drops_json=$(jget "$LL_TMP/obs.json" .drops)
lost_json=$(jget "$LL_TMP/obs.json" .lost_events)
echo "drops: text $drops_text, JSON drops $drops_json, lost_events $lost_json"
[ -n "$drops_text" ] && [ "$drops_text" = "$drops_json" ] && [ "$drops_json" = "$lost_json" ] ||
	fail "drops in the text ($drops_text) and JSON ($drops_json, $lost_json) differ"

# its own CPU: the summary's line and the JSON agree, and the kernel's count before the stop
cpu_json=$(jget "$LL_TMP/obs.json" .observer_cpu_s)
cpu_text=$(awk '$1 == "observer" && $2 == "CPU" { print $3 }' "$LL_TMP/observer.out")
echo "observer CPU: JSON $cpu_json s, text $cpu_text s, /proc before the stop $cpu_before s"
awk -v j="$cpu_json" -v t="$cpu_text" -v p="$cpu_before" 'BEGIN {
	exit !(j > 0 && t != "" && (t - j) ^ 2 < 0.0001 && j >= p - 0.02 && j <= p + 1) }' ||
	fail "observer CPU: JSON $cpu_json, text $cpu_text, /proc $cpu_before"
# of which to start (before "observing"): in the text, the JSON, and no more than the whole
start_json=$(jget "$LL_TMP/obs.json" .observer_start_cpu_s)
start_text=$(sed -n 's/^  observer CPU .*(\([0-9.]*\) s to start.*/\1/p' "$LL_TMP/observer.out")
echo "observer CPU to start: JSON $start_json s, text $start_text s"
awk -v j="$start_json" -v t="$start_text" -v a="$cpu_json" 'BEGIN {
	exit !(j > 0 && t != "" && (t - j) ^ 2 < 0.0001 && j <= a) }' ||
	fail "observer CPU to start: JSON $start_json, text $start_text, all $cpu_json"

# --max-procs 1 with two targets: the second is named
start observer2 "$LOADLENS_BIN/loadlens-observer" --pid "$PID_srv1" --pid "$PID_srv2" \
	--max-procs 1 --interval 250ms --no-requests --json "$LL_TMP/obs2.json"
wait_for observer2 observing 60
wait_for observer2 "processes: the watched-process limit (--max-procs 1)" 10
stop observer2
cap_pid=$(jq -r '.findings[] | select(.kind == "process_cap") | .evidence.pid' "$LL_TMP/obs2.json")
echo "process_cap names pid $cap_pid"
[ "$cap_pid" = "$PID_srv2" ] || fail "process_cap names pid $cap_pid, expected $PID_srv2"
grep -q "processes watched .*--max-procs 1; 1 more not watched" "$LL_TMP/observer2.out" ||
	fail "the summary does not count the process left out"

# outputs that cannot be written: stdout on /dev/full; the files (regular files only, see
# test_output_files.sh) past a file-size limit of 0, with SIGXFSZ ignored so writes fail EFBIG
for out in --ndjson --json stdout; do
	rc=0
	if [ "$out" = stdout ]; then
		"$LOADLENS_BIN/loadlens-observer" --port "$port" --duration 1500ms >/dev/full \
			2>"$LL_TMP/full.err" || rc=$?
		want="No space left on device"
	else
		# stderr through a pipe: the limit holds for every regular file the observer writes
		bash -c 'trap "" XFSZ; ulimit -f 0; exec "$@"' sh \
			"$LOADLENS_BIN/loadlens-observer" --port "$port" --duration 1500ms \
			"$out" "$LL_TMP/big.${out#--}" 2>&1 >/dev/null | cat >"$LL_TMP/full.err"
		rc=${PIPESTATUS[0]}
		want="File too large"
	fi
	echo "$out: exit $rc: $(grep cannot "$LL_TMP/full.err")"
	[ "$rc" = 1 ] || fail "$out: exit $rc, expected 1"
	grep -q "$want" "$LL_TMP/full.err" || fail "$out: the error is not said"
done
stop srv2
stop srv1
pass "healthy run silent, drops = lost events, --max-procs named, write errors exit 1"
