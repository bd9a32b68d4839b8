# shellcheck shell=bash
# Shared helpers for loadlens integration tests: preconditions (skip = exit 77 with a reason),
# process management with guaranteed cleanup, and JSON reads.
# Every test sends traffic only to loopback or to namespaces it creates, bounded in count and time.

set -u
LOADLENS_BIN=${LOADLENS_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../build/bin" && pwd)}
LL_TMP=$(mktemp -d /tmp/loadlens-test.XXXXXX)
LL_PIDS=()

ll_cleanup() {
	local pid
	for pid in "${LL_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${LL_PIDS[@]}"; do
		wait "$pid" 2>/dev/null
	done
	if [ -z "${LL_KEEP_TMP:-}" ]; then
		rm -rf "$LL_TMP"
	else
		echo "kept $LL_TMP"
	fi
}
trap ll_cleanup EXIT

skip() {
	echo "SKIP: $*"
	exit 77
}

fail() {
	echo "FAIL: $*"
	exit 1
}

pass() {
	echo "PASS: $*"
}

# Preconditions for tests that load BPF: root, BTF, and a trivial program that loads.
require_bpf() {
	[ "$(id -u)" = 0 ] || skip "needs root to load BPF (run the test command as root)"
	[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux missing)"
	[ -x "$LOADLENS_BIN/ll_bpf_probe" ] || fail "$LOADLENS_BIN/ll_bpf_probe not built"
	local rc=0
	"$LOADLENS_BIN/ll_bpf_probe" || rc=$?
	[ "$rc" = 77 ] && exit 77
	[ "$rc" = 0 ] || fail "ll_bpf_probe exited $rc"
}

require_bin() {
	local b
	for b in "$@"; do
		[ -x "$LOADLENS_BIN/$b" ] || fail "$LOADLENS_BIN/$b not built"
	done
}

# A TCP/UDP port on 127.0.0.1 that nothing listens on.
free_port() {
	local p
	for _ in $(seq 1 200); do
		p=$((20000 + RANDOM % 10000))
		if ! ss -Htanul "( sport = :$p )" | grep -q .; then
			echo "$p"
			return
		fi
	done
	fail "no free port found"
}

# start NAME CMD...: run in background, stdout/stderr to $LL_TMP/NAME.{out,err}
start() {
	local name=$1
	shift
	"$@" >"$LL_TMP/$name.out" 2>"$LL_TMP/$name.err" &
	LL_PIDS+=($!)
	eval "PID_$name=$!"
}

# wait_for NAME PATTERN [SECONDS]: until PATTERN appears in NAME's stderr
wait_for() {
	local name=$1 pat=$2 secs=${3:-20} i
	for i in $(seq 1 $((secs * 10))); do
		grep -q "$pat" "$LL_TMP/$name.err" 2>/dev/null && return 0
		sleep 0.1
	done
	echo "--- $name stderr:"
	cat "$LL_TMP/$name.err"
	fail "$name did not print '$pat' within ${secs}s"
}

# stop NAME: SIGINT, then wait for it to exit (bounded) and check its exit code is 0
stop() {
	local name=$1 pid rc i
	pid=$(eval echo "\$PID_$name")
	kill -INT "$pid" 2>/dev/null
	for i in $(seq 1 100); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	wait "$pid"
	rc=$?
	[ "$rc" = 0 ] || {
		cat "$LL_TMP/$name.err"
		fail "$name exited $rc"
	}
}

# jget FILE JQ-EXPR
jget() {
	jq -er "$2" "$1" || fail "$1 has no $2"
}

# --- request timing (issue 4) ---

# within_pct VALUE REF PCT: |VALUE - REF| <= PCT% of REF
within_pct() {
	awk -v v="$1" -v r="$2" -v p="$3" 'BEGIN { d = v - r; if (d < 0) d = -d; exit !(d <= r * p / 100) }'
}

# check_within WHAT VALUE REF PCT: fail unless within_pct, else print the comparison
check_within() {
	local what=$1 v=$2 r=$3 p=$4 pct
	pct=$(awk -v v="$v" -v r="$r" 'BEGIN { printf "%+.2f", (v - r) * 100 / r }')
	within_pct "$v" "$r" "$p" || fail "$what: $v vs $r ($pct%, limit ±$p%)"
	echo "ok: $what $v vs $r ($pct%, limit ±$p%)"
}

# start_refserver NAME PROTO PORT ARGS...: pinned to CPU 0 when there are 2+ CPUs
start_refserver() {
	local name=$1 proto=$2 port=$3
	shift 3
	start "$name" taskset -c 0 "$LOADLENS_BIN/loadlens-refserver" --proto "$proto" \
		--listen "127.0.0.1:$port" --json "$LL_TMP/$name.json" "$@"
	wait_for "$name" listening
}

# start_refserver_rt NAME PROTO PORT ARGS...: start_refserver at a real-time priority (SCHED_FIFO)
# where allowed, for tests that compare the observer's service time with the server's own: the
# observer's runs from the kernel's read to the transmit, the server's from after its read
# callback began to before its write, so a preemption by another process in between counts in
# the first only, and on a loaded 2-core machine such preemptions (and the CPU they take from a
# busy-looping server) move p99s by several percent. SCHED_FIFO keeps other processes off the
# server's CPU (kernel.sched_rt_runtime_us still leaves them 5%); without it, a note says so.
start_refserver_rt() {
	local name=$1 proto=$2 port=$3 rt=
	shift 3
	if chrt -f 10 true 2>/dev/null; then
		rt="chrt -f 10"
	else
		echo "note: cannot run the server at SCHED_FIFO; timings may include preemptions by others"
	fi
	start "$name" $rt taskset -c 0 "$LOADLENS_BIN/loadlens-refserver" --proto "$proto" \
		--listen "127.0.0.1:$port" --json "$LL_TMP/$name.json" "$@"
	wait_for "$name" listening
}

# start_observer NAME PORT ARGS...: observer with --json $LL_TMP/NAME.json, attached
start_observer() {
	local name=$1 port=$2
	shift 2
	start "$name" "$LOADLENS_BIN/loadlens-observer" --port "$port" --interval 1s \
		--json "$LL_TMP/$name.json" "$@"
	wait_for "$name" observing
}

# load_cpu CMD...: run a load generator pinned to CPU 1 (the server is on CPU 0)
load_cpu() {
	if [ "$(nproc)" -ge 2 ]; then
		taskset -c 1 "$@"
	else
		"$@"
	fi
}

# netns_create NAME: a network namespace with loopback up, deleted at exit (after ll_cleanup's
# kills). Prints nothing; fails the test if ip netns is unavailable.
LL_NETNS=()
netns_create() {
	local ns=$1
	ip netns add "$ns" 2>/dev/null || skip "cannot create network namespaces (ip netns add)"
	LL_NETNS+=("$ns")
	trap 'll_cleanup; for n in "${LL_NETNS[@]}"; do ip netns del "$n" 2>/dev/null; done' EXIT
	ip -n "$ns" link set lo up || fail "cannot bring lo up in $ns"
}

# --- loadlens-driver tests (issue 5) ---

# oneshot_httpd NAME PORT REQUESTS ANSWERS [SAVE]: oneshot_httpd.py on 127.0.0.1:PORT in the
# background, waited for until it listens: one connection, REQUESTS requests read, ANSWERS
# answered, the first request written to SAVE if given.
oneshot_httpd() {
	local name=$1
	shift
	start "$name" /usr/bin/python3 "$(dirname "${BASH_SOURCE[0]}")/oneshot_httpd.py" "$@"
	wait_for "$name" listening
}

# refserver_up NAME PORT ARGS...: loadlens-refserver on 127.0.0.1:PORT, JSON to $LL_TMP/NAME.json,
# started in the background and waited for until it listens.
refserver_up() {
	local name=$1 port=$2
	shift 2
	start "$name" "$LOADLENS_BIN/loadlens-refserver" --listen "127.0.0.1:$port" \
		--json "$LL_TMP/$name.json" "$@"
	wait_for "$name" listening
}

# driver NAME ARGS...: run loadlens-driver in the foreground with --json $LL_TMP/NAME.json;
# stdout/stderr to $LL_TMP/NAME.{out,err}; fails the test on a crash or an unexpected exit code
# (DRIVER_RC, default 0).
driver() {
	local name=$1 rc=0
	shift
	timeout 60 "$LOADLENS_BIN/loadlens-driver" "$@" --json "$LL_TMP/$name.json" \
		>"$LL_TMP/$name.out" 2>"$LL_TMP/$name.err" || rc=$?
	if [ "$rc" != "${DRIVER_RC:-0}" ]; then
		cat "$LL_TMP/$name.out" "$LL_TMP/$name.err"
		fail "loadlens-driver $* exited $rc, expected ${DRIVER_RC:-0}"
	fi
}

# --- observer targets: --cgroup, --children, restarts (issue 3) ---

# cgroup_create NAME: a cgroup v2 directory NAME under the cgroup2 mount, removed at exit (after
# ll_cleanup has stopped its processes); sets LL_CGROUP to its path. Skips without cgroup v2.
LL_CGROUPS=()
cgroup_create() {
	local mnt
	mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
	[ -n "$mnt" ] || skip "no cgroup v2 mount (mount -t cgroup2 none /sys/fs/cgroup)"
	LL_CGROUP="$mnt/$1"
	mkdir "$LL_CGROUP" || skip "cannot create cgroup $LL_CGROUP"
	LL_CGROUPS+=("$LL_CGROUP")
	trap 'll_cleanup; for n in "${LL_NETNS[@]}"; do ip netns del "$n" 2>/dev/null; done
	      for g in "${LL_CGROUPS[@]}"; do rmdir "$g" 2>/dev/null; done' EXIT
}

# new_conns NAME PORT N: the driver opens N new connections (one request each, 4 at a time) to
# 127.0.0.1:PORT and must complete all of them; its JSON goes to $LL_TMP/NAME.json.
new_conns() {
	local name=$1 port=$2 n=$3 done_
	timeout 60 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" -c 4 -n "$n" --new-conn \
		-q --json "$LL_TMP/$name.json" >"$LL_TMP/$name.out" 2>&1 ||
		{ cat "$LL_TMP/$name.out"; fail "driver to port $port exited $?"; }
	done_=$(jget "$LL_TMP/$name.json" .connections)
	[ "$done_" = "$n" ] || fail "driver opened $done_ connections to port $port, asked for $n"
}

# --- loadlens-driver over TLS and HTTP/2, against nginx (issue 5) ---

# tls_cert DIR: a self-signed certificate for CN=localhost, valid one day: DIR/cert.pem, DIR/key.pem
tls_cert() {
	local dir=$1
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
		-keyout "$dir/key.pem" -out "$dir/cert.pem" >"$dir/openssl.err" 2>&1 ||
		{ cat "$dir/openssl.err"; fail "openssl could not make a self-signed certificate"; }
}

# nginx_counts PORT: "ACCEPTED REQUESTS" from nginx's stub_status at 127.0.0.1:PORT/status; this
# read is itself one connection and one request. Prints nothing if nginx does not answer.
nginx_counts() {
	local port=$1 out
	exec 3<>"/dev/tcp/127.0.0.1/$port" || return 0
	printf 'GET /status HTTP/1.0\r\nHost: localhost\r\n\r\n' >&3
	out=$(timeout 5 cat <&3)
	exec 3<&-
	printf '%s\n' "$out" | tr -d '\r' | awk 'NF == 3 && $1 ~ /^[0-9]+$/ { print $1, $3; exit }'
}

# nginx_up NAME STATUS_PORT SERVER_BLOCKS: nginx as one foreground process (no daemon, no master),
# with SERVER_BLOCKS and stub_status on 127.0.0.1:STATUS_PORT/status, every file under
# $LL_TMP/NAME, no access log; stopped by ll_cleanup. Returns once the status page answers.
nginx_up() {
	local name=$1 sport=$2 servers=$3 dir=$LL_TMP/$1 i
	mkdir -p "$dir/tmp"
	cat >"$dir/nginx.conf" <<CONF
daemon off;
master_process off;
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
	access_log off;
	keepalive_requests 1000000;
	client_body_temp_path $dir/tmp/body;
	proxy_temp_path $dir/tmp/proxy;
	fastcgi_temp_path $dir/tmp/fastcgi;
	uwsgi_temp_path $dir/tmp/uwsgi;
	scgi_temp_path $dir/tmp/scgi;
	$servers
	server {
		listen 127.0.0.1:$sport;
		location = /status { stub_status; }
	}
}
CONF
	start "$name" nginx -p "$dir" -e "$dir/error.log" -c "$dir/nginx.conf"
	for i in $(seq 1 100); do
		[ -n "$(nginx_counts "$sport" 2>/dev/null)" ] && return 0
		kill -0 "$(eval echo "\$PID_$name")" 2>/dev/null || break
		sleep 0.1
	done
	cat "$dir/error.log" "$LL_TMP/$name.err" 2>/dev/null
	fail "nginx did not start (config $dir/nginx.conf)"
}
