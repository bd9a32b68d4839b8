#!/bin/bash
# Ephemeral-port exhaustion in a network namespace with a 1,000-port range and no TIME_WAIT
# reuse: the driver makes a new connection per request; the observer, attached to the driver's
# pid from the root namespace, must report 100% pressure on that destination and count every
# EADDRNOTAVAIL the driver reports, by name; the driver must not crash.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver
ns=llports$$
netns_create "$ns"
ip netns exec "$ns" sysctl -qw net.ipv4.ip_local_port_range="40000 40999" || fail "sysctl range"
ip netns exec "$ns" sysctl -qw net.ipv4.tcp_tw_reuse=0 || fail "sysctl tw_reuse"
n=3000

refserver_up --netns "$ns" refserver 127.0.0.1:8080 --proto tcp
# the driver waits, stopped, until the observer is attached to its pid
start driver ip netns exec "$ns" bash -c 'kill -STOP $$; exec "$0" "$@"' \
	"$LOADLENS_BIN/loadlens-driver" tcp://127.0.0.1:8080 -c 4 -n "$n" --new-conn \
	--timeout 2s --json "$LL_TMP/driver.json"
for _ in $(seq 50); do
	[ "$(ps -o stat= -p "$PID_driver" 2>/dev/null | cut -c1)" = T ] && break
	sleep 0.1
done
start observer "$LOADLENS_BIN/loadlens-observer" --pid "$PID_driver" --port 8080 \
	--interval 250ms --json "$LL_TMP/obs.json" --ndjson "$LL_TMP/obs.ndjson"
wait_for observer observing 60
kill -CONT "$PID_driver"
rc=0
for _ in $(seq 300); do kill -0 "$PID_driver" 2>/dev/null || break; sleep 0.1; done
wait "$PID_driver" || rc=$?
[ "$rc" -le 1 ] || { cat "$LL_TMP/driver.err"; fail "driver exited $rc (crashed?)"; }
sleep 0.6
stop observer
stop refserver

d_err=$(jget "$LL_TMP/driver.json" '.errors.EADDRNOTAVAIL // 0')
d_conn=$(jget "$LL_TMP/driver.json" .connections)
o_fail=$(jget "$LL_TMP/obs.json" '.forensics.failures.EADDRNOTAVAIL.connect // 0')
pct=$(jget "$LL_TMP/obs.json" .forensics.ports_peak.pressure_pct)
used=$(jget "$LL_TMP/obs.json" .forensics.ports_peak.in_use)
size=$(jget "$LL_TMP/obs.json" .forensics.ports_peak.range_size)
rate=$(jget "$LL_TMP/obs.json" .forensics.failures.EADDRNOTAVAIL.max_per_s)
finding=$(jq -r '.findings[] | select(.kind == "port_exhaustion") | .text' "$LL_TMP/obs.json")
sev=$(jq -r '[.findings[] | select(.kind == "port_exhaustion")][0].severity' "$LL_TMP/obs.json")
dport=$(jq -r '[.findings[] | select(.kind == "port_exhaustion")][0].evidence.dport' \
	"$LL_TMP/obs.json")
live=$(grep -c '^\[[0-9:]*\] ports: 127.0.0.1 -> 127.0.0.1:8080 has run out' "$LL_TMP/observer.err")
event=$(jq -c 'select(.type == "finding" and .kind == "port_exhaustion")' "$LL_TMP/obs.ndjson" |
	head -1)
echo "driver: $d_conn connections, EADDRNOTAVAIL $d_err; observer: $used of $size ports" \
	"($pct%), connect() EADDRNOTAVAIL $o_fail (up to $rate/s)"
echo "finding: $finding"
grep -q "EADDRNOTAVAIL" "$LL_TMP/driver.out" || fail "driver summary does not name EADDRNOTAVAIL"
[ "$size" = 1000 ] || fail "observer read a range of $size ports, expected 1000 (the netns')"
[ "$used" = 1000 ] || fail "observer saw $used ports in use, expected 1000"
[ "$(printf '%.0f' "$pct")" = 100 ] || fail "pressure $pct%, expected 100%"
[ "$d_err" -gt 0 ] || fail "driver saw no EADDRNOTAVAIL"
[ "$o_fail" = "$d_err" ] || fail "observer counted $o_fail EADDRNOTAVAIL, driver $d_err"
echo "$finding" | grep -q "127.0.0.1 -> 127.0.0.1:8080 has run out of ephemeral ports" ||
	fail "the ports finding does not name the destination"
echo "$finding" | grep -q "1,000 of 1,000 ports held" || fail "the ports finding lacks the counts"
[ "$sev" = critical ] && [ "$dport" = 8080 ] || fail "finding severity $sev, dport $dport"
[ "$live" -ge 1 ] || fail "the finding was not printed live on stderr"
[ -n "$event" ] || fail "no port_exhaustion event record in the NDJSON"
echo "$finding" | grep -q "EADDRNOTAVAIL" || fail "the ports finding does not name EADDRNOTAVAIL"
grep -q "target pid $PID_driver" "$LL_TMP/observer.err" || fail "the driver's exit was not reported"
pass "port exhaustion: 100% of 1,000 ports, $o_fail EADDRNOTAVAIL = driver's, exit reported"
