#!/bin/bash
# A --pid target that exits and starts again: the observer reports the exit, takes the new process
# (same executable) as the target, keeps counting, and still exits 0 with a summary.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver
port=$(free_port)

refserver_up srv1 "$port" --proto tcp
start observer "$LOADLENS_BIN/loadlens-observer" --pid "$PID_srv1" --interval 250ms \
	--no-requests --json "$LL_TMP/obs.json"
wait_for observer observing 60

new_conns drv1 "$port" 200
stop srv1
wait_for observer "target pid $PID_srv1" 10
refserver_up srv2 "$port" --proto tcp
wait_for observer "restarted as pid $PID_srv2" 10
new_conns drv2 "$port" 300
stop observer
stop srv2

obs=$(jget "$LL_TMP/obs.json" .accepted)
s1=$(jget "$LL_TMP/srv1.json" .connections_accepted)
s2=$(jget "$LL_TMP/srv2.json" .connections_accepted)
notes=$(jq -r '.forensics.findings[] | select(.kind == "target_exit") | .text' "$LL_TMP/obs.json")
echo "servers: $s1 + $s2 accepted; observer: $obs"
echo "$notes"
[ "$s1" = 200 ] && [ "$s2" = 300 ] || fail "the servers accepted $s1 and $s2, expected 200 and 300"
[ "$obs" = 500 ] || fail "observer counted $obs accepted across the restart, expected 500"
echo "$notes" | grep -q "target pid $PID_srv1 .*exited\|target pid $PID_srv1 .*is gone" ||
	fail "no finding names the exit of pid $PID_srv1"
echo "$notes" | grep -q "restarted as pid $PID_srv2" || fail "no finding names the restart"
pass "target restart: exit and restart reported, 200 + 300 accepts counted across it"
