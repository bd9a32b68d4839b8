#!/bin/bash
# The embedded default run: two reference servers, one observer on both ports, and the driver on
# loopback; then what each of them saw, side by side.
#   1. connection churn: 10,000 new connections (one request each) -> accepted, counted three ways
#   2. overload: HTTP open loop at 1,500 req/s against one worker that serves 1 ms per request
#      (capacity about 1,000/s) -> where each request's time went: queue wait vs service time
# Bounded: fixed request counts and durations; everything it starts is stopped at exit.
set -uo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
BIN=${LOADLENS_BUILD:-$ROOT/build}/bin
OUT=${LOADLENS_DEMO_DIR:-$(mktemp -d /tmp/loadlens-demo.XXXXXX)}
P1=${LOADLENS_DEMO_PORT:-18080}
P2=$((P1 + 1))
CONNS=${LOADLENS_DEMO_CONNS:-10000}
PIDS=()

cleanup() {
	local p
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null; done
}
trap cleanup EXIT

die() {
	echo "demo: $*" >&2
	exit 1
}

wait_line() { # FILE PATTERN SECONDS
	local i
	for i in $(seq 1 $(($3 * 10))); do
		grep -q "$2" "$1" 2>/dev/null && return 0
		sleep 0.1
	done
	cat "$1" >&2
	die "no '$2' in $1 after $3 s"
}

# The reference servers and the driver need no privilege: started as root, they run as nobody
# (no groups, no capabilities, no_new_privs); only the observer keeps root. Their result files are
# made beforehand and handed to nobody, and the output directory opened to it (o+x).
AS_USER=()
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	AS_USER=(setpriv --reuid="$(id -u nobody)" --regid="$(id -g nobody)" --clear-groups
		--inh-caps=-all --bounding-set=-all --no-new-privs)
fi
unpriv_files() { # FILE...: writable by nobody, or the unprivileged runs fall back to root
	local f
	[ ${#AS_USER[@]} -gt 0 ] || return 0
	chmod o+x "$OUT"
	for f; do
		: >"$f" && chown "$(id -u nobody):$(id -g nobody)" "$f"
	done
	if ! "${AS_USER[@]}" test -w "$1" || ! "${AS_USER[@]}" test -x "$BIN/loadlens-driver"; then
		echo "demo: nobody cannot reach $OUT or $BIN: the servers and the driver run as root" >&2
		AS_USER=()
	fi
}

ms() { # ns -> "1.23 ms"
	awk -v n="$1" 'BEGIN { printf "%.2f ms", n / 1e6 }'
}

echo "== loadlens demo (files in $OUT)"
echo "   tcp refserver on 127.0.0.1:$P1, http refserver on 127.0.0.1:$P2 (1 worker, 1 ms per request),"
echo "   one observer on both ports, then the driver"
echo

unpriv_files "$OUT/refserver-tcp.json" "$OUT/refserver-http.json" "$OUT/driver-churn.json" \
	"$OUT/driver-overload.json"
[ ${#AS_USER[@]} -gt 0 ] && echo "   (reference servers and driver as nobody; only the observer runs as root)" && echo
"${AS_USER[@]}" "$BIN/loadlens-refserver" --proto tcp --listen "127.0.0.1:$P1" \
	--json "$OUT/refserver-tcp.json" >"$OUT/refserver-tcp.out" 2>"$OUT/refserver-tcp.err" &
SRV1=$!
"${AS_USER[@]}" "$BIN/loadlens-refserver" --proto http --listen "127.0.0.1:$P2" --workers 1 \
	--service-time 1ms --json "$OUT/refserver-http.json" \
	>"$OUT/refserver-http.out" 2>"$OUT/refserver-http.err" &
SRV2=$!
PIDS+=($SRV1 $SRV2)
wait_line "$OUT/refserver-tcp.err" listening 10
wait_line "$OUT/refserver-http.err" listening 10

"$BIN/loadlens-observer" --port "$P1" --port "$P2" --runq --interval 0 --json "$OUT/observer.json" \
	>"$OUT/observer.out" 2>"$OUT/observer.err" &
OBS=$!
PIDS+=($OBS)
wait_line "$OUT/observer.err" observing 60

echo "== 1. driver: $CONNS new connections to :$P1, one request each, 8 at a time"
"${AS_USER[@]}" "$BIN/loadlens-driver" "tcp://127.0.0.1:$P1" -c 8 -n "$CONNS" --new-conn --interval 0 \
	--json "$OUT/driver-churn.json" || die "driver failed"
echo
echo "== 2. driver: HTTP open loop at 1,500 req/s for 5 s to :$P2 (capacity about 1,000 req/s)"
"${AS_USER[@]}" "$BIN/loadlens-driver" "http://127.0.0.1:$P2/" -c 100 --rate 1500 -d 5s --interval 0 \
	--json "$OUT/driver-overload.json" || die "driver failed"
echo

kill -INT "$OBS" && wait "$OBS" || die "observer failed"
kill -INT "$SRV1" "$SRV2" && wait "$SRV1" "$SRV2" || die "refserver failed"
PIDS=()

echo "== observer summary"
cat "$OUT/observer.out"
echo

drv=$(( $(jq .connections "$OUT/driver-churn.json") + $(jq .connections "$OUT/driver-overload.json") ))
srv=$(( $(jq .connections_accepted "$OUT/refserver-tcp.json") + $(jq .connections_accepted "$OUT/refserver-http.json") ))
obs=$(jq .accepted "$OUT/observer.json")
echo "== accepted connections, counted three ways"
printf '   driver opened       %7d\n   refservers accepted %7d\n   observer counted    %7d\n' \
	"$drv" "$srv" "$obs"
if [ "$drv" = "$srv" ] && [ "$srv" = "$obs" ]; then
	echo "   => all three agree exactly"
else
	echo "   => MISMATCH"
	exit 1
fi
echo

slot=".request_timing.slots[] | select(.port == $P2 and .proto == \"tcp\")"
q=$(jq "$slot | .socket_queue_wait.p50" "$OUT/observer.json")
s=$(jq "$slot | .service_time.p50" "$OUT/observer.json")
r=$(jq "$slot | .residence.p50" "$OUT/observer.json")
rs=$(jq .service_time.p50 "$OUT/refserver-http.json")
cu=$(jq .latency_uncorrected.p50 "$OUT/driver-overload.json")
cc=$(jq .latency.p50 "$OUT/driver-overload.json")
cm=$(jq '.latency_uncorrected.mean | floor' "$OUT/driver-overload.json")
rm_=$(jq "$slot | .residence.mean | floor" "$OUT/observer.json")
echo "== 2. where an overloaded request's time went (medians, port $P2)"
printf '   client, from the intended send time   %12s   (what a user of an open system waits)\n' "$(ms "$cc")"
printf '   client, from the actual send          %12s\n' "$(ms "$cu")"
printf '   server residence (observer)           %12s\n' "$(ms "$r")"
printf '     socket-queue wait                   %12s\n' "$(ms "$q")"
printf '     service time                        %12s   (the server itself measured %s)\n' "$(ms "$s")" "$(ms "$rs")"
printf '   network and client: mean client round trip minus mean residence = %s\n' \
	"$(awk -v n=$((cm - rm_)) 'BEGIN { printf "%.1f us", n / 1e3 }')"
echo "   => service time stays at 1 ms; the rest is queueing: in the server's socket while"
echo "      connections are busy, and in the driver's schedule once all $(jq .config.connections "$OUT/driver-overload.json") are."
