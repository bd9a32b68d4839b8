# shellcheck shell=bash
# loadlens-observer in a test.

# start_observer NAME PORT ARGS...: observer on PORT with --interval 1s (ARGS may override it) and
# --json $LL_TMP/NAME.json, in the background; returns once it is attached ("observing").
start_observer() {
	local name=$1 port=$2
	shift 2
	start "$name" "$LOADLENS_BIN/loadlens-observer" --port "$port" --interval 1s \
		--json "$LL_TMP/$name.json" "$@"
	wait_for "$name" observing
}
