#!/bin/bash
# Connection churn (issue 3): ab makes a new connection per request against nginx (1 worker,
# pinned to CPU 0; ab on CPU 1). Rounds alternate: no observer, loadlens-observer, libbpf-tools'
# tcplife. Then, in separate runs with kernel.bpf_stats_enabled=1, the cost of each of the
# observer's programs (run_time_ns / run_cnt). Loopback only. Prints a Markdown section.
#
#   sudo bench/churn.sh [BUILD_BIN_DIR] [ROUNDS] [REQUESTS]
set -eu
BIN=${1:-$(cd "$(dirname "$0")/../build/bin" && pwd)}
ROUNDS=${2:-3}
N=${3:-150000}
C=50
PORT=8089
TMP=$(mktemp -d /tmp/loadlens-churn.XXXXXX)
[ "$(id -u)" = 0 ] || { echo "run as root" >&2; exit 64; }
need=()
command -v nginx >/dev/null || need+=(nginx-light)
command -v ab >/dev/null || need+=(apache2-utils)
[ -x /usr/sbin/tcplife ] || need+=(libbpf-tools)
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi
[ -x "$BIN/loadlens-observer" ] || { echo "no $BIN/loadlens-observer" >&2; exit 64; }

cat >"$TMP/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $TMP/nginx.pid;
error_log $TMP/error.log;
events { worker_connections 4096; }
http {
	access_log off;
	server {
		listen 127.0.0.1:$PORT backlog=4096;
		location / { return 200 "hello world\n"; }
		location = /status { stub_status; }
	}
}
CONF
taskset -c 0 nginx -c "$TMP/nginx.conf" -p "$TMP" &
NGINX=$!
OBS=
cleanup() {
	[ -n "$OBS" ] && kill -INT "$OBS" 2>/dev/null && wait "$OBS" 2>/dev/null
	kill "$NGINX" 2>/dev/null; wait "$NGINX" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled=0
	rm -rf "$TMP"
}
trap cleanup EXIT
sleep 1

# ab: conn/s and completed requests
run_ab() {
	taskset -c 1 ab -q -n "$N" -c "$C" "http://127.0.0.1:$PORT/" >"$TMP/ab.out" 2>&1
	awk '/Requests per second/ {r=$4} /Complete requests/ {c=$3} /Failed requests/ {f=$3}
	     END {printf "%s %s %s\n", r, c, f}' "$TMP/ab.out"
}

# connections nginx accepted so far (stub_status; this request's own connection excluded)
nginx_accepts() {
	curl -s "http://127.0.0.1:$PORT/status" | awk 'NR == 3 {print $1 - 1}'
}

start_observer() {
	"$BIN/loadlens-observer" --port "$PORT" --interval 1s --json "$TMP/obs.json" \
		>"$TMP/obs.out" 2>"$TMP/obs.err" &
	OBS=$!
	for _ in $(seq 100); do grep -q observing "$TMP/obs.err" && return; sleep 0.1; done
	cat "$TMP/obs.err" >&2; exit 1
}
stop_observer() {
	kill -INT "$OBS"; wait "$OBS"; OBS=
}

sysctl -qw kernel.bpf_stats_enabled=0
run_ab >/dev/null # warm-up
declare -A sum cnt
lost_report=""
for r in $(seq "$ROUNDS"); do
	for mode in none observer tcplife; do
		case $mode in
		observer) start_observer; a0=$(nginx_accepts) ;;
		tcplife) /usr/sbin/tcplife >/dev/null 2>&1 & TL=$!; sleep 2 ;;
		esac
		read -r rps done failed < <(run_ab)
		case $mode in
		observer)
			a1=$(nginx_accepts)
			stop_observer
			acc=$(jq .accepted "$TMP/obs.json")
			drops=$(jq .drops "$TMP/obs.json")
			lost=$(jq .forensics.lost_events "$TMP/obs.json")
			lost_report+="round $r: nginx accepted $((a1 - a0 + 1)) (ab + 2 status requests), observer accepted $acc, ab completed $done (failed $failed); drops $drops, lost events $lost"$'\n'
			;;
		tcplife) kill -INT "$TL"; wait "$TL" 2>/dev/null || true ;;
		esac
		echo "round $r $mode: $rps conn/s" >&2
		sum[$mode]=$(echo "${sum[$mode]:-0} + $rps" | bc -l)
		cnt[$mode]=$((${cnt[$mode]:-0} + 1))
	done
done

# per-program cost, in a separate run with bpf_stats on
sysctl -qw kernel.bpf_stats_enabled=1
bpftool prog show -j | jq '[.[].id]' >"$TMP/before.json"
start_observer
read -r _ _ _ < <(run_ab)
bpftool prog show -j >"$TMP/progs.json"
stop_observer
sysctl -qw kernel.bpf_stats_enabled=0

avg() { echo "scale=0; ${sum[$1]} / ${cnt[$1]}" | bc -l; }
base=$(avg none)
echo "### Connection churn (issue 3)"
echo
echo "ab -n $N -c $C (a new connection per request) against nginx (1 worker, CPU 0; ab on CPU 1),"
echo "$ROUNDS rounds alternating, means of the rounds; $(uname -r), $(nproc) CPUs, $(date -u +%F)."
echo
echo "| Run | conn/s | vs. no observer |"
echo "|---|---|---|"
for mode in none observer tcplife; do
	a=$(avg "$mode")
	echo "| $mode | $a | $(echo "scale=1; 100 * ($a - $base) / $base" | bc -l)% |"
done
echo
echo "Counts at that rate (observer runs):"
echo
echo '```'
printf "%s" "$lost_report"
echo '```'
echo
echo "Per-program cost (kernel.bpf_stats_enabled=1, a separate run):"
echo
echo "| Program | runs | ns/run |"
echo "|---|---|---|"
# the observer's programs: those that appeared when it started
jq -r --slurpfile before "$TMP/before.json" '.[] | select(.name != null and (.name | startswith("handle_"))) |
	select(.id as $i | $before[0] | index($i) | not) |
	select(.run_cnt != null and .run_cnt > 0) |
	"| \(.name) | \(.run_cnt) | \((.run_time_ns / .run_cnt) | floor) |"' "$TMP/progs.json"
