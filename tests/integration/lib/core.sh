# shellcheck shell=bash
# The harness's core: where the binaries are, the test's scratch folder, the one EXIT trap and its
# cleanup registry, skips and failures, and the processes a test starts.
#
# One trap: lib.sh sets `trap ll_exit EXIT` once and nothing else sets an EXIT trap. At exit,
# ll_exit stops every process started with `start` (or handed to `ll_track`), then runs the
# cleanups registered with `ll_on_exit`, the last registered first, then removes $LL_TMP.

set -u
LOADLENS_BIN=${LOADLENS_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../build/bin" && pwd)}
LL_TMP=$(mktemp -d /tmp/loadlens-test.XXXXXX)
LL_PIDS=()
LL_CLEANUPS=()

# ll_on_exit CMD: run the shell command CMD at exit, after the test's processes are stopped.
ll_on_exit() {
	LL_CLEANUPS+=("$1")
}

# ll_track PID: a background process the test started itself, stopped at exit like start's.
ll_track() {
	LL_PIDS+=("$1")
}

# A SIGTERM that reaches a `start`ed subshell between its fork and its exec is lost (bash's own
# handler, inherited for that moment, takes it; seen: 9 runs of test_harness.sh in 150, its
# sleeper left to run out its 60 s). So a process still there after 1 s is sent SIGTERM again,
# and one still there after 10 s SIGKILL.
ll_exit() {
	local pid i
	for pid in "${LL_PIDS[@]}"; do
		kill -TERM "$pid" 2>/dev/null
	done
	for pid in "${LL_PIDS[@]}"; do
		for ((i = 1; i <= 190; i++)); do
			kill -0 "$pid" 2>/dev/null || break
			if [ "$i" -le 100 ]; then sleep 0.01; else sleep 0.1; fi
			if [ "$i" = 100 ]; then kill -TERM "$pid" 2>/dev/null; fi
			if [ "$i" = 190 ]; then kill -KILL "$pid" 2>/dev/null; fi
		done
		wait "$pid" 2>/dev/null
	done
	for ((i = ${#LL_CLEANUPS[@]} - 1; i >= 0; i--)); do
		eval "${LL_CLEANUPS[i]}"
	done
	if [ -z "${LL_KEEP_TMP:-}" ]; then
		rm -rf "$LL_TMP"
	else
		echo "kept $LL_TMP"
	fi
}
trap ll_exit EXIT

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

# require_bpf [BIN...]: the preconditions of a test that loads BPF: root, BTF, a trivial program
# that loads; and each BIN built (require_bin).
require_bpf() {
	[ "$(id -u)" = 0 ] || skip "needs root to load BPF (run the test command as root)"
	[ -r /sys/kernel/btf/vmlinux ] || skip "kernel has no BTF (/sys/kernel/btf/vmlinux missing)"
	[ -x "$LOADLENS_BIN/ll_bpf_probe" ] || fail "$LOADLENS_BIN/ll_bpf_probe not built"
	local rc=0
	"$LOADLENS_BIN/ll_bpf_probe" || rc=$?
	[ "$rc" = 77 ] && exit 77
	[ "$rc" = 0 ] || fail "ll_bpf_probe exited $rc"
	require_bin "$@"
}

# require_cmd CMD PACKAGE [CMD PACKAGE]...: skip (77) unless each CMD is on PATH, naming the
# Debian PACKAGE that has it.
require_cmd() {
	while [ $# -ge 2 ]; do
		command -v "$1" >/dev/null || skip "$1 is not installed (apt-get install $2)"
		shift 2
	done
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

# free_ports VAR...: each VAR set to a free_port, no two the same.
free_ports() {
	local v p taken=" "
	for v in "$@"; do
		p=$(free_port)
		while [[ $taken == *" $p "* ]]; do p=$(free_port); done
		taken+="$p "
		printf -v "$v" '%s' "$p"
	done
}

# start NAME CMD...: run in background, stdout/stderr to $LL_TMP/NAME.{out,err}; its pid is
# $PID_NAME, and it is stopped at exit.
start() {
	local name=$1
	shift
	"$@" >"$LL_TMP/$name.out" 2>"$LL_TMP/$name.err" &
	ll_track $!
	eval "PID_$name=$!"
}

# wait_for NAME PATTERN [SECONDS]: until PATTERN appears in NAME's stderr
wait_for() {
	local name=$1 pat=$2 secs=${3:-20} i pid
	pid=$(eval echo "\${PID_$name:-}")
	for i in $(seq 1 $((secs * 10))); do
		grep -q "$pat" "$LL_TMP/$name.err" 2>/dev/null && return 0
		# a process that has exited prints nothing more: said at once, not after secs
		if [ -n "$pid" ] && ! kill -0 "$pid" 2>/dev/null; then
			grep -q "$pat" "$LL_TMP/$name.err" 2>/dev/null && return 0
			echo "--- $name stderr:"
			cat "$LL_TMP/$name.err"
			wait "$pid"
			fail "$name exited ($?) before it printed '$pat'"
		fi
		sleep 0.1
	done
	echo "--- $name stderr:"
	cat "$LL_TMP/$name.err"
	fail "$name did not print '$pat' within ${secs}s"
}

# stop NAME...: each in turn: SIGINT, then wait for it to exit (bounded) and check its exit code
# is 0
stop() {
	local name pid rc i
	for name in "$@"; do
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
	done
}
