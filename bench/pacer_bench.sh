#!/usr/bin/env bash
# The pacer and ping-pong latency, side by side with sockperf, alternated in
# rounds. Prints Markdown rows for BENCHMARKS.md ("Driver: pacer", "Driver: ping-pong against
# sockperf").
#
#   bench/pacer_bench.sh [all|pingpong|pacer]   (default all)
#
# Environment: LOADLENS_BIN (default build/bin), ROUNDS (5), DUR (4, seconds per run),
# RATES ("1000 10000 50000"), CONNS (10, slots of the open loop), FLOORS (1; 0: ping-pong without
# the floor clients, more rounds in the time), BEFORE_BIN (a build of an
# earlier version: its driver runs interleaved with this one, rows marked "before"). Loopback only; the server on
# CPU 0 and the client on CPU 1 ("cross"), or both on CPU 1 ("same").
#
# ping-pong: one request in flight, 64-byte messages, against sockperf's own server (UDP, and TCP
# with --tcp), so both clients talk to the same server: sockperf ping-pong --full-rtt p50 against
# the driver's latency p50 (-c 1 closed loop, --payload of one sockperf message, tcp with
# --response fixed:64).
# Beside them, the floors of this machine, as minimal C loops built here: pingpong_floor.c (a
# client blocking in recv(); the same with the 1 ms receive timeout the driver's one-slot closed
# loop reads with, driver/scheduling/pingpong.h; and one blocking in epoll_wait() as an event loop
# does) and, per rate, timer_floor.c (a thread that only sleeps on a timerfd armed 30 us early,
# 10 us at 50k/s, and spins to each due time).
# pacer: the driver against loadlens-refserver (udp): send lag p50/p99 and CPU per request at each
# rate, the closed loop (-c CONNS, and -c 1) for the CPU reference, and sockperf under-load at the
# same --mps (its latency p50/p99 and CPU per message; it paces by busy-waiting). The driver's rows
# give its worker's involuntary context switches and time runnable without a CPU (schedstat):
# what of the send lag p99 was the thread being preempted rather than its timer.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/common.sh"
bench_bins
DB=${BEFORE_BIN:+$BEFORE_BIN/loadlens-driver}
ROUNDS=${ROUNDS:-5}
DUR=${DUR:-4}
RATES=${RATES:-1000 10000 50000}
CONNS=${CONNS:-10}
FLOORS=${FLOORS:-1}
MODE=${1:-all}
bench_tmp loadlens-pbench
command -v sockperf >/dev/null || apt-get install -y sockperf >/dev/null 2>&1
command -v sockperf >/dev/null || { echo "needs sockperf"; exit 1; }
command -v jq >/dev/null || { echo "needs jq"; exit 1; }
PPF=$TMP/pingpong_floor
TF=$TMP/timer_floor
cc -O2 -o "$PPF" "$here/pingpong_floor.c" && cc -O2 -o "$TF" "$here/timer_floor.c" ||
	{ echo "cannot build the floor programs"; exit 1; }

# median of the numbers on stdin
median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# cpu_of CMD...: run CMD; user+sys seconds into $TMP/cpu; CMD's output to stdout
cpu_of() {
	local TIMEFORMAT='%U %S'
	{ time "$@" 2>&1; } 2>"$TMP/time"
	awk '{ printf "%.4f\n", $1 + $2 }' "$TMP/time" >"$TMP/cpu"
}

load() { awk '{ print $1 }' /proc/loadavg; }

# a sockperf message: 8-byte sequence, 2-byte flags (client, pong request), 4-byte size
/usr/bin/python3 -c "
import sys
h = bytes.fromhex('0000000000000001000300000040')
open(sys.argv[1], 'wb').write(h + b'x' * (64 - len(h)))" "$TMP/sp64.bin"

sp_server() { # sp_server CPU [--tcp] → SP_PORT, SP_PID
	SP_PORT=$(port)
	taskset -c "$1" sockperf server -i 127.0.0.1 -p "$SP_PORT" ${2:-} >"$TMP/sps.out" 2>&1 &
	SP_PID=$!
	PIDS+=($SP_PID)
	sleep 0.5
}

bench_pingpong() {
	local proto place scpu r sp dr rows=() tcp resp
	bench_table "### Ping-pong p50 (RTT), 64 bytes, one in flight, ${DUR}s per run, $ROUNDS rounds" \
		"proto" "placement" "sockperf p50 µs (rounds)" "driver p50 µs (rounds)" \
		"driver / sockperf (medians)" "median of the rounds' ratios" "load before"
	local fl_rows=()
	for proto in udp tcp; do
		tcp=""
		resp=""
		[ "$proto" = tcp ] && tcp=--tcp && resp="--response fixed:64"
		for place in cross same; do
			scpu=0
			[ "$place" = same ] && scpu=1
			sp_server "$scpu" "$tcp"
			local l0 sps="" drs="" dbs="" frs="" fts="" fes="" rrs="" rbs=""
			l0=$(load)
			for r in $(seq "$ROUNDS"); do
				sp=$(taskset -c 1 sockperf ping-pong -i 127.0.0.1 -p "$SP_PORT" $tcp -m 64 \
					-t "$DUR" --full-rtt 2>&1 | awk '/percentile 50.000/ { print $NF }')
				# shellcheck disable=SC2086
				taskset -c 1 "$D" "$proto://127.0.0.1:$SP_PORT" --payload "$TMP/sp64.bin" $resp \
					-c 1 -d "${DUR}s" --timeout 1s -q --interval 0 \
					--json "$TMP/pp.json" >/dev/null 2>"$TMP/pp.err"
				dr=$(jq -r '.latency.p50 / 1000' "$TMP/pp.json")
				if [ "$FLOORS" = 1 ]; then
					frs="$frs $(taskset -c 1 "$PPF" "$proto" "$SP_PORT" "$DUR" recv)"
					fts="$fts $(taskset -c 1 "$PPF" "$proto" "$SP_PORT" "$DUR" timeo)"
					fes="$fes $(taskset -c 1 "$PPF" "$proto" "$SP_PORT" "$DUR" epoll)"
				fi
				sps="$sps $sp"
				drs="$drs $dr"
				rrs="$rrs $(awk -v a="$dr" -v b="$sp" 'BEGIN { print a / b }')"
				if [ -n "$DB" ]; then
					# shellcheck disable=SC2086
					taskset -c 1 "$DB" "$proto://127.0.0.1:$SP_PORT" --payload "$TMP/sp64.bin" \
						$resp -c 1 -d "${DUR}s" --timeout 1s -q --interval 0 \
						--json "$TMP/pp.json" >/dev/null 2>"$TMP/pp.err"
					dr=$(jq -r '.latency.p50 / 1000' "$TMP/pp.json")
					dbs="$dbs $dr"
					rbs="$rbs $(awk -v a="$dr" -v b="$sp" 'BEGIN { print a / b }')"
				fi
			done
			kill "$SP_PID" 2>/dev/null
			wait "$SP_PID" 2>/dev/null
			local ms md
			ms=$(echo "$sps" | tr ' ' '\n' | grep . | median)
			md=$(echo "$drs" | tr ' ' '\n' | grep . | median)
			printf '| %s | %s | %s (%s) | %s (%s) | %s | %s | %s |\n' "$proto" "$place" \
				"$(printf '%.1f' "$ms")" "$(echo $sps | xargs printf '%.1f ' | sed 's/ $//')" \
				"$(printf '%.1f' "$md")" "$(echo $drs | xargs printf '%.1f ' | sed 's/ $//')" \
				"$(awk -v a="$md" -v b="$ms" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }')" \
				"$(echo "$rrs" | tr ' ' '\n' | grep . | median | awk '{ printf "%+.1f%%", ($1 - 1) * 100 }')" "$l0"
			local mr mt me
			if [ "$FLOORS" = 1 ]; then
				mr=$(echo "$frs" | tr ' ' '\n' | grep . | median)
				mt=$(echo "$fts" | tr ' ' '\n' | grep . | median)
				me=$(echo "$fes" | tr ' ' '\n' | grep . | median)
				fl_rows+=("$(printf '| %s | %s | %.1f | %.1f (%s) | %.1f (%s) | %.1f (%s) | %.1f | %s | %s |' "$proto" "$place" \
					"$ms" "$mr" "$(echo $frs | xargs printf '%.1f ' | sed 's/ $//')" \
					"$mt" "$(echo $fts | xargs printf '%.1f ' | sed 's/ $//')" \
					"$me" "$(echo $fes | xargs printf '%.1f ' | sed 's/ $//')" "$md" \
					"$(awk -v a="$me" -v b="$mr" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }')" \
					"$(awk -v a="$md" -v b="$mt" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }')")")
			fi
			if [ -n "$DB" ]; then
				md=$(echo "$dbs" | tr ' ' '\n' | grep . | median)
				printf '| %s | %s | (same rounds) | before: %s (%s) | %s | %s | |\n' "$proto" "$place" \
					"$(printf '%.1f' "$md")" "$(echo $dbs | xargs printf '%.1f ' | sed 's/ $//')" \
					"$(awk -v a="$md" -v b="$ms" 'BEGIN { printf "%+.1f%%", (a / b - 1) * 100 }')" \
					"$(echo "$rbs" | tr ' ' '\n' | grep . | median | awk '{ printf "%+.1f%%", ($1 - 1) * 100 }')"
			fi
		done
	done
	echo
	[ "$FLOORS" = 1 ] || return 0
	echo "Floors (same rounds, medians, µs): a minimal C client blocking in recv(), the same with a 1 ms SO_RCVTIMEO (as the driver's one-slot closed loop), and one blocking in epoll_wait() (as an event loop)"
	echo
	bench_table "proto" "placement" "sockperf" "recv() client (rounds)" "recv() with timeout (rounds)" \
		"epoll_wait() client (rounds)" "driver" "epoll vs recv" "driver vs recv with timeout"
	printf '%s\n' "${fl_rows[@]}"
	echo
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
case "$MODE" in
pingpong) bench_pingpong ;;
pacer) bench_pacer ;;
*) bench_pingpong; bench_pacer ;;
esac
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
