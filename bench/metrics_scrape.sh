#!/bin/bash
# The cost of a scrape of the observer's --metrics endpoint: with 1 and with 16
# watched ports (request timing reads 2 slots x 6 histograms x 4096 buckets per port from
# per-CPU maps), after some load so the histograms are not empty. Per configuration:
#  - collect+write: the observer's own loadlens_metrics_scrape_duration_seconds (median of N);
#  - the observer's CPU time per scrape (utime+stime from /proc over N scrapes, less the same
#    time without scrapes: its ticks, / N);
#  - a scrape's wall time seen by curl (median), and its size in bytes;
#  - for comparison, the observer's CPU per second without scrapes (its 1 s ticks).
# Usage: sudo bench/metrics_scrape.sh [N]  (default 200 scrapes); needs a built tree (build/).
set -u
N=${1:-200}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${LOADLENS_BIN:-$ROOT/build/bin}
TMP=$(mktemp -d /tmp/loadlens-mxbench.XXXXXX)
PIDS=()
trap 'for p in "${PIDS[@]}"; do kill -INT "$p" 2>/dev/null; done; wait; rm -rf "$TMP"' EXIT

fport() { echo $((20000 + RANDOM % 20000)); }
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }
median() { sort -g | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }'; }

run() {
	local nports=$1 ports=() args=() mport obs t0 t1 t2 w i hz
	for i in $(seq 1 "$nports"); do
		ports+=("$(fport)")
		args+=(--port "${ports[-1]}")
	done
	"$BIN/loadlens-refserver" --proto tcp --listen "127.0.0.1:${ports[0]}" >/dev/null \
		2>"$TMP/rs.err" &
	PIDS+=($!)
	for i in $(seq 1 50); do grep -q listening "$TMP/rs.err" && break; sleep 0.1; done
	mport=$(fport)
	"$BIN/loadlens-observer" "${args[@]}" --interval 0 --metrics "$mport" >/dev/null \
		2>"$TMP/obs.err" &
	obs=$!
	PIDS+=("$obs")
	for i in $(seq 1 100); do grep -q "metrics at" "$TMP/obs.err" && break; sleep 0.1; done
	"$BIN/loadlens-driver" "tcp://127.0.0.1:${ports[0]}" -c 4 -n 20000 -q >/dev/null 2>&1
	hz=$(getconf CLK_TCK)
	: >"$TMP/self"
	: >"$TMP/wall"
	t0=$(cpu_ticks "$obs")
	for i in $(seq 1 "$N"); do
		curl -s -o "$TMP/body" -w '%{time_total}\n' "http://127.0.0.1:$mport/metrics" \
			>>"$TMP/wall"
		awk '/^loadlens_metrics_scrape_duration_seconds / { print $2 }' "$TMP/body" \
			>>"$TMP/self"
	done
	t1=$(cpu_ticks "$obs")
	# as long (at least 5 s) without scrapes: the ticks' own cost, taken off
	w=$(awk '{ s += $1 } END { print s < 5 ? 5 : s }' "$TMP/wall")
	sleep "$w"
	t2=$(cpu_ticks "$obs")
	printf "| %2d | %s | %.2f | %.2f | %.2f | %d | %.0f |\n" "$nports" \
		"$(awk '/^loadlens_requests_total/ { s += $2 } END { print s }' "$TMP/body")" \
		"$(median <"$TMP/self" | awk '{ print $1 * 1000 }')" \
		"$(awk -v a="$t0" -v b="$t1" -v c="$t2" -v hz="$hz" -v n="$N" -v w="$w" \
			-v s="$(awk '{ s += $1 } END { print s }' "$TMP/wall")" \
			'BEGIN { print ((b - a) - (c - b) * s / w) * 1000 / hz / n }')" \
		"$(median <"$TMP/wall" | awk '{ print $1 * 1000 }')" \
		"$(wc -c <"$TMP/body")" \
		"$(awk -v b="$t1" -v c="$t2" -v hz="$hz" -v w="$w" 'BEGIN { print (c - b) * 1000 / hz / w }')"
	kill -INT "$obs"
	wait "$obs" 2>/dev/null
	kill -INT "${PIDS[-2]}"
	wait "${PIDS[-2]}" 2>/dev/null
	PIDS=()
}

echo "kernel.bpf_stats_enabled=$(cat /proc/sys/kernel/bpf_stats_enabled); $(nproc) CPUs; $N scrapes each"
echo "| ports | requests | collect+write ms (median) | observer CPU ms / scrape | curl wall ms (median) | bytes | ticks alone: observer CPU ms/s |"
echo "|---|---|---|---|---|---|---|"
run 1
run 16
