#!/bin/bash
# Request timing overhead: served throughput with and without loadlens-observer, and
# what each BPF program costs per run.
#
#   bench/reqtime_overhead.sh [BUILD_BIN_DIR]
#
# 1. Throughput: nginx (1 worker, 12-byte "hello world") and loadlens-refserver --proto http
#    (1 worker), each pinned to CPU 0, driven by wrk -t1 -c50 pinned to CPU 1.
#    ROUNDS rounds; each round runs every setting once (no observer, then each VARIANT), in an
#    order that alternates from round to round, DUR seconds each. Each variant's loss is taken
#    per round against that round's run without observer, then the median and the spread
#    (min..max) over rounds are printed: on a shared machine drift between rounds is large,
#    and this pairing cancels most of it. kernel.bpf_stats_enabled is 0 throughout.
#    LOADS: "keepalive" (default), "close" (wrk with "Connection: close": a new connection per
#    request), or both, each a table of its own.
# 2. Cost per program: a separate run per variant and load with kernel.bpf_stats_enabled=1;
#    run_time_ns / run_cnt of each of the observer's programs, from bpftool.
# 3. Memory at SOCKETS tracked sockets (MEM=0 skips it): observer RSS, map memory (memlock)
#    and the sk_storage the kernel holds for them (Slab attached minus after detach).
#
# VARIANTS: space-separated NAME=BINDIR[:ARGS] (ARGS with commas for spaces). Default:
#   "observer=$BIN". The name "noreq" is special: the observer without request timing
#   (--no-requests), to split request timing's share from the rest.
#   The name "foreign" watches an unused port instead of the server's: every program run is then
#   the early exit a socket that is not a target costs (the client's end, another port).
#   The names "noarrival", "nosend" and "readonly" leave request timing's arrival hook, its send
#   hook, or both unattached (LOADLENS_OBSERVER_DETACH): what each hook costs, taken away.
#   The name "floor" runs no observer: no-op programs ("return 0", bench/event_cost/noop.bpf.c)
#   on the hooks the observer's lean hooks use on a request's path (inet_sock_set_state,
#   tcp_rcv_space_adjust, sock_send_length, kfree_skb): what those events cost, whatever runs.
# Example: VARIANTS="before=build/bin-old observer=build/bin runq=build/bin:--runq noreq=build/bin"
#          WARM=5 VARIANTS="auto=build/bin full=build/bin:--lean,off lean=build/bin:--lean,on"
#
# TSV=FILE appends every measured run to FILE (this run's start, load, port, round, setting, then
# req/s, requests, server and wrk CPU seconds); bench/overhead_pool.py pools the rounds of several.
# SRV_CPU and CLI_CPU (default 0 and 1) pin the servers and wrk; the observer's own process is
# pinned to both, as on a 2-core machine. On a bigger machine, two idle CPUs other than 0 give
# the same setup with less noise (e.g. SRV_CPU=4 CLI_CPU=5).
# Loopback only; every load is bounded (wrk -d). Needs root, nginx, wrk, bpftool, python3
# (apt-get install -y nginx-light wrk bpftool). Results go to stdout as Markdown.
set -u
. "$(dirname "$0")/common.sh"
BIN=${1:-$(cd "$(dirname "$0")/../build/bin" && pwd)}
ROUNDS=${ROUNDS:-10}
DUR=${DUR:-3}
STATS_DUR=${STATS_DUR:-5}
MEM=${MEM:-1}
# seconds of load before each measured run, not measured (the observer's --lean auto switches
# after its first intervals of plain TCP requests, to the copy hook alone from the 7th: WARM=8
# measures it as it then runs)
WARM=${WARM:-0}
SOCKETS=${SOCKETS:-100000}
VARIANTS=${VARIANTS:-observer=$BIN}
LOADS=${LOADS:-keepalive}
FOREIGN_PORT=18489
SERVERS=${SERVERS:-nginx refserver}
bench_numbers SRV_CPU=0 CLI_CPU=1
T=$(mktemp -d /tmp/loadlens-bench.XXXXXX)
PIDS=()
STATS0=$(sysctl -n kernel.bpf_stats_enabled)
cleanup() {
	local p
	[ -n "${OBS_PID:-}" ] && kill -INT "$OBS_PID" 2>/dev/null
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
	[ -f "$T/nginx.pid" ] && kill -QUIT "$(cat "$T/nginx.pid")" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled="$STATS0"
	rm -rf "$T"
}
trap cleanup EXIT
if ! command -v nginx >/dev/null || ! command -v wrk >/dev/null; then
	apt-get install -y nginx-light wrk >/dev/null 2>&1 ||
		{ echo "needs nginx and wrk (apt-get install -y nginx-light wrk)"; exit 1; }
fi
for b in nginx wrk bpftool python3; do
	command -v $b >/dev/null || { echo "needs $b (apt-get install -y nginx-light wrk bpftool)"; exit 1; }
done
for v in $VARIANTS; do
	d=${v#*=}
	d=${d%%:*}
	[ -x "$d/loadlens-observer" ] || { echo "variant $v: no $d/loadlens-observer"; exit 1; }
done
sysctl -qw kernel.bpf_stats_enabled=0
STARTED=$(date +%Y%m%dT%H%M%S)-$$
case " $VARIANTS " in
*" floor="*)
	bench_noop_build "$T" || exit 1
	;;
esac

NGINX_PORT=18480
RS_PORT=18481
MEM_PORT=18482
bench_nginx_conf "$T" "$NGINX_PORT"
taskset -c "$SRV_CPU" nginx -c "$T/nginx.conf" -p "$T" &
NGINX_MASTER=$!
PIDS+=($!)
taskset -c "$SRV_CPU" "$BIN/loadlens-refserver" --proto http --workers 1 --listen "127.0.0.1:$RS_PORT" \
	2>"$T/rs.err" &
RS_PID=$!
PIDS+=($!)
sleep 1

OBS_PID=
# obs_on VARIANT PORT...
obs_on() {
	local v=$1 name dir args env=()
	shift
	name=${v%%=*}
	dir=${v#*=}
	args=
	case $dir in *:*) args=${dir#*:}; dir=${dir%%:*} ;; esac
	if [ "$name" = noreq ]; then # older builds: no --no-requests, but this knob
		"$dir/loadlens-observer" --help | grep -q -- --no-requests &&
			args="$args,--no-requests" || env=(LOADLENS_OBSERVER_NO_REQTIME=1)
	fi
	[ "$name" = foreign ] && set -- "$FOREIGN_PORT"
	case $name in
	noarrival) env=(LOADLENS_OBSERVER_DETACH=arrival) ;;
	nosend) env=(LOADLENS_OBSERVER_DETACH=send) ;;
	readonly) env=(LOADLENS_OBSERVER_DETACH=arrival,send) ;;
	esac
	if [ "$name" = floor ]; then
		"$T/attach" "$T/noop.bpf.o" inet_sock_set_state,tcp_rcv_space_adjust,sock_send_length,kfree_skb \
			3600 >"$T/obs.out" 2>"$T/obs.err" &
	else
		env "${env[@]}" taskset -c "$SRV_CPU,$CLI_CPU" "$dir/loadlens-observer" ${args//,/ } $(printf -- '--port %s ' "$@") \
			--interval 1s >"$T/obs.out" 2>"$T/obs.err" &
	fi
	OBS_PID=$!
	for _ in $(seq 100); do grep -q -E "observing|^attached:" "$T/obs.err" && return; sleep 0.1; done
	cat "$T/obs.err"
	exit 1
}
obs_off() {
	kill -INT "$OBS_PID"
	wait "$OBS_PID"
	OBS_PID=
}
# wrk's arguments for a load
wrk_load() {
	case $1 in
	keepalive) ;;
	close) printf '%s\n' -H "Connection: close" ;;
	*) echo "LOADS: keepalive or close, not $1" >&2 && exit 1 ;;
	esac
}
LOAD=keepalive
wrk_rps() {
	local a=()
	mapfile -t a < <(wrk_load "$LOAD")
	taskset -c "$CLI_CPU" wrk -t1 -c50 "${a[@]}" -d"${1}s" "http://127.0.0.1:$2/" | awk '/Requests\/sec/ { print $2 }'
}
# cpu_ticks PID: user + system time of a process so far, in clock ticks (USER_HZ)
cpu_ticks() {
	awk '{ print $14 + $15 }' "/proc/$1/stat"
}
# wrk_cpu DUR PORT SRVPID: "req/s requests server-CPU-s client-CPU-s" (CPU charged to each
# process, softirq work included: it runs in the sending process's context here)
wrk_cpu() {
	local t0 t1 rps n wcpu
	t0=$(cpu_ticks "$3")
	CLI_CPU=$CLI_CPU python3 - "$1" "$2" $(wrk_load "$LOAD" | tr ' ' '\001') >"$T/wrk.cpu" <<'EOF'
import os, resource, subprocess, sys
extra = [a.replace("\x01", " ") for a in sys.argv[3:]]
out = subprocess.run(["taskset", "-c", os.environ["CLI_CPU"], "wrk", "-t1", "-c50"] + extra + ["-d%ss" % sys.argv[1],
                      "http://127.0.0.1:%s/" % sys.argv[2]], capture_output=True, text=True).stdout
rps = [l.split()[1] for l in out.splitlines() if l.startswith("Requests/sec")][0]
n = [l.split()[0] for l in out.splitlines() if "requests in" in l][0]
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(rps, n, r.ru_utime + r.ru_stime)
EOF
	t1=$(cpu_ticks "$3")
	read -r rps n wcpu <"$T/wrk.cpu"
	echo "$rps $n $(awk -v a="$t0" -v b="$t1" -v hz="$(getconf CLK_TCK)" 'BEGIN { print (b - a) / hz }') $wcpu"
}

# throughput NAME PORT SRVPID: ROUNDS rounds of (off + each variant), order alternating
throughput() {
	local name=$1 port=$2 pid=$3 r s settings order=() res
	settings=(off $VARIANTS)
	wrk_rps 2 "$port" >/dev/null # warm-up
	: >"$T/tp.tsv"
	for r in $(seq "$ROUNDS"); do
		if [ $((r % 2)) = 1 ]; then
			order=("${settings[@]}")
		else
			order=()
			for ((s = ${#settings[@]} - 1; s >= 0; s--)); do order+=("${settings[s]}"); done
		fi
		for s in "${order[@]}"; do
			if [ "$s" = off ]; then
				[ "$WARM" = 0 ] || wrk_rps "$WARM" "$port" >/dev/null
				res=$(wrk_cpu "$DUR" "$port" "$pid")
			else
				obs_on "$s" "$port"
				[ "$WARM" = 0 ] || wrk_rps "$WARM" "$port" >/dev/null
				res=$(wrk_cpu "$DUR" "$port" "$pid")
				obs_off
			fi
			printf '%s\t%s\t%s\n' "$r" "${s%%=*}" "$res" >>"$T/tp.tsv"
		done
	done
	[ -z "${TSV:-}" ] || sed "s/^/$STARTED\t$LOAD\t$port\t/" "$T/tp.tsv" >>"$TSV"
	python3 - "$name" "$T/tp.tsv" <<'EOF'
import statistics as st, sys
name = sys.argv[1]
runs = {}
for l in open(sys.argv[2]).read().split("\n"):
    if not l:
        continue
    r, s, v = l.split("\t")
    rps, n, scpu, ccpu = map(float, v.split())
    # CPU-us per request: server, and server + client
    runs.setdefault(s, {})[int(r)] = (rps, 1e6 * scpu / n, 1e6 * (scpu + ccpu) / n)
def spread(v):
    v = sorted(v)
    q = st.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
    return "%.1f%% [IQR %.1f..%.1f, range %.1f..%.1f]" % (st.median(v), q[0], q[2], v[0], v[-1])
off = runs.pop("off")
print("| %s | no observer | %.0f (%.0f..%.0f) | | %.2f | %.2f | |" % (name,
      st.median(x[0] for x in off.values()), min(x[0] for x in off.values()),
      max(x[0] for x in off.values()), st.median(x[1] for x in off.values()),
      st.median(x[2] for x in off.values())))
for s, by in runs.items():
    rs = [r for r in by if r in off]
    print("| %s | %s | %.0f (%.0f..%.0f) | %s | %.2f | %.2f | %s |" % (
        name, s, st.median(x[0] for x in by.values()), min(x[0] for x in by.values()),
        max(x[0] for x in by.values()),
        spread([100 * (1 - by[r][0] / off[r][0]) for r in rs]),
        st.median(x[1] for x in by.values()), st.median(x[2] for x in by.values()),
        spread([100 * (by[r][2] / off[r][2] - 1) for r in rs])))
EOF
}

for LOAD in $LOADS; do
echo "## Throughput, $LOAD (wrk -t1 -c50 $(wrk_load "$LOAD" | tr '\n' ' ')$ROUNDS rounds of ${DUR}s per setting, order alternating)"
echo
echo "Loss: per round, 1 - with/without, then median [IQR, range] over rounds. CPU: us of CPU"
echo "charged per request to the server, and to server + wrk; its increase is per round too."
echo
bench_table "Server" "Setting" "req/s median (min..max)" "Throughput loss" "Server CPU us/req" \
	"Server+wrk CPU us/req" "CPU per request increase"
for srv in $SERVERS; do
	case $srv in
	nginx) throughput "nginx 1 worker, hello world" $NGINX_PORT "$(pgrep -P "$NGINX_MASTER" | head -1)" ;;
	refserver) throughput "loadlens-refserver --proto http" $RS_PORT "$RS_PID" ;;
	esac
done
echo
done

echo
for LOAD in $LOADS; do
echo
echo "## Cost per program run, $LOAD (kernel.bpf_stats_enabled=1, nginx, ${STATS_DUR}s per variant)"
echo
echo "Runs and ns per request count every run of the program on the host (other traffic too)."
echo
bench_table "Variant" "Program" "Runs per request" "ns per run" "ns per request"
for v in $VARIANTS; do
	sysctl -qw kernel.bpf_stats_enabled=1
	obs_on "$v" $NGINX_PORT
	# only this observer's programs (others may be loaded on a shared machine)
	ids=$(cat /proc/"$OBS_PID"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -un)
	[ "$WARM" = 0 ] || wrk_rps "$WARM" $NGINX_PORT >/dev/null
	bpftool -j prog show >"$T/before.json"
	mapfile -t wa < <(wrk_load "$LOAD")
	taskset -c "$CLI_CPU" wrk -t1 -c50 "${wa[@]}" -d"${STATS_DUR}s" "http://127.0.0.1:$NGINX_PORT/" >"$T/wrk.out"
	bpftool -j prog show >"$T/after.json"
	obs_off
	sysctl -qw kernel.bpf_stats_enabled=0
	reqs=$(awk '/requests in/ { print $1 }' "$T/wrk.out")
	python3 - "$T/before.json" "$T/after.json" "${v%%=*}" "$reqs" $ids <<'EOF'
import json, sys
before = {p["id"]: p for p in json.load(open(sys.argv[1]))}
after = {p["id"]: p for p in json.load(open(sys.argv[2]))}
name, reqs = sys.argv[3], int(sys.argv[4])
for i in map(int, sys.argv[5:]):
    a, b = after.get(i), before.get(i, {})
    if not a:
        continue
    n = a.get("run_cnt", 0) - b.get("run_cnt", 0)
    t = a.get("run_time_ns", 0) - b.get("run_time_ns", 0)
    if n and n >= reqs / 100:
        print("| %s | %s | %.2f | %.0f | %.0f |" % (name, a["name"], n / reqs, t / n, t / reqs))
EOF
done
done

[ "$MEM" = 1 ] || exit 0
# RLIMIT_NOFILE cannot be raised here (20000): the sockets are spread over several servers and
# clients of at most PER_PROC connections each. A tcp frame needs 4 bytes, so a 1-byte request
# keeps each connection open with request state.
PER_PROC=16000
NMEM=$(((SOCKETS + PER_PROC - 1) / PER_PROC))
MEM_PORTS=()
for i in $(seq 0 $((NMEM - 1))); do
	"$BIN/loadlens-refserver" --proto tcp --listen "127.0.0.1:$((MEM_PORT + i))" --backlog 4096 \
		2>"$T/mem$i.err" &
	PIDS+=($!)
	MEM_PORTS+=($((MEM_PORT + i)))
done
sleep 1
echo
echo "## Memory at $SOCKETS tracked sockets (variant ${VARIANTS%% *})"
echo
obs_on "${VARIANTS%% *}" "${MEM_PORTS[@]}"
CLS=()
for i in $(seq 0 $((NMEM - 1))); do
python3 - "$((MEM_PORT + i))" "$((SOCKETS / NMEM))" "$T/opened$i" <<'EOF' &
# Open N connections to the refserver from 127.0.0.2-127.0.0.9 (ephemeral ports are per
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
bench_table "Figure" "Value"
echo "| connections opened | $(for f in "$T"/opened*; do cat "$f"; echo; done | awk '{ s += $1 } END { print s }') |"
echo "| observer RSS | $((rss / 1024)) MiB |"
echo "| observer maps (memlock, all objects) | $((maps / 1048576)) MiB |"
echo "| kernel sk_storage for the sockets (Slab attached - detached) | $(((slab_on - slab_off) / 1024)) MiB |"
kill "${CLS[@]}"
