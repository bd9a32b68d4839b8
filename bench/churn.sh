#!/bin/bash
# Connection churn: ab makes a new connection per request against nginx (1 worker,
# pinned to CPU 0; ab pinned to CPU 1). Each round runs every configuration once, in an order
# rotated from round to round:
#   none     no observer
#   conn     loadlens-observer --port P --no-requests   (connections, census, failures)
#   all      loadlens-observer --port P                 (connections and request timing)
#   tcplife  libbpf-tools' tcplife
#   before   with BEFORE_BIN=DIR set: DIR/loadlens-observer --port P (an older build, to compare)
# kernel.bpf_stats_enabled is 0 during these rounds (checked each round: another job turning it
# on would skew them). Then, in separate runs with bpf_stats on, the cost of each of the observer's
# programs (run_time_ns / run_cnt), for conn and for all. Loopback only, every run bounded.
# Prints a Markdown section on stdout; progress on stderr.
#
#   sudo [CHURN_MODES="none conn ..."] [BEFORE_BIN=DIR] bench/churn.sh [BUILD_BIN_DIR] [ROUNDS] [REQUESTS]
set -eu
. "$(dirname "$0")/common.sh"
BIN=${1:-$(cd "$(dirname "$0")/../build/bin" && pwd)}
ROUNDS=${2:-7}
N=${3:-50000}
C=50
PORT=8089
read -r -a MODES <<<"${CHURN_MODES:-none conn all tcplife}" # a subset, for a closer look
BEFORE_BIN=${BEFORE_BIN:-}
[ -n "$BEFORE_BIN" ] && MODES+=(before)
[ "${MODES[0]}" = none ] || { echo "CHURN_MODES must start with none (the baseline)" >&2; exit 64; }
TMP=$(mktemp -d /tmp/loadlens-churn.XXXXXX)
bench_root
need=()
command -v nginx >/dev/null || need+=(nginx-light)
command -v ab >/dev/null || need+=(apache2-utils)
command -v jq >/dev/null || need+=(jq)
[ -x /usr/sbin/tcplife ] || need+=(libbpf-tools)
if [ ${#need[@]} -gt 0 ]; then
	apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >&2
fi
[ -x "$BIN/loadlens-observer" ] || { echo "no $BIN/loadlens-observer" >&2; exit 64; }

bench_nginx_conf "$TMP" "$PORT" backlog=4096
taskset -c 0 nginx -c "$TMP/nginx.conf" -p "$TMP" &
NGINX=$!
OBS=
TL=
cleanup() {
	[ -n "$OBS" ] && kill -INT "$OBS" 2>/dev/null && wait "$OBS" 2>/dev/null
	[ -n "$TL" ] && kill -INT "$TL" 2>/dev/null && wait "$TL" 2>/dev/null
	kill "$NGINX" 2>/dev/null; wait "$NGINX" 2>/dev/null
	sysctl -qw kernel.bpf_stats_enabled=0
	rm -rf "$TMP"
}
trap cleanup EXIT
sleep 1

# ab: conn/s, completed and failed requests
run_ab() {
	taskset -c 1 ab -q -n "$N" -c "$C" "http://127.0.0.1:$PORT/" >"$TMP/ab.out" 2>&1
	awk '/Requests per second/ {r=$4} /Complete requests/ {c=$3} /Failed requests/ {f=$3}
	     END {printf "%s %s %s\n", r, c, f}' "$TMP/ab.out"
}

# connections nginx has accepted so far, this status request's own connection included
nginx_accepts() {
	curl -s "http://127.0.0.1:$PORT/status" | awk 'NR == 3 {print $1}'
}

start_observer() { # observer binary, extra observer options...
	local obs=$1
	shift
	"$obs" --port "$PORT" --interval 1s --json "$TMP/obs.json" "$@" \
		>"$TMP/obs.out" 2>"$TMP/obs.err" &
	OBS=$!
	for _ in $(seq 100); do grep -q observing "$TMP/obs.err" && return; sleep 0.1; done
	cat "$TMP/obs.err" >&2; exit 1
}
stop_observer() {
	kill -INT "$OBS"; wait "$OBS"; OBS=
}

start_mode() {
	case $1 in
	conn) start_observer "$BIN/loadlens-observer" --no-requests ;;
	all) start_observer "$BIN/loadlens-observer" ;;
	before) start_observer "$BEFORE_BIN/loadlens-observer" ;;
	tcplife) /usr/sbin/tcplife >/dev/null 2>&1 & TL=$!; sleep 2 ;;
	esac
}

# the observer's accepted count against nginx's, for one run; appended to $TMP/counts
check_counts() { # mode round a0 a1 done failed
	local acc drops lost unmatched
	acc=$(jq .accepted "$TMP/obs.json")
	drops=$(jq .drops "$TMP/obs.json")
	lost=$(jq .forensics.lost_events "$TMP/obs.json")
	unmatched=$(jq .accept_queue_wait_unmatched "$TMP/obs.json")
	# while the observer ran nginx accepted a1 - a0 + 1: ab's and both status requests'
	local ng=$(($4 - $3 + 1))
	printf '%s round %s: nginx accepted %s, observer accepted %s (%s); ab completed %s, failed %s; drops %s, lost events %s, waits unmatched %s\n' \
		"$1" "$2" "$ng" "$acc" "$([ "$acc" = "$ng" ] && echo equal || echo DIFFERENT)" "$5" "$6" \
		"$drops" "$lost" "$unmatched" >>"$TMP/counts"
}

sysctl -qw kernel.bpf_stats_enabled=0
run_ab >/dev/null # warm-up
: >"$TMP/rates"
: >"$TMP/counts"
stats_on=0
for r in $(seq "$ROUNDS"); do
	for i in "${!MODES[@]}"; do
		mode=${MODES[$(((i + r - 1) % ${#MODES[@]}))]}
		start_mode "$mode"
		a0=$(nginx_accepts)
		[ "$(sysctl -n kernel.bpf_stats_enabled)" = 0 ] || stats_on=$((stats_on + 1))
		read -r rps done failed < <(run_ab)
		a1=$(nginx_accepts)
		case $mode in
		conn | all | before) stop_observer; check_counts "$mode" "$r" "$a0" "$a1" "$done" "$failed" ;;
		tcplife) kill -INT "$TL"; wait "$TL" 2>/dev/null || true; TL= ;;
		esac
		echo "round $r $mode: $rps conn/s" >&2
		echo "$mode $rps $r" >>"$TMP/rates"
	done
done

# per-program cost, in separate runs with bpf_stats on
prog_costs() { # mode
	bpftool prog show -j | jq '[.[].id]' >"$TMP/before.json"
	start_mode "$1"
	sysctl -qw kernel.bpf_stats_enabled=1
	read -r _ _ _ < <(run_ab)
	bpftool prog show -j >"$TMP/progs.$1.json"
	sysctl -qw kernel.bpf_stats_enabled=0
	stop_observer
	# the observer's programs: those that appeared when it started
	jq -r --slurpfile before "$TMP/before.json" '.[] |
		select(.name != null and (.name | startswith("handle_"))) |
		select(.id as $i | $before[0] | index($i) | not) |
		select(.run_cnt != null and .run_cnt > 0) |
		"\(.name) \(.run_cnt) \((.run_time_ns / .run_cnt) | floor)"' "$TMP/progs.$1.json"
}
prog_costs conn >"$TMP/cost.conn"
prog_costs all >"$TMP/cost.all"

# median, min and max of a mode's rates
summary() {
	awk -v m="$1" '$1 == m {print $2}' "$TMP/rates" | sort -g |
		awk '{v[NR] = $1} END {
			med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%.0f %.0f %.0f\n", med, v[1], v[NR]}'
}
read -r base _ _ < <(summary none)
# median, min and max over the rounds of mode/none within the same round (the noise of other
# jobs on the machine moves both runs of a round together)
paired() {
	awk -v m="$1" '$1 == "none" {b[$3] = $2} $1 == m {v[$3] = $2}
		END {for (r in v) if (b[r] > 0) print v[r] / b[r]}' "$TMP/rates" | sort -g |
		awk '{v[NR] = $1} END {
			med = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
			printf "%+.1f%% %+.1f%% %+.1f%%\n", 100 * (med - 1), 100 * (v[1] - 1), 100 * (v[NR] - 1)}'
}
echo "### Connection churn"
echo
echo "ab -n $N -c $C (a new connection per request) against nginx (1 worker, CPU 0; ab on CPU 1);"
echo "$ROUNDS rounds, each running every configuration once in a rotated order;"
echo "$(uname -r), $(nproc) CPUs, $(date -u +%F). kernel.bpf_stats_enabled found on in $stats_on runs."
echo
bench_table "Run" "conn/s, median" "min – max" "median vs. no observer" \
	"paired: median (min – max) of run / no observer in its round"
for mode in "${MODES[@]}"; do
	read -r med lo hi < <(summary "$mode")
	read -r pmed plo phi < <(paired "$mode")
	echo "| $mode | $med | $lo – $hi | $(echo "scale=1; 100 * ($med - $base) / $base" | bc -l)% | $pmed ($plo – $phi) |"
done
echo
echo "Per round (conn/s):"
echo
echo '```'
for mode in "${MODES[@]}"; do
	printf '%-8s %s\n' "$mode" "$(awk -v m="$mode" '$1 == m {printf "%.0f ", $2}' "$TMP/rates")"
done
echo '```'
echo
echo "Counts at that rate (observer runs):"
echo
echo '```'
cat "$TMP/counts"
echo '```'
echo
echo "Per-program cost (kernel.bpf_stats_enabled=1, separate runs of $N connections):"
echo
bench_table "Program" "runs (conn)" "ns/run (conn)" "runs (all)" "ns/run (all)"
# the programs of the "all" run, in its order, with the conn run's figures beside them; two
# programs of one name (inet_sock_set_state, sys_exit_accept4) are numbered
awk 'FNR == 1 {f++} {k = $1 "#" (++seen[f, $1])}
     f == 1 {c[k] = $2 " | " $3} f == 2 {order[++n] = k; a[k] = $2 " | " $3}
     END {for (i = 1; i <= n; i++) {k = order[i]; sub(/#1$/, "", k); sub(/#2$/, " (2nd)", k)
          printf "| %s | %s | %s |\n", k, (order[i] in c) ? c[order[i]] : "– | –", a[order[i]]}}' \
	"$TMP/cost.conn" "$TMP/cost.all"
