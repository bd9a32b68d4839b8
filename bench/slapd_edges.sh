#!/usr/bin/env bash
# Where slapd's etime begins and ends, against the syscalls around it: perf's raw_syscalls
# tracepoints on slapd's threads (CLOCK_MONOTONIC, moved to CLOCK_REALTIME with the observer's
# --trace header), slapd's stats log (its SEARCH RESULT lines' time stamps less their etime =
# o_time), and the observer's read time per request from --trace. Prints, over the searches and
# binds, p50 and mean of: o_time less the exit of the PDU's first read (liblber's tag and length)
# and of its second; etime's end (the RESULT line's stamp) less the exit of the reply's last
# write; the observer's read stamp less the exit of the first read. These are the two fixed edges
# tests/integration/test_reqtime_slapd.sh accounts for. perf adds its own time at each syscall.
# tracefs is mounted for perf in a mount namespace of this script's own (unshare -m).
# Usage (root): N=5000 C=16 bench/slapd_edges.sh [BUILD_BIN]
set -u
if [ -z "${SLAPD_EDGES_NS:-}" ]; then
	SLAPD_EDGES_NS=1 exec unshare -m "$0" "$@"
fi
. "$(dirname "$0")/common.sh"
. "$(dirname "$0")/../tests/integration/lib/servers.sh"
BIN=${1:-build/bin}
N=${N:-5000}
C=${C:-16}
command -v perf >/dev/null || { echo "needs perf"; exit 1; }
[ -x /usr/sbin/slapd ] || { echo "needs slapd"; exit 1; }
bench_tmp slapdedges
mountpoint -q /sys/kernel/tracing || mount -t tracefs none /sys/kernel/tracing
slapd_db "$TMP" stats || { cat "$TMP/slapadd.out"; exit 1; }
P=$(port)
chrt -f 10 /usr/sbin/slapd -h "ldap://127.0.0.1:$P/" -f "$TMP/slapd.conf" -d 256 2>"$TMP/slapd.err" &
PIDS+=($!)
for _ in $(seq 100); do grep -q "slapd starting" "$TMP/slapd.err" && break; sleep 0.2; done
"$BIN/loadlens-observer" --port "$P" --interval 0 --json "$TMP/obs.json" \
	--trace "$TMP/trace.csv" >"$TMP/obs.out" 2>&1 &
OBS=$!
PIDS+=($OBS)
for _ in $(seq 300); do grep -q observing "$TMP/obs.out" && break; sleep 0.2; done
perf record -q -k CLOCK_MONOTONIC -e raw_syscalls:sys_enter -e raw_syscalls:sys_exit \
	-p "$(cat "$TMP/slapd.pid")" -o "$TMP/perf.data" 2>"$TMP/perf.err" &
PERF=$!
sleep 1
"$BIN/loadlens-driver" "tcp://127.0.0.1:$P" --proto ldap --base ou=people,dc=example,dc=com \
	--filter '(uid=user{{rand:0-9999}})' -c "$C" -n "$N" --timeout 60s -q >"$TMP/drv.out" 2>&1 ||
	{ cat "$TMP/drv.out"; exit 1; }
sleep 0.5
kill -INT "$PERF" "$OBS"
wait "$PERF" "$OBS"
kill "$(cat "$TMP/slapd.pid")"
sleep 1
perf script -i "$TMP/perf.data" -F tid,time,event,trace --ns >"$TMP/perf.txt" 2>/dev/null
/usr/bin/python3 "$(dirname "$0")/slapd_edges.py" "$TMP" "$P"
