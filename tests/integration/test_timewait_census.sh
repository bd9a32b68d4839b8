#!/bin/bash
# TIME_WAIT census: the observer's census (sock_diag) and its TIME_WAIT entries (tracepoint)
# against `ss -tan state time-wait` taken at the same moment, during churn and after it.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver
port=$(free_port)
n=6000

refserver_up refserver "$port" --proto tcp
start observer "$LOADLENS_BIN/loadlens-observer" --port "$port" --interval 200ms \
	--ndjson "$LL_TMP/obs.ndjson" --json "$LL_TMP/obs.json"
wait_for observer observing 60

tw_now() { ss -Htan state time-wait "( sport = :$port or dport = :$port )" | wc -l; }

# during churn: ss samples with their wall-clock time, compared with the nearest census
timeout 60 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" -c 2 -n "$n" --new-conn \
	--json "$LL_TMP/driver.json" -q >"$LL_TMP/driver.out" 2>&1 &
drv=$!
: >"$LL_TMP/ss.txt"
while kill -0 "$drv" 2>/dev/null; do
	echo "$(date +%s.%N) $(tw_now)" >>"$LL_TMP/ss.txt"
	sleep 0.1
done
wait "$drv" || { st=$?; cat "$LL_TMP/driver.out"; fail "driver exited $st"; }
sleep 1 # a census after the last connection (censuses are spaced to take <= 1% of a CPU)
settled_ss=$(tw_now)
sleep 0.5
settled_ss2=$(tw_now)
stop observer
stop refserver

conns=$(jget "$LL_TMP/driver.json" .connections)
[ "$conns" = "$n" ] || fail "driver opened $conns connections, expected $n"
last_census=$(jq -sr 'map(select(.census != null)) | last | .census.TIME_WAIT' "$LL_TMP/obs.ndjson")
entries=$(jget "$LL_TMP/obs.json" .forensics.time_wait_entries)
echo "after churn: ss $settled_ss / $settled_ss2, census $last_census, tracepoint entries $entries"
[ "$settled_ss" = "$settled_ss2" ] || fail "TIME_WAIT not stable after churn (60 s lifetime?)"
[ "$last_census" = "$settled_ss" ] || fail "census TIME_WAIT $last_census != ss $settled_ss"
[ "$entries" = "$n" ] || fail "TIME_WAIT entries from the tracepoint $entries != $n connections"
[ "$settled_ss" = "$n" ] || fail "ss shows $settled_ss TIME_WAIT, expected $n"

# during churn: |census - ss| <= connections that changed state between the two readings:
# the peak TIME_WAIT entry rate times the gap (plus 50 ms for the two readings themselves)
peak=$(jq -s 'map(.time_wait.per_s) | max' "$LL_TMP/obs.ndjson")
checked=0
while read -r ts cnt; do
	rec=$(jq -c --argjson ts "$ts" -s \
		'map(select(.census != null)) | min_by((.time - $ts) | fabs) |
		 [.time, .census.TIME_WAIT]' "$LL_TMP/obs.ndjson")
	rtime=$(echo "$rec" | jq '.[0]')
	rtw=$(echo "$rec" | jq '.[1]')
	allow=$(echo "$ts $rtime $peak" | awk '{d=$1-$2; if (d<0) d=-d; printf "%d", $3*(d+0.05)+5}')
	diff=$((rtw - cnt))
	[ "${diff#-}" -le "$allow" ] ||
		fail "during churn at $ts: census $rtw vs ss $cnt differ by more than $allow"
	checked=$((checked + 1))
done <"$LL_TMP/ss.txt"
[ "$checked" -ge 1 ] || fail "no ss sample taken during churn"
pass "TIME_WAIT: census = ss = tracepoint entries = $n after churn; $checked samples during churn agree within the connections in flight"
