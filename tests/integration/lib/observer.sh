# shellcheck shell=bash
# loadlens-observer in a test.

# start_observer NAME PORT ARGS...: observer on PORT with --interval 1s (ARGS may override it) and
# --json $LL_TMP/NAME.json, in the background; returns once it is attached ("observing", within
# 60 s: loading and attaching take seconds on a loaded machine; 240 s under an emulated CPU,
# where the verifier and a trampoline's attach took 25-60 s at 20-30x slower).
start_observer() {
	local name=$1 port=$2
	shift 2
	start "$name" "$LOADLENS_BIN/loadlens-observer" --port "$port" --interval 1s \
		--json "$LL_TMP/$name.json" "$@"
	wait_for "$name" observing "$([ -n "${LL_EMULATED_CPU:-}" ] && echo 240 || echo 60)"
}

# h2load_observed NAME PORT URL H2LOAD_ARGS...: h2load ARGS URL under the observer obs_NAME on
# PORT (its environment the caller's, its options LL_OBSERVER_ARGS's words); fails if h2load
# does, prints h2load's "requests:" line,
# leaves $LL_TMP/obs_NAME.json and h2load's output in $LL_TMP/h2load_NAME.out.
h2load_observed() {
	local name=$1 port=$2 url=$3
	shift 3
	# shellcheck disable=SC2086 # (its words)
	start_observer "obs_$name" "$port" ${LL_OBSERVER_ARGS:-}
	h2load "$@" "$url" >"$LL_TMP/h2load_$name.out" 2>&1 ||
		fail "$name: h2load exited $? ($(tail -3 "$LL_TMP/h2load_$name.out"))"
	sleep 0.3
	stop "obs_$name"
	grep "requests:" "$LL_TMP/h2load_$name.out"
}

# start_agent NAME PORT METRICS_PORT ARGS...: the observer as a fleet agent on PORT
# (--interval 0 --metrics METRICS_PORT, --json $LL_TMP/NAME.json), in the background; returns once
# /metrics is served ("metrics at").
start_agent() {
	local name=$1 port=$2 mport=$3
	shift 3
	start "$name" "$LOADLENS_BIN/loadlens-observer" --port "$port" --interval 0 \
		--metrics "$mport" --json "$LL_TMP/$name.json" "$@"
	wait_for "$name" "metrics at" 20
}

# observer_map_count PID MAP FILTER: how many entries of the observer PID's BPF map named MAP
# match the jq FILTER on an entry's formatted value (.sk != 0); bpftool and jq are the caller's
# to require
observer_map_count() {
	local f m
	for f in /proc/"$1"/fdinfo/*; do
		m=$(awk '/^map_id:/ { print $2 }' "$f" 2>/dev/null)
		[ -n "$m" ] || continue
		bpftool -j map show id "$m" 2>/dev/null | jq -e --arg n "$2" '.name == $n' >/dev/null ||
			continue
		bpftool -j map dump id "$m" | jq "[.[] | select(.formatted.value | $3)] | length"
		return
	done
	fail "no $2 map among observer $1's descriptors"
}

# tcp_slot PORT: the jq path of the request-timing slot of TCP port PORT in the observer's JSON
tcp_slot() { echo ".request_timing.slots[] | select(.proto == \"tcp\" and .port == $1)"; }

# requests_as_logged NAME PORT LOG WANT ZERO...: in $LL_TMP/obs_NAME.json, the requests timed on
# TCP port PORT = the lines of the access log LOG = WANT, each with its service time, and each
# counter ZERO of that slot 0; prints the count
requests_as_logged() {
	local name=$1 want=$4 j=$LL_TMP/obs_$1.json s lines k
	s=$(tcp_slot "$2")
	lines=$(wc -l <"$3")
	shift 4
	[ "$lines" = "$want" ] || fail "$name: nginx logged $lines requests, $want expected"
	[ "$(jget "$j" "$s | .requests")" = "$lines" ] ||
		fail "$name: observer counted $(jget "$j" "$s | .requests") requests, nginx logged $lines"
	echo "ok: $name: observer $(jget "$j" "$s | .requests") requests = nginx's $lines log lines"
	for k in "$@"; do
		[ "$(jget "$j" "$s | .$k")" = 0 ] || fail "$name: $k $(jget "$j" "$s | .$k"), 0 expected"
	done
	[ "$(jget "$j" "$s | .service_time.count")" = "$lines" ] || fail "$name: service count"
}
