#!/bin/bash
# fd exhaustion: the reference server runs with RLIMIT_NOFILE 128 and leaks one fd per accepted
# connection (--leak-fds 1); a paced client connects about 20 times a second. The observer must
# forecast the exhaustion before it arrives, then report EMFILE on accept, naming the process
# and its limit.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer
command -v prlimit >/dev/null || skip "prlimit (util-linux) is not installed"
port=$(free_port)

refserver_up --nofile 128 refserver "$port" --proto tcp --leak-fds 1
start observer "$LOADLENS_BIN/loadlens-observer" --pid "$PID_refserver" --interval 500ms \
	--json "$LL_TMP/obs.json" --ndjson "$LL_TMP/obs.ndjson"
wait_for observer observing 60

# about 20 connections/s for 9 s: 180 connections, enough to pass 128 fds after ~5 s
for _ in $(seq 180); do
	{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null && exec 3>&-
	sleep 0.05
done
sleep 1
stop observer
stop refserver

jq -e --argjson pid "$PID_refserver" '.forensics.fds[] | select(.pid == $pid)' "$LL_TMP/obs.json" \
	>"$LL_TMP/proc.json" || fail "observer did not watch pid $PID_refserver"
soft=$(jget "$LL_TMP/proc.json" .soft_limit)
emfile=$(jget "$LL_TMP/proc.json" .emfile)
fc_at=$(jget "$LL_TMP/proc.json" '.first_forecast_at_s // -1')
fc_s=$(jget "$LL_TMP/proc.json" '.first_forecast_s // -1')
em_at=$(jget "$LL_TMP/proc.json" '.first_emfile_at_s // -1')
accept_emfile=$(jget "$LL_TMP/obs.json" '.accept_errors.EMFILE // 0')
finding=$(jq -r '.findings[] | select(.kind == "fd_exhaustion") | .text' "$LL_TMP/obs.json")
echo "limit $soft; forecast at t=${fc_at}s (${fc_s}s ahead); first EMFILE at t=${em_at}s;" \
	"EMFILE $emfile (accept: $accept_emfile)"
echo "finding: $finding"
[ "$soft" = 128 ] || fail "observer read RLIMIT_NOFILE $soft, expected 128"
[ "$emfile" -gt 0 ] || fail "no EMFILE counted for the server"
[ "$accept_emfile" -gt 0 ] || fail "no EMFILE counted on accept"
awk -v f="$fc_at" -v e="$em_at" 'BEGIN { exit !(f >= 0 && e >= 0 && f < e) }' ||
	fail "no forecast before the first EMFILE (forecast at $fc_at, EMFILE at $em_at)"
echo "$finding" | grep -q "pid $PID_refserver" || fail "the finding does not name the process"
echo "$finding" | grep -q "EMFILE" || fail "the finding does not name EMFILE"
echo "$finding" | grep -q "RLIMIT_NOFILE 128" || fail "the finding does not give the limit"
pass "fd exhaustion forecast at t=${fc_at}s, EMFILE from t=${em_at}s, limit 128 named"
