# shellcheck shell=bash
# Sourced by the bench scripts, after their `set -u`: a scratch directory and background
# processes cleaned up at exit, a free loopback port, and the nginx they measure against.
# Defines functions only. Loopback only.

# bench_root: exit 64 with one line unless root (the bench loads BPF programs)
bench_root() {
	[ "$(id -u)" = 0 ] && return
	echo "$(basename "$0"): needs root (it loads BPF programs)" >&2
	exit 64
}

# bench_table [TITLE] COLUMN...: a Markdown table's head on stdout: "### TITLE" and a blank line
# where TITLE is given (a first argument starting with "### "), then the header row and its rule.
bench_table() {
	local row="|" rule="|" c
	case $1 in "### "*) printf '%s\n\n' "$1" && shift ;; esac
	for c in "$@"; do
		row+=" $c |"
		rule+="---|"
	done
	printf '%s\n%s\n' "$row" "$rule"
}

# bench_bins: BIN, the build's bin directory (LOADLENS_BIN, default build/bin beside bench/),
# and in it D, loadlens-driver, and RS, loadlens-refserver; exits 1 unless both are built.
bench_bins() {
	BIN=${LOADLENS_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../build/bin}
	D=$BIN/loadlens-driver
	RS=$BIN/loadlens-refserver
	[ -x "$D" ] && [ -x "$RS" ] || { echo "build first: $D, $RS"; exit 1; }
}

# bench_bin DIR [PROGRAM...]: BIN, the build's bin directory (DIR, else build/bin beside bench/),
# and D, its loadlens-driver; exits 1 unless each PROGRAM named is built there.
bench_bin() {
	local p
	BIN=${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/../build/bin}
	D=$BIN/loadlens-driver
	for p in "${@:2}"; do
		[ -x "$BIN/$p" ] || { echo "build first: $BIN/$p"; exit 1; }
	done
}

# bench_numbers NAME=DEFAULT...: each NAME from the environment, else DEFAULT; exits 64 with one
# line unless each is a whole number.
bench_numbers() {
	local a n
	for a in "$@"; do
		n=${a%%=*}
		declare -g "$n=${!n:-${a#*=}}"
		case ${!n} in '' | *[!0-9]*)
			echo "$(basename "$0"): $n must be a number, not '${!n}'" >&2
			exit 64
			;;
		esac
	done
}

# bench_bpf_stats NAME STOP: T, a new directory /tmp/NAME.XXXXXX, and STATS0, the
# kernel.bpf_stats_enabled found; at exit STOP (the script's function that stops its processes)
# runs, then kernel.bpf_stats_enabled is set back to STATS0 and T removed. INT and TERM exit 130.
bench_bpf_stats() {
	T=$(mktemp -d "/tmp/$1.XXXXXX")
	STATS0=$(sysctl -n kernel.bpf_stats_enabled)
	BENCH_STOP=$2
	trap bench_bpf_stats_end EXIT
	trap 'exit 130' INT TERM
}

bench_bpf_stats_end() {
	"$BENCH_STOP"
	sysctl -qw kernel.bpf_stats_enabled="$STATS0"
	rm -rf "$T"
}

# bench_test_servers: the integration tests' server helpers (tests/integration/lib/servers.sh:
# unbound_conf, slapd_db...), so that a bench runs the servers the tests run.
bench_test_servers() {
	# shellcheck source=../tests/integration/lib/servers.sh
	. "$(dirname "${BASH_SOURCE[0]}")/../tests/integration/lib/servers.sh"
}

# on_cpu N CMD...: CMD pinned to CPU N (taskset) where there are 2 CPUs or more, else unpinned.
# exec_on_cpu N CMD...: the same, exec'd: run in the background (`exec_on_cpu 0 server &`), $! is
# the command's own pid.
on_cpu() { if [ "$(nproc)" -ge 2 ]; then taskset -c "$1" "${@:2}"; else "${@:2}"; fi; }
exec_on_cpu() { if [ "$(nproc)" -ge 2 ]; then exec taskset -c "$1" "${@:2}"; else exec "${@:2}"; fi; }

# bench_tmp NAME: TMP, a new directory /tmp/NAME.XXXXXX, and PIDS, an empty list the script
# appends its background processes to; at exit each is killed and waited for, then TMP removed.
bench_tmp() {
	TMP=$(mktemp -d "/tmp/$1.XXXXXX")
	PIDS=()
	trap bench_cleanup EXIT
}

bench_cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null; done
	wait 2>/dev/null
	rm -rf "$TMP"
}

# port: a port on 127.0.0.1 that nothing listens on (TCP or UDP), below the ephemeral range.
port() {
	local p
	while :; do
		p=$((20000 + RANDOM % 12000))
		ss -Htanul "( sport = :$p )" | grep -q . || { echo "$p"; return; }
	done
}

# bench_noop_build DIR: bench/event_cost's no-op programs and their loader, built into
# DIR/noop.bpf.o and DIR/attach (bench/event_cost.sh, bench/reqtime_overhead.sh's "floor").
bench_noop_build() {
	local e
	e=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
	clang -O2 -g -target bpf -D__TARGET_ARCH_x86 -I"$e/../bpf" -I/usr/include/x86_64-linux-gnu \
		-Wall -c "$e/event_cost/noop.bpf.c" -o "$1/noop.bpf.o" &&
		cc -O2 -Wall -Wextra -o "$1/attach" "$e/event_cost/attach.c" -lbpf
}

# bench_nginx_conf DIR PORT [LISTEN_OPTIONS]: DIR/nginx.conf, one worker in the foreground on
# 127.0.0.1:PORT (LISTEN_OPTIONS after it, e.g. "backlog=4096") answering every path with a
# 12-byte "hello world\n", stub_status at /status; no access log, pid and error log in DIR.
bench_nginx_conf() {
	cat >"$1/nginx.conf" <<CONF
worker_processes 1;
daemon off;
pid $1/nginx.pid;
error_log $1/error.log;
events { worker_connections 4096; }
http {
	access_log off;
	keepalive_requests 100000000;
	server {
		listen 127.0.0.1:$2${3:+ $3};
		location / { return 200 "hello world\n"; }
		location = /status { stub_status; }
	}
}
CONF
}

# bench_nginx_up DIR PORT LISTEN_OPTIONS [CURL_OPTION...]: bench_nginx_conf's nginx, in DIR, on
# CPU 0 (its pid in PIDS), once curl (with CURL_OPTIONs) gets its page; else exit 1 with its
# error log.
bench_nginx_up() {
	local dir=$1 port=$2 opts=$3
	shift 3
	mkdir -p "$dir"
	bench_nginx_conf "$dir" "$port" "$opts"
	taskset -c 0 nginx -c "$dir/nginx.conf" -p "$dir" -e "$dir/error.log" 2>/dev/null &
	PIDS+=($!)
	for _ in $(seq 50); do
		curl -fs "$@" "http://127.0.0.1:$port/" >/dev/null 2>&1 && return
		sleep 0.1
	done
	echo "nginx did not start"
	cat "$dir/error.log"
	exit 1
}
