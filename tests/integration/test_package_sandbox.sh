#!/bin/bash
# The agent's unit (packaging/loadlens-observer.service) is sandboxed; does the
# observer still work inside it? systemd is not PID 1 on every test machine, so unit_sandbox.py
# applies the unit's own lines the way systemd does: its capability bounding set,
# NoNewPrivileges, and a seccomp filter from SystemCallFilter=, RestrictAddressFamilies= and
# MemoryDenyWriteExecute=; tracefs is mounted first in a mount namespace of the test's (the
# unit's sys-kernel-tracing.mount). Healthy: the observer attaches (the syscall tier too), counts
# the 4 connections, their 4 accept-queue waits and 200 requests of a driver run exactly, and runs as nobody with an empty bounding set,
# no_new_privs and the filter. Sick: the same filter without bpf() stops it (exit 64, one line):
# the filter is enforced, and bpf() is what the allow list adds for it.
source "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-driver loadlens-refserver
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
/usr/bin/python3 -c 'import seccomp' 2>/dev/null || skip "python3-seccomp is not installed"
command -v systemd-analyze >/dev/null || skip "no systemd-analyze (systemd)"
command -v unshare >/dev/null || skip "no unshare (util-linux)"
UNIT="$LOADLENS_SRC/packaging/loadlens-observer.service"
SB="$(dirname "$0")/unit_sandbox.py"
P=$(free_port)
refserver_up srv "$P" --proto http

# sandboxed NAME ARGS...: the observer on port P under the unit's sandbox, in the background
sandboxed() {
	local name=$1
	shift
	start "$name" unshare -m --propagation private /bin/sh -c \
		'mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
		 exec "$@"' sh /usr/bin/python3 "$SB" "$UNIT" "$@" -- \
		"$LOADLENS_BIN/loadlens-observer" --port "$P" --interval 0 --duration 6s --syscalls on \
		--json "$LL_TMP/$name.json"
}

# what the sandbox itself leaves a process before the observer drops anything: the unit's five
# capabilities in the bounding set (BPF, PERFMON, SETUID, SETGID, SETPCAP), no_new_privs, a filter
got=$(/usr/bin/python3 "$SB" "$UNIT" -- /bin/grep -E '^(CapBnd|NoNewPrivs|Seccomp):' \
	/proc/self/status 2>/dev/null | tr -s '\t ' ' ' | tr '\n' ';')
echo "the unit's sandbox: $got"
[ "$got" = "CapBnd: 000000c0000001c0;NoNewPrivs: 1;Seccomp: 2;" ] ||
	fail "the unit's sandbox leaves: $got"

sandboxed ok
wait_for ok observing 60
driver load "http://127.0.0.1:$P/" -n 200 -c 4 -q
pid=$(pgrep -f "loadlens-observer --port $P " | head -1)
[ -n "$pid" ] || fail "no observer process"
st=$(grep -E '^(Uid|CapBnd|NoNewPrivs|Seccomp):' "/proc/$pid/status" | tr -s '\t ' ' ' | tr '\n' ';')
echo "observer under the unit's sandbox: $st"
# the user loadlens if it exists (the package makes it), else nobody: never root
u=$(id -u loadlens 2>/dev/null || id -u nobody)
case "$st" in
*"Uid: $u $u $u $u;"*"CapBnd: 0000000000000000;"*"NoNewPrivs: 1;Seccomp: 2;"*) ;;
*) fail "the sandboxed observer's status: $st (expected uid $u)" ;;
esac
stop ok
grep unit_sandbox "$LL_TMP/ok.err"
[ "$(jget "$LL_TMP/ok.json" .accepted)" = 4 ] ||
	fail "accepted $(jq .accepted "$LL_TMP/ok.json"), the driver opened 4"
# --syscalls on: the syscall tier's classic tracepoints, attached by id with perf_event_open()
[ "$(jget "$LL_TMP/ok.json" .accept_queue_wait.count)" = 4 ] ||
	fail "accept-queue waits $(jq .accept_queue_wait.count "$LL_TMP/ok.json") (the syscall tier), not 4"
req=$(jq "[.request_timing.slots[] | select(.port == $P) | .requests] | add" "$LL_TMP/ok.json")
[ "$req" = 200 ] || fail "the sandboxed observer timed $req requests, the driver sent 200"

# sick: the same sandbox without bpf(): refused at once, one line
rc=0
unshare -m --propagation private /bin/sh -c \
	'mountpoint -q /sys/kernel/tracing || mount -t tracefs tracefs /sys/kernel/tracing
	 exec "$@"' sh /usr/bin/python3 "$SB" "$UNIT" --without bpf -- \
	"$LOADLENS_BIN/loadlens-observer" --port "$P" --interval 0 --duration 2s \
	>"$LL_TMP/sick.out" 2>"$LL_TMP/sick.err" || rc=$?
grep -v unit_sandbox "$LL_TMP/sick.err"
[ "$rc" != 0 ] || fail "the observer ran with bpf() filtered out: is the filter applied?"
pass "the observer works in its unit's sandbox (capabilities, no_new_privs, syscall and address-family filter): 4 connections, 200 requests; without bpf() it stops (exit $rc)"
