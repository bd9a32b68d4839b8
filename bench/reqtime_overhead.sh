#!/bin/bash
# Request timing overhead (issue 4): served throughput with and without loadlens-observer, and
# what each BPF program costs per run.
#
#   bench/reqtime_overhead.sh [BUILD_BIN_DIR]
#
# 1. Throughput: nginx (1 worker, 12-byte "hello world") and loadlens-refserver --proto http,
#    each pinned to CPU 0, driven by wrk -t1 -c50 pinned to CPU 1, ROUNDS rounds of
#    off/on/on/off (ABBA, so drift cancels), DUR seconds each. kernel.bpf_stats_enabled is off.
# 2. Cost per program: one run with kernel.bpf_stats_enabled=1; run_time_ns / run_cnt of each
#    program, from bpftool.
# 3. Memory at 100k tracked sockets: observer RSS, map memory (bpftool memlock) and the
#    sk_storage the kernel holds for them (Slab with the observer attached minus after detach).
# Loopback only. Needs root, nginx, wrk, bpftool, python3. Results go to stdout as Markdown rows.
set -u
BIN=${1:-$(cd "$(dirname "$0")/../build/bin" && pwd)}
ROUNDS=${ROUNDS:-3}
DUR=${DUR:-8}
SOCKETS=${SOCKETS:-100000}
T=$(mktemp -d /tmp/loadlens-bench.XXXXXX)
PIDS=()
cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	[ -f "$T/nginx.pid" ] && kill -QUIT "$(cat "$T/nginx.pid")" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled=0
	rm -rf "$T"
}
trap cleanup EXIT
for b in nginx wrk bpftool python3; do
	command -v $b >/dev/null || { echo "needs $b (apt-get install -y nginx-light wrk bpftool)"; exit 1; }
done
[ -x "$BIN/loadlens-observer" ] || { echo "no $BIN/loadlens-observer"; exit 1; }
sysctl -qw kernel.bpf_stats_enabled=0
# RLIMIT_NOFILE cannot be raised here (20000): the 100k sockets are spread over several
# servers and clients of at most PER_PROC connections each.
PER_PROC=16000
NMEM=$(((SOCKETS + PER_PROC - 1) / PER_PROC))

NGINX_PORT=18480
RS_PORT=18481
MEM_PORT=18482
cat >"$T/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $T/nginx.pid;
error_log $T/nginx.err;
events { worker_connections 4096; }
http {
	access_log off;
	keepalive_requests 100000000;
	server {
		listen 127.0.0.1:$NGINX_PORT;
		location / { return 200 "hello world\n"; }
	}
}
EOF
taskset -c 0 nginx -c "$T/nginx.conf" -p "$T" &
PIDS+=($!)
taskset -c 0 "$BIN/loadlens-refserver" --proto http --listen "127.0.0.1:$RS_PORT" 2>"$T/rs.err" &
PIDS+=($!)
# for the memory run: a tcp frame needs 4 bytes, so a 1-byte request keeps its connection open
MEM_PORTS=()
for i in $(seq 0 $((NMEM - 1))); do
	"$BIN/loadlens-refserver" --proto tcp --listen "127.0.0.1:$((MEM_PORT + i))" --backlog 4096 \
		2>"$T/mem$i.err" &
	PIDS+=($!)
	MEM_PORTS+=($((MEM_PORT + i)))
done
sleep 1

OBS_PID=
obs_on() {
	"$BIN/loadlens-observer" $(printf -- '--port %s ' "$@") --interval 0 >"$T/obs.out" 2>"$T/obs.err" &
	OBS_PID=$!
	for _ in $(seq 100); do grep -q observing "$T/obs.err" && return; sleep 0.1; done
	cat "$T/obs.err"
	exit 1
}
obs_off() {
	kill -INT "$OBS_PID"
	wait "$OBS_PID"
	OBS_PID=
}
wrk_rps() {
	taskset -c 1 wrk -t1 -c50 -d"${DUR}s" "http://127.0.0.1:$1/" | awk '/Requests\/sec/ { print $2 }'
}

# throughput NAME PORT: ABBA rounds, prints the Markdown row
throughput() {
	local name=$1 port=$2 off=() on=() r order m
	wrk_rps "$port" >/dev/null # warm-up
	for r in $(seq "$ROUNDS"); do
		for order in off on on off; do
			if [ $order = on ]; then
				obs_on "$port"
				on+=("$(wrk_rps "$port")")
				obs_off
			else
				off+=("$(wrk_rps "$port")")
			fi
		done
	done
	m=$(printf '%s\n' "${off[@]}" | awk '{ s += $1 } END { printf "%.0f", s / NR }')
	printf '%s\n' "${on[@]}" | awk -v name="$name" -v off="$m" -v offs="${off[*]}" \
		'{ s += $1; all = all " " $1 } END { on = s / NR;
		printf "| %s | %.0f | %.0f | %.2f%% | off:%s; on:%s |\n", name, off, on,
			(off - on) * 100 / off, " " offs, all }'
}

echo "## Throughput (wrk -t1 -c50, ${DUR}s x $((2 * ROUNDS)) per column, ABBA order)"
echo
echo "| Server | Without observer (req/s) | With observer (req/s) | Loss | Runs |"
echo "|---|---|---|---|---|"
throughput "nginx 1 worker, hello world" $NGINX_PORT
throughput "loadlens-refserver --proto http" $RS_PORT

echo
echo "## Cost per program run (kernel.bpf_stats_enabled=1, nginx, ${DUR}s)"
echo
sysctl -qw kernel.bpf_stats_enabled=1
obs_on $NGINX_PORT
# only this observer's programs (others may be loaded on a shared machine)
ids=$(cat /proc/"$OBS_PID"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -un)
bpftool -j prog show >"$T/before.json"
rps=$(wrk_rps $NGINX_PORT)
bpftool -j prog show >"$T/after.json"
obs_off
sysctl -qw kernel.bpf_stats_enabled=0
echo "wrk with bpf_stats on: $rps req/s"
echo
echo "| Program | Runs | ns per run |"
echo "|---|---|---|"
python3 - "$T/before.json" "$T/after.json" $ids <<'EOF'
import json, sys
before = {p["id"]: p for p in json.load(open(sys.argv[1]))}
after = {p["id"]: p for p in json.load(open(sys.argv[2]))}
for i in map(int, sys.argv[3:]):
    a, b = after.get(i), before.get(i, {})
    if not a:
        continue
    n = a.get("run_cnt", 0) - b.get("run_cnt", 0)
    t = a.get("run_time_ns", 0) - b.get("run_time_ns", 0)
    if n:
        print("| %s | %d | %.0f |" % (a["name"], n, t / n))
EOF

echo
echo "## Memory at $SOCKETS tracked sockets"
echo
obs_on "${MEM_PORTS[@]}"
CLS=()
for i in $(seq 0 $((NMEM - 1))); do
python3 - "$((MEM_PORT + i))" "$((SOCKETS / NMEM))" "$T/opened$i" <<'EOF' &
# Open N connections to the refserver from 127.0.0.1-127.0.0.8 (ephemeral ports are per
# source address), send 1 byte on each (so each server socket gets request state), then wait.
import os, socket, sys, time
port, n, tmp = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
conns = []
for i in range(n):
    s = socket.socket()
    s.bind(("127.0.0.%d" % (2 + i % 8), 0))
    s.connect(("127.0.0.1", port))
    s.send(b"\0")
    conns.append(s)
open(tmp, "w").write(str(len(conns)))
time.sleep(300)
EOF
CLS+=($!)
PIDS+=($!)
done
for i in $(seq 0 $((NMEM - 1))); do
	for _ in $(seq 900); do [ -f "$T/opened$i" ] && break; sleep 0.2; done
done
sleep 2
slab_on=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
rss=$(awk '/^VmRSS:/ { print $2 }' /proc/"$OBS_PID"/status)
maps=$(cat /proc/"$OBS_PID"/fdinfo/* 2>/dev/null | awk '/^memlock:/ { s += $2 } END { print s + 0 }')
obs_off
sleep 2
slab_off=$(awk '/^Slab:/ { print $2 }' /proc/meminfo)
echo "| Figure | Value |"
echo "|---|---|"
echo "| connections opened | $(for f in "$T"/opened*; do cat "$f"; echo; done | awk '{ s += $1 } END { print s }') |"
echo "| observer RSS | $((rss / 1024)) MiB |"
echo "| observer maps (memlock, both objects) | $((maps / 1048576)) MiB |"
echo "| kernel sk_storage for the sockets (Slab attached - detached) | $(((slab_on - slab_off) / 1024)) MiB |"
kill "${CLS[@]}"
