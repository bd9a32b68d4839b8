#!/bin/bash
# CLOSE_WAIT leak: the reference server never closes its side (--no-close); the observer must
# count every CLOSE_WAIT socket and flag the leak in its findings.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver
port=$(free_port)

refserver_up refserver "$port" --proto tcp --no-close
start observer "$LOADLENS_BIN/loadlens-observer" --port "$port" --interval 250ms \
	--json "$LL_TMP/obs.json" --ndjson "$LL_TMP/obs.ndjson"
wait_for observer observing 60

for batch in 1 2 3 4; do
	timeout 30 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" -c 2 -n 50 --new-conn \
		-q >"$LL_TMP/driver$batch.out" 2>&1 || { cat "$LL_TMP/driver$batch.out"; fail "driver"; }
	sleep 0.6
done
ss_cw=$(ss -Htan state close-wait "( sport = :$port )" | wc -l)
stop observer
stop refserver

cw=$(jget "$LL_TMP/obs.json" '.forensics.census_max.CLOSE_WAIT')
finding=$(jq -r '.findings[] | select(.kind == "close_wait_leak") | .text' "$LL_TMP/obs.json")
fport=$(jq -r '[.findings[] | select(.kind == "close_wait_leak")][0].evidence.port' \
	"$LL_TMP/obs.json")
fpid=$(jq -r '[.findings[] | select(.kind == "close_wait_leak")][0].evidence.pid' \
	"$LL_TMP/obs.json")
echo "ss: $ss_cw CLOSE_WAIT; observer census peak: $cw"
echo "finding: $finding"
[ "$ss_cw" = 200 ] || fail "ss shows $ss_cw CLOSE_WAIT sockets, expected 200"
[ "$cw" = 200 ] || fail "observer counted $cw CLOSE_WAIT sockets, expected 200"
[ -n "$finding" ] || fail "no close_wait finding"
echo "$finding" | grep -q "^CLOSE_WAIT: 200 connections on port $port" ||
	fail "the finding does not give the count and port"
[ "$fport" = "$port" ] && [ "$fpid" = "$PID_refserver" ] ||
	fail "evidence names port $fport pid $fpid, expected $port and $PID_refserver"
grep -q "^\[[0-9:]*\] CLOSE_WAIT: .* on port $port" "$LL_TMP/observer.err" ||
	fail "no CLOSE_WAIT finding live on stderr"
grep -q "\[warning\] CLOSE_WAIT: 200 connections" "$LL_TMP/observer.out" ||
	fail "no CLOSE_WAIT finding in the summary"
pass "CLOSE_WAIT leak flagged: 200 sockets, equal to ss"
