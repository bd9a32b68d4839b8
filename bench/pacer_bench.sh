#!/usr/bin/env bash
# The pacer against sockperf, alternated in rounds. Prints Markdown rows for BENCHMARKS.md
# ("Driver: pacer"). The ping-pong against sockperf is bench/pingpong.py.
#
#   bench/pacer_bench.sh
#
# Environment: LOADLENS_BIN (default build/bin), ROUNDS (5), DUR (4, seconds per run),
# RATES ("1000 10000 50000"), CONNS (10, slots of the open loop), BEFORE_BIN (a build of an
# earlier version: its driver runs interleaved with this one, rows marked "before"). Loopback
# only; the server on CPU 0 and the client on CPU 1.
#
# The driver against loadlens-refserver (udp): send lag p50/p99 and CPU per request at each rate,
# the closed loop (-c CONNS, and -c 1) for the CPU reference, and sockperf under-load at the same
# --mps (its latency p50/p99 and CPU per message; it paces by busy-waiting). Beside them, per
# rate, the floor of this machine, timer_floor.c built here (a thread that only sleeps on a
# timerfd armed 30 us early, 10 us at 50k/s, and spins to each due time). The driver's rows give
# its worker's involuntary context switches and time runnable without a CPU (schedstat): what of
# the send lag p99 was the thread being preempted rather than its timer.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_bins
DB=${BEFORE_BIN:+$BEFORE_BIN/loadlens-driver}
ROUNDS=${ROUNDS:-5}
DUR=${DUR:-4}
RATES=${RATES:-1000 10000 50000}
CONNS=${CONNS:-10}
bench_tmp loadlens-pbench
command -v sockperf >/dev/null || apt-get install -y sockperf >/dev/null 2>&1
command -v sockperf >/dev/null || { echo "needs sockperf"; exit 1; }
command -v jq >/dev/null || { echo "needs jq"; exit 1; }
TF=$TMP/timer_floor
cc -O2 -o "$TF" "$here/timer_floor.c" || { echo "cannot build the floor program"; exit 1; }

# cpu_of CMD...: run CMD; user+sys seconds into $TMP/cpu; CMD's output to stdout
cpu_of() {
	local TIMEFORMAT='%U %S'
	{ time "$@" 2>&1; } 2>"$TMP/time"
	awk '{ printf "%.4f\n", $1 + $2 }' "$TMP/time" >"$TMP/cpu"
}

load() { awk '{ print $1 }' /proc/loadavg; }

sp_server() { # sp_server CPU [--tcp] → SP_PORT, SP_PID
	SP_PORT=$(port)
	taskset -c "$1" sockperf server -i 127.0.0.1 -p "$SP_PORT" ${2:-} >"$TMP/sps.out" 2>&1 &
	SP_PID=$!
	PIDS+=($SP_PID)
	sleep 0.5
}

# driver_run NAME ARGS...: against the refserver on CPU 0; prints "lag_p50 lag_p99 cpu_us lat_p50 lat_p99 rps"
driver_run() {
	local name=$1 bin=$D
	shift
	[ "$name" = before ] && bin=$DB && name=$1 && shift
	taskset -c 1 "$bin" "udp://127.0.0.1:$RS_PORT" -d "${DUR}s" --timeout 1s -q --interval 0 \
		--json "$TMP/$name.json" "$@" >/dev/null 2>"$TMP/$name.err"
	jq -r '"\(.send_lag.p50 // 0) \(.send_lag.p99 // 0) \(.driver.cpu_per_request_us) \(.latency.p50) \(.latency.p99) \(.throughput_rps) \(.driver.involuntary_switches // "-") \((.driver.runq_wait_ns // null) | if . == null then "-" else . / 1e6 * 10 | round / 10 | tostring + "ms" end)"' \
		"$TMP/$name.json"
}

bench_pacer() {
	local rate r a b c d e f
	RS_PORT=$(port)
	taskset -c 0 "$RS" --proto udp --listen "127.0.0.1:$RS_PORT" 2>"$TMP/rs.err" &
	PIDS+=($!)
	RS_PID=$!
	sleep 0.5
	sp_server 0 ""
	bench_table "### Pacer: udp open loop against loadlens-refserver (CPU 0), driver on CPU 1, -c $CONNS, ${DUR}s per run" \
		"round" "load" "what" "rate asked" "achieved/s" "send lag p50" "send lag p99" \
		"latency p50" "latency p99" "CPU µs/request" "preempted (runnable without CPU)"
	for r in $(seq "$ROUNDS"); do
		read -r a b c d e f g h < <(driver_run "cl$r" -c "$CONNS")
		printf '| %s | %s | driver closed loop -c %s | - | %.0f | - | - | %.1fus | %.1fus | %.2f | %s (%s) |\n' \
			"$r" "$(load)" "$CONNS" "$f" "$(echo "$d/1000" | bc -l)" "$(echo "$e/1000" | bc -l)" "$c" "$g" "$h"
		read -r a b c d e f g h < <(driver_run "c1$r" -c 1)
		printf '| %s | %s | driver closed loop -c 1 | - | %.0f | - | - | %.1fus | %.1fus | %.2f | %s (%s) |\n' \
			"$r" "$(load)" "$f" "$(echo "$d/1000" | bc -l)" "$(echo "$e/1000" | bc -l)" "$c" "$g" "$h"
		for rate in $RATES; do
			read -r a b c d e f g h < <(driver_run "o$rate-$r" -c "$CONNS" --rate "$rate")
			printf '| %s | %s | driver --rate | %s | %.0f | %.1fus | %.1fus | %.1fus | %.1fus | %.2f | %s (%s) |\n' \
				"$r" "$(load)" "$rate" "$f" "$(echo "$a/1000" | bc -l)" "$(echo "$b/1000" | bc -l)" \
				"$(echo "$d/1000" | bc -l)" "$(echo "$e/1000" | bc -l)" "$c" "$g" "$h"
			if [ -n "$DB" ]; then
				read -r a b c d e f g h < <(driver_run before "b$rate-$r" -c "$CONNS" --rate "$rate")
				printf '| %s | %s | driver --rate, before | %s | %.0f | %.1fus | %.1fus | %.1fus | %.1fus | %.2f | %s (%s) |\n' \
					"$r" "$(load)" "$rate" "$f" "$(echo "$a/1000" | bc -l)" "$(echo "$b/1000" | bc -l)" \
					"$(echo "$d/1000" | bc -l)" "$(echo "$e/1000" | bc -l)" "$c" "$g" "$h"
			fi
			# the floor: a minimal C thread sleeping on a timerfd to each due time
			local per=$((1000000 / rate)) early=30 tl
			[ "$early" -ge $((per / 2)) ] && early=$((per / 2))
			tl=$(taskset -c 1 "$TF" "$per" "$early" "$DUR")
			printf '| %s | %s | timer floor (C, timerfd %sus early) | %s | - | %s | %s | - | - | %s | %s |\n' \
				"$r" "$(load)" "$early" "$rate" \
				"$(echo "$tl" | sed -E 's/.*lag p50 ([0-9.]+).*/\1us/')" \
				"$(echo "$tl" | sed -E 's/.* p99 ([0-9.]+) .*/\1us/')" \
				"$(echo "$tl" | sed -E 's/.*CPU ([0-9.]+) us per wake-up.*/\1 per wake-up/')" \
				"$(echo "$tl" | sed -E 's/.* ([0-9]+) involuntary.*without a CPU ([0-9.]+) ms.*/\1 (\2ms)/')"
			cpu_of taskset -c 1 sockperf under-load -i 127.0.0.1 -p "$SP_PORT" -m 64 \
				--mps "$rate" -t "$DUR" --full-rtt >"$TMP/ul.out"
			local n p50 p99
			n=$(awk -F'[ =;]+' '/\[Total Run\]/ { for (i = 1; i < NF; i++) if ($i == "SentMessages") print $(i + 1) }' "$TMP/ul.out")
			p50=$(awk '/percentile 50.000/ { print $NF }' "$TMP/ul.out")
			p99=$(awk '/percentile 99.000/ { print $NF }' "$TMP/ul.out")
			printf '| %s | %s | sockperf under-load | %s | %.0f | (busy-wait) | - | %sus | %sus | %.2f | - |\n' \
				"$r" "$(load)" "$rate" "$(echo "$n/$DUR" | bc -l)" "$p50" "$p99" \
				"$(awk -v c="$(cat "$TMP/cpu")" -v n="$n" 'BEGIN { printf "%.2f", n ? c * 1e6 / n : 0 }')"
		done
	done
	echo
}

echo "machine: $(nproc) CPUs, $(uname -r), load average $(cut -d' ' -f1-3 /proc/loadavg) at start, $(date -u +%H:%M) UTC;" \
	"one VM exit (cpuid): $("$TF" 1000 0 0.01 | sed -E 's/.*cpuid ([0-9.]+ us).*/\1/')"
echo
bench_pacer
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
