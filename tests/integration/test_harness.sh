#!/bin/bash
# The harness itself (lib.sh, lib/core.sh): its one EXIT trap stops the test's processes first,
# then runs the registered cleanups, the last registered first, then removes $LL_TMP; the
# test's exit status survives it, a failure and a skip included. Needs no root and no BPF.
. "$(dirname "$0")/lib.sh"

# child STATUS-CMD: a test script that starts a process, registers two cleanups, and ends with
# STATUS-CMD; prints its own $LL_TMP and the process's pid
child() {
	cat >"$LL_TMP/child.sh" <<EOF
. "$(dirname "$0")/lib.sh"
start sleeper sleep 60
echo "tmp \$LL_TMP pid \$PID_sleeper"
ll_on_exit 'echo "first registered: sleeper \$(kill -0 \$PID_sleeper 2>/dev/null && echo alive || echo stopped)" >>"$LL_TMP/order"'
ll_on_exit 'echo "second registered" >>"$LL_TMP/order"'
$1
EOF
	: >"$LL_TMP/order"
	rc=0
	bash "$LL_TMP/child.sh" >"$LL_TMP/child.out" 2>&1 || rc=$?
}

check() { # check WHAT WANT-RC
	local tmp pid
	read -r _ tmp _ pid <"$LL_TMP/child.out"
	[ "$rc" = "$2" ] || fail "$1: exit status $rc, expected $2 ($(cat "$LL_TMP/child.out"))"
	[ "$(cat "$LL_TMP/order")" = "second registered
first registered: sleeper stopped" ] || fail "$1: cleanups ran as: $(cat "$LL_TMP/order")"
	[ ! -e "$tmp" ] || fail "$1: $tmp left behind"
	! kill -0 "$pid" 2>/dev/null || fail "$1: the test's process $pid still runs"
	echo "ok: $1: status $rc, process stopped before the cleanups, last registered first, $tmp removed"
}

child "exit 0"
check "a passing test" 0
child 'fail "on purpose"'
check "a failing test" 1
child 'skip "on purpose"'
check "a skipped test" 77
child 'kill -TERM $$'
check "a test killed by SIGTERM" 143
# A SIGTERM that reaches a started subshell before its exec is lost (1 in ~20 of these children
# before ll_exit said it again, which then waited out the sleeper's 60 s): 60 children that start
# a process and exit at once each end within 5 s, their process stopped (the old trap: 95% caught)
cat >"$LL_TMP/quick.sh" <<EOF
. "$(dirname "$0")/lib.sh"
start sleeper sleep 60
echo "\$PID_sleeper" >"$LL_TMP/quick.pid"
exit 0
EOF
for i in $(seq 1 60); do
	rc=0
	timeout 5 bash "$LL_TMP/quick.sh" >/dev/null 2>&1 || rc=$?
	pid=$(cat "$LL_TMP/quick.pid")
	alive=no
	if kill -0 "$pid" 2>/dev/null; then
		alive=yes
		kill "$pid"
	fi
	[ "$rc" = 0 ] || fail "a test that exits at once (run $i of 60): exit status $rc, not 0 within 5 s"
	[ "$alive" = no ] || fail "a test that exits at once (run $i of 60): its process $pid still ran"
done
echo "ok: 60 tests that exit at once each end within 5 s, their process stopped"
pass "one EXIT trap: processes, then cleanups in reverse order, then the scratch folder"
