#!/usr/bin/env bash
# loadlens-driver side by side with its peers, alternated in one run with the
# same threads and connections (h2load --h1 too, where installed). Prints Markdown rows for
# BENCHMARKS.md ("Driver").
#
#   bench/driver_bench.sh [all|http|newconn|tcpudp|memory]   (default: all but memory)
#
# Environment: LOADLENS_BIN (default build/bin), ROUNDS (3), DUR (10s), CONNS (50),
# MEM_LONG (600, seconds of the memory run). Loopback only. nginx: 1 worker pinned to CPU 0, the
# load tool pinned to CPU 1; access_log off; a 12-byte body.
set -u
. "$(dirname "$0")/common.sh"
bench_bins
ROUNDS=${ROUNDS:-3}
DUR=${DUR:-10}
CONNS=${CONNS:-50}
MEM_LONG=${MEM_LONG:-600}
MODE=${1:-fast}
bench_tmp loadlens-bench
command -v jq >/dev/null || apt-get install -y jq >/dev/null

need() { # need CMD PACKAGE
	command -v "$1" >/dev/null && return
	apt-get install -y "$2" >/dev/null 2>&1 || { apt-get update >/dev/null && apt-get install -y "$2" >/dev/null; }
	command -v "$1" >/dev/null || { echo "cannot install $2"; exit 1; }
}

# cpu_of CMD...: run CMD, print "user+sys seconds" on fd 3, CMD's stdout to stdout
cpu_of() {
	local TIMEFORMAT='%U %S'
	{ time "$@" 2>&1; } 2>"$TMP/time"
	awk '{ printf "%.3f\n", $1 + $2 }' "$TMP/time" >&3
}

# us_per N: the CPU seconds in $TMP/cpu (cpu_of 3>"$TMP/cpu"), in µs per one of N requests
us_per() { awk -v c="$(cat "$TMP/cpu")" -v n="$1" 'BEGIN { printf "%.2f", c * 1e6 / n }'; }

start_nginx() {
	need nginx nginx-light
	NGX_PORT=$(port)
	bench_nginx_up "$TMP/ngx" "$NGX_PORT" "reuseport backlog=4096"
}

start_refserver() { # start_refserver PROTO → RS_PORT
	RS_PORT=$(port)
	taskset -c 0 "$RS" --proto "$1" --listen "127.0.0.1:$RS_PORT" 2>"$TMP/rs.err" &
	PIDS+=($!)
	RS_PID=$!
	for _ in $(seq 50); do grep -q listening "$TMP/rs.err" && return; sleep 0.1; done
	echo "refserver did not start"; exit 1
}
stop_refserver() { kill -INT "$RS_PID"; wait "$RS_PID" 2>/dev/null; }

# ours NAME ARGS...: the driver on CPU 1; prints "req/s us/request"
ours() {
	local name=$1
	shift
	taskset -c 1 "$D" "$@" -q --interval 0 --json "$TMP/$name.json" >/dev/null
	jq -r '"\(.throughput_rps) \(.driver.cpu_ns / 1000 / (.requests + .errors_total + .warmup_requests))"' \
		"$TMP/$name.json"
}

bench_http() {
	need wrk wrk
	start_nginx
	bench_table "### HTTP keep-alive against nginx (1 worker, CPU 0), load on CPU 1, -t1 -c$CONNS, ${DUR}s" \
		"round" "tool" "req/s" "driver CPU µs/request"
	for r in $(seq "$ROUNDS"); do
		out=$(cpu_of taskset -c 1 wrk -t1 -c"$CONNS" -d"${DUR}s" "http://127.0.0.1:$NGX_PORT/" 3>"$TMP/cpu")
		rps=$(echo "$out" | awk '/Requests\/sec/ { print $2 }')
		n=$(echo "$out" | awk '/requests in/ { print $1 }')
		us=$(us_per "$n")
		printf '| %s | wrk | %.0f | %s |\n' "$r" "$rps" "$us"
		if command -v h2load >/dev/null; then
			out=$(cpu_of taskset -c 1 h2load --h1 -t1 -c"$CONNS" -D "$DUR" \
				"http://127.0.0.1:$NGX_PORT/" 3>"$TMP/cpu")
			rps=$(echo "$out" | sed -nE 's/^finished.* ([0-9.]+) req\/s.*/\1/p')
			n=$(echo "$out" | sed -nE 's/^requests: ([0-9]+) total.*/\1/p')
			us=$(us_per "$n")
			printf '| %s | h2load --h1 | %.0f | %s |\n' "$r" "$rps" "$us"
		fi
		read -r rps us < <(ours "ka$r" "http://127.0.0.1:$NGX_PORT/" -t 1 -c "$CONNS" -d "${DUR}s")
		printf '| %s | loadlens-driver (native) | %.0f | %.2f |\n' "$r" "$rps" "$us"
	done
	read -r rps us < <(ours curl "http://127.0.0.1:$NGX_PORT/" -t 1 -c "$CONNS" -d "${DUR}s" --http-engine curl)
	printf '| - | loadlens-driver --http-engine curl | %.0f | %.2f |\n' "$rps" "$us"
	echo
}

bench_newconn() {
	need ab apache2-utils
	[ -n "${NGX_PORT:-}" ] || start_nginx
	local n=100000
	bench_table "### A new connection per request against nginx, -c$CONNS" "round" "tool" \
		"conn/s" "driver CPU µs/request"
	for r in $(seq "$ROUNDS"); do
		out=$(cpu_of taskset -c 1 ab -q -n "$n" -c "$CONNS" "http://127.0.0.1:$NGX_PORT/" 3>"$TMP/cpu")
		rps=$(echo "$out" | awk '/Requests per second/ { print $4 }')
		us=$(us_per "$n")
		printf '| %s | ab | %.0f | %s |\n' "$r" "$rps" "$us"
		read -r rps us < <(ours "nc$r" "http://127.0.0.1:$NGX_PORT/" -t 1 -c "$CONNS" -n "$n" --http-close)
		printf '| %s | loadlens-driver --http-close | %.0f | %.2f |\n' "$r" "$rps" "$us"
	done
	echo
}

bench_tcpudp() {
	bench_table "### TCP and UDP request/response against loadlens-refserver (1 worker, CPU 0), -c$CONNS" \
		"test" "req/s" "driver CPU µs/request" "rate reached"
	start_refserver tcp
	read -r rps us < <(ours tcp "tcp://127.0.0.1:$RS_PORT" -c "$CONNS" -d "${DUR}s")
	printf '| tcp closed loop, keep-alive, 64 B | %.0f | %.2f | - |\n' "$rps" "$us"
	read -r rps us < <(ours tcpn "tcp://127.0.0.1:$RS_PORT" -c "$CONNS" -d "${DUR}s" --new-conn)
	printf '| tcp closed loop, --new-conn | %.0f | %.2f | - |\n' "$rps" "$us"
	read -r rps us < <(ours tcpo "tcp://127.0.0.1:$RS_PORT" -c "$CONNS" -d "${DUR}s" --rate 50k)
	printf '| tcp open loop --rate 50k | %.0f | %.2f | %.2f%% |\n' "$rps" "$us" "$(jq .rate_achieved_pct "$TMP/tcpo.json")"
	stop_refserver
	start_refserver udp
	read -r rps us < <(ours udp "udp://127.0.0.1:$RS_PORT" -c "$CONNS" -d "${DUR}s" --timeout 200ms)
	printf '| udp closed loop, 64 B | %.0f | %.2f | lost %s |\n' "$rps" "$us" "$(jq .errors.lost "$TMP/udp.json")"
	for rate in 20000 50000; do
		read -r rps us < <(ours "udpo$rate" "udp://127.0.0.1:$RS_PORT" -c "$CONNS" -d "${DUR}s" --rate "$rate" --timeout 200ms)
		printf '| udp open loop --rate %s | %.0f | %.2f | %.2f%% (lost %s) |\n' "$rate" "$rps" "$us" \
			"$(jq .rate_achieved_pct "$TMP/udpo$rate.json")" "$(jq .errors.lost "$TMP/udpo$rate.json")"
	done
	stop_refserver
	echo
}

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }

bench_memory() {
	echo "### Memory: driver RSS over a ${MEM_LONG}s open-loop run (tcp, --rate 20k, -c $CONNS)"
	echo
	start_refserver tcp
	taskset -c 1 "$D" "tcp://127.0.0.1:$RS_PORT" -c "$CONNS" -d "${MEM_LONG}s" --rate 20k -q \
		--interval 0 --json "$TMP/mem.json" >/dev/null &
	local pid=$!
	sleep 60
	local r1
	r1=$(rss_kb "$pid")
	sleep $((MEM_LONG - 65))
	local r2
	r2=$(rss_kb "$pid")
	wait "$pid"
	stop_refserver
	bench_table "after 1 min" "after $((MEM_LONG / 60)) min" "requests"
	echo "| ${r1} kB | ${r2} kB | $(jq .requests "$TMP/mem.json") |"
	echo
}

case "$MODE" in
http) bench_http ;;
newconn) bench_newconn ;;
tcpudp) bench_tcpudp ;;
memory) bench_memory ;;
fast) bench_http; bench_newconn; bench_tcpudp ;;
all) bench_http; bench_newconn; bench_tcpudp; bench_memory ;;
*) echo "usage: $0 [all|fast|http|newconn|tcpudp|memory]"; exit 64 ;;
esac
