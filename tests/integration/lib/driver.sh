# shellcheck shell=bash
# loadlens-driver (and other load) in a test: bounded in time, its exit code checked.

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

# new_conns NAME PORT N: the driver opens N new connections (one request each, 4 at a time) to
# 127.0.0.1:PORT and must complete all of them; its JSON goes to $LL_TMP/NAME.json.
new_conns() {
	local name=$1 port=$2 n=$3 done_
	timeout 60 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" -c 4 -n "$n" --new-conn \
		-q --json "$LL_TMP/$name.json" >"$LL_TMP/$name.out" 2>&1 ||
		{ st=$?; cat "$LL_TMP/$name.out"; fail "driver to port $port exited $st"; }
	done_=$(jget "$LL_TMP/$name.json" .connections)
	[ "$done_" = "$n" ] || fail "driver opened $done_ connections to port $port, asked for $n"
}

# load_driver NAME ARGS...: loadlens-driver pinned as load_cpu's, quiet (-q), its JSON in
# $LL_TMP/NAME.json, its output in $LL_TMP/NAME.out; its exit status
load_driver() {
	local name=$1
	shift
	load_cpu "$LOADLENS_BIN/loadlens-driver" "$@" -q --json "$LL_TMP/$name.json" \
		>"$LL_TMP/$name.out" 2>&1
}

# load_cpu CMD...: run a load generator pinned to CPU 1 (the server is on CPU 0, refserver_up --pin)
load_cpu() {
	if [ "$(nproc)" -ge 2 ]; then
		taskset -c 1 "$@"
	else
		"$@"
	fi
}
