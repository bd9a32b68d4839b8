#!/bin/bash
# Request timing on a Go gRPC server (grpc-go, bench/grpc_kv/main.go: kv.Store, a unary
# interceptor that counts every call and times it): what a modern gRPC server does to a count
# (flow-control WINDOW_UPDATEs and PINGs between calls, several streams in flight on a connection,
# responses written by another goroutine than the reads) against its own figures:
# - each handler sleeping 2 ms, the driver's grpc:// with 4 connections of 10 streams in flight,
#   every 10th call answered RESOURCE_EXHAUSTED by the interceptor: the observer's requests are the
#   server's calls exactly; its service mean is within 5% of the interceptor's mean per call (the
#   observer's runs from the read of the request's end to the response's first write: grpc-go's
#   decoding, its goroutine hand-off and its framing are in it, +1..3% on 2 ms); grpc_status says
#   "not read" (the trailers are HPACK-coded: a code per call is not read in the kernel);
# - healthy: no warning.
# The server is built from the Go module proxy (grpc-go, protoc-gen-go, protoc-gen-go-grpc) into
# the build tree once (LL_GO_CACHE, default $LOADLENS_BIN/../go-grpc); without Go or the proxy the
# test skips with the reason.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-driver
GO=$(command -v go || echo /usr/local/go/bin/go)
[ -x "$GO" ] || skip "Go is not installed (the gRPC server is grpc-go)"
command -v protoc >/dev/null || skip "protoc is not installed (apt-get install protobuf-compiler)"
CACHE=${LL_GO_CACHE:-$LOADLENS_BIN/../go-grpc}
SRV=$CACHE/grpc_kv_server
mkdir -p "$CACHE"
# rebuilt when its source changes
sum=$(sha256sum "$LOADLENS_SRC/bench/grpc_kv/main.go" | cut -c1-16)
if [ ! -x "$SRV" ] || [ "$(cat "$CACHE/sum" 2>/dev/null)" != "$sum" ]; then
	PATH=$(dirname "$GO"):$PATH timeout 120 "$GO" list -m google.golang.org/grpc@latest \
		>"$LL_TMP/proxy.out" 2>&1 ||
		skip "the Go module proxy is not reachable ($(tail -1 "$LL_TMP/proxy.out"))"
	echo "building the grpc-go server (Go module proxy) ..."
	PATH=$(dirname "$GO"):$PATH BENCH_GOPATH=$CACHE/gopath timeout 600 \
		"$LOADLENS_SRC/bench/grpc_ghz.sh" --server-only "$SRV" >"$LL_TMP/build.out" 2>&1 ||
		fail "building the grpc-go server failed: $(tail -5 "$LL_TMP/build.out")"
	echo "$sum" >"$CACHE/sum"
fi

slot() { echo ".request_timing.slots[] | select(.proto == \"tcp\" and .port == $1)"; }

P=$(free_port)
start grpc "$SRV" -listen "127.0.0.1:$P" -delay 2ms -exhaust-every 10 -json "$LL_TMP/grpc_srv.json"
wait_for grpc listening 20
start_observer obs "$P"
"$LOADLENS_BIN/loadlens-driver" "grpc://127.0.0.1:$P/kv.Store/Get" \
	--proto-file "$LOADLENS_SRC/tests/data/kv.proto" --message '{"key":"k{{seq}}"}' -c 4 \
	--streams 10 -n 6000 -q --json "$LL_TMP/drv.json" >"$LL_TMP/drv.out" 2>&1 ||
	[ $? = 1 ] || fail "the driver exited $? ($(tail -2 "$LL_TMP/drv.out"))"
sleep 0.3
stop obs
stop grpc
j=$LL_TMP/obs.json
S=$LL_TMP/grpc_srv.json
s=$(slot "$P")
calls=$(jget "$S" '.calls["/kv.Store/Get"]')
[ "$calls" = 6000 ] || fail "the server received $calls calls of the driver's 6000"
[ "$(jget "$S" .codes.RESOURCE_EXHAUSTED)" = 600 ] || fail "the server's statuses: $(jq -c .codes "$S")"
[ "$(jget "$j" "$s | .requests")" = "$calls" ] ||
	fail "observer $(jget "$j" "$s | .requests") calls, the server's interceptor $calls ($(jq -c "$s | {h2_connections, h2_stream_drops, h2_unmatched, h2_lost, h2_unwalked, h2_early, unanswered}" "$j"))"
[ "$(jget "$j" "$s | .h2_connections")" = 4 ] || fail "HTTP/2 connections: $(jget "$j" "$s | .h2_connections") of 4"
echo "ok: observer $(jget "$j" "$s | .requests") calls = the interceptor's $calls (4 connections, 10 streams in flight each)"
check_within "service mean vs the interceptor's mean per call (ns)" \
	"$(jget "$j" "$s | .service_time.mean" | cut -d. -f1)" \
	"$(jget "$S" '.call_mean_ns["/kv.Store/Get"]' | cut -d. -f1)" 5
[ "$(jget "$j" "$s | .grpc_status")" = "not read" ] || fail "grpc_status: $(jq -c "$s | .grpc_status" "$j")"
[ "$(jq '[.findings[] | select(.severity != "note")] | length' "$j")" = 0 ] ||
	fail "a warning on a healthy run: $(jq -c '[.findings[] | .text]' "$j")"
echo "ok: grpc_status \"not read\"; no warning"
pass "grpc-go: calls exact, service within 5% of the server's own"
