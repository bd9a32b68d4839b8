#!/bin/bash
# The embedded default run: reference server + observer + driver on loopback, then what each saw.
# Bounded: a fixed number of connections and requests; everything it starts is stopped at exit.
set -uo pipefail

ROOT=$(cd "$(dirname "$(readlink -f "$0")")/.." && pwd)
BIN=${LOADLENS_BUILD:-$ROOT/build}/bin
OUT=${LOADLENS_DEMO_DIR:-$(mktemp -d /tmp/loadlens-demo.XXXXXX)}
PORT=${LOADLENS_DEMO_PORT:-18080}
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

stop_wait() { # PID
	kill -INT "$1" 2>/dev/null
	wait "$1"
}

echo "== loadlens demo: reference server on 127.0.0.1:$PORT, observer on its port, driver with"
echo "   $CONNS new connections (one request each, 8 at a time), then 50,000 keep-alive requests"
echo "   (files in $OUT)"
echo

"$BIN/loadlens-refserver" --proto tcp --listen "127.0.0.1:$PORT" --service-time 50us \
	--json "$OUT/refserver.json" >"$OUT/refserver.out" 2>"$OUT/refserver.err" &
SRV=$!
PIDS+=($SRV)
wait_line "$OUT/refserver.err" listening 10

"$BIN/loadlens-observer" --port "$PORT" --json "$OUT/observer.json" \
	>"$OUT/observer.out" 2>"$OUT/observer.err" &
OBS=$!
PIDS+=($OBS)
wait_line "$OUT/observer.err" observing 60

echo "== driver: new connection per request"
"$BIN/loadlens-driver" "tcp://127.0.0.1:$PORT" -c 8 -n "$CONNS" --new-conn \
	--json "$OUT/driver-newconn.json" || die "driver failed"
echo
echo "== driver: keep-alive, 50 connections"
"$BIN/loadlens-driver" "tcp://127.0.0.1:$PORT" -c 50 -n 50000 \
	--json "$OUT/driver-keepalive.json" || die "driver failed"
echo

stop_wait "$OBS"
stop_wait "$SRV"
PIDS=()

echo "== observer (live lines and summary)"
cat "$OUT/observer.out"
echo

drv_conns=$(( $(jq .connections "$OUT/driver-newconn.json") + $(jq .connections "$OUT/driver-keepalive.json") ))
srv_conns=$(jq .connections_accepted "$OUT/refserver.json")
obs_conns=$(jq .accepted "$OUT/observer.json")
echo "== accepted connections, three ways"
printf '   driver opened     %8d\n   refserver accepted %7d\n   observer counted  %8d\n' \
	"$drv_conns" "$srv_conns" "$obs_conns"
if [ "$drv_conns" = "$srv_conns" ] && [ "$srv_conns" = "$obs_conns" ]; then
	echo "   => all three agree exactly"
else
	echo "   => MISMATCH"
	exit 1
fi
