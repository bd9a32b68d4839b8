#!/bin/bash
# --pid P --children: a process the target forks after the observer started is a target too.
# The target is a shell that, once told to, forks the reference server; with --children the
# observer counts the server's accepts exactly, without it (the control run) none of them.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver

# run_case NAME N OBSERVER-ARGS...: a fresh parent shell, observer on it, N connections
run_case() {
	local name=$1 n=$2 port
	shift 2
	port=$(free_port)
	mkfifo "$LL_TMP/$name.go"
	refserver_up --forked-after "$LL_TMP/$name.go" "${name}_parent" "$port" --proto tcp
	start "${name}_obs" "$LOADLENS_BIN/loadlens-observer" \
		--pid "$(eval echo "\$PID_${name}_parent")" --interval 250ms --no-requests \
		--json "$LL_TMP/$name.obs.json" "$@"
	wait_for "${name}_obs" observing 60
	echo go >"$LL_TMP/$name.go"
	wait_for "${name}_parent" listening
	new_conns "$name.drv" "$port" "$n"
	stop "${name}_obs"
	# the parent shell waits for the server: stop the server, then the shell ends
	pkill -INT -P "$(eval echo "\$PID_${name}_parent")" -x loadlens-refser ||
		fail "no server child of the $name parent to stop"
	wait "$(eval echo "\$PID_${name}_parent")"
}

run_case with 300 --children
run_case without 100
expect_json "the child server's accepts" "$LL_TMP/with_parent.json" .connections_accepted 300
expect_json "the observer's count of them with --children" "$LL_TMP/with.obs.json" .accepted 300
expect_json "the observer's count of a non-target child's 100 without --children" \
	"$LL_TMP/without.obs.json" .accepted 0
pass "--children: the forked server's 300 accepts counted exactly; none without --children"
