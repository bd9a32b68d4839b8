#!/bin/bash
# Request timing on a Go gRPC server (grpc-go, bench/grpc_kv/main.go: kv.Store, a unary
# interceptor that counts every call and times it): what a modern gRPC server does to a count
# (flow-control WINDOW_UPDATEs and PINGs between calls, several streams in flight on a connection,
# responses written by another goroutine than the reads) against its own figures:
# - the driver's grpc:// with 4 connections of 10 streams in flight, open loop at 2,000 calls/s,
#   every 10th call answered RESOURCE_EXHAUSTED by the interceptor: the observer's requests are the
#   server's calls exactly, and so are its calls by grpc-status (HPACK decoded in userspace from
#   the header blocks grpc-go writes: trailers, and Trailers-Only answers for the rejected calls;
#   its encoder indexes them, so after a connection's first call a status is a table entry), and
#   no warning (healthy);
# - handlers sleeping 20 ms: the service mean within 5% of the interceptor's mean per call;
# - handlers that return at once: the observer's mean is the interceptor's plus grpc-go's own
#   path around it (the observer's service runs from the read of the request's end to the
#   response's first write), a constant of 110-170 us here, never less than the interceptor's;
# - 1000 streams in flight on one connection (reads and writes of over 1,000 frames): every call
#   counted, no gap;
# - 2 places for 5 ms handlers, 1 call in flight and then 50: worker_saturation from inside.
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

# grpc NAME DELAY RATE N: the server with handlers sleeping DELAY (every 10th call answered
# RESOURCE_EXHAUSTED by the interceptor) under the driver's grpc://, 4 connections of 10 streams,
# open loop at RATE calls/s (the server's CPU not saturated), N calls; the observer on its
# port. Leaves $LL_TMP/obs_NAME.json and the server's counts in $LL_TMP/srv_NAME.json; checks the
# counts: the server's calls and codes, the observer's requests = the calls exactly.
grpc() {
	local name=$1 delay=$2 rate=$3 n=$4 P j S s calls
	P=$(free_port)
	start "srv_$name" "$SRV" -listen "127.0.0.1:$P" -delay "$delay" -exhaust-every 10 \
		-json "$LL_TMP/srv_$name.json"
	wait_for "srv_$name" listening 20
	start_observer "obs_$name" "$P"
	"$LOADLENS_BIN/loadlens-driver" "grpc://127.0.0.1:$P/kv.Store/Get" \
		--proto-file "$LOADLENS_SRC/tests/data/kv.proto" --message '{"key":"k{{seq}}"}' \
		-c 4 --streams 10 --rate "$rate" -n "$n" -q --json "$LL_TMP/drv_$name.json" \
		>"$LL_TMP/drv_$name.out" 2>&1 || [ $? = 1 ] ||
		fail "$name: the driver exited $? ($(tail -2 "$LL_TMP/drv_$name.out"))"
	sleep 0.3
	stop "obs_$name"
	stop "srv_$name"
	j=$LL_TMP/obs_$name.json S=$LL_TMP/srv_$name.json s=$(tcp_slot "$P")
	calls=$(jget "$S" '.calls["/kv.Store/Get"]')
	[ "$calls" = "$n" ] || fail "$name: the server received $calls calls of the driver's $n"
	[ "$(jget "$S" .codes.ResourceExhausted)" = $((n / 10)) ] ||
		fail "$name: the server's statuses: $(jq -c .codes "$S")"
	[ "$(jget "$j" "$s | .requests")" = "$calls" ] ||
		fail "$name: observer $(jget "$j" "$s | .requests") calls, the server's interceptor $calls ($(jq -c "$s | {h2_connections, h2_stream_drops, h2_unmatched, h2_lost, h2_unwalked, h2_early, unanswered}" "$j"))"
	# grpc-go's reads all walked: none began anywhere but where the last one ended
	expect_json "$name: gaps" "$j" "$s | .h2_gaps" 0
	[ "$(jget "$j" "$s | .h2_connections")" = 4 ] ||
		fail "$name: HTTP/2 connections: $(jget "$j" "$s | .h2_connections") of 4"
	[ "$(jget "$j" "$s | .h2_statuses.grpc_status.OK")" = "$(jget "$S" .codes.OK)" ] &&
		[ "$(jget "$j" "$s | .h2_statuses.grpc_status.RESOURCE_EXHAUSTED")" = "$(jget "$S" .codes.ResourceExhausted)" ] &&
		[ "$(jget "$j" "$s | .h2_statuses.ends_unread")" = 0 ] ||
		fail "$name: the observer's statuses $(jq -c "$s | .h2_statuses" "$j"), the server's $(jq -c .codes "$S")"
	# the server's 10% RESOURCE_EXHAUSTED is named (error_responses), and nothing else
	[ "$(jq '[.findings[] | select(.severity != "note" and .kind != "error_responses")] | length' "$j")" = 0 ] ||
		fail "$name: a warning on a healthy run: $(jq -c '[.findings[] | .text]' "$j")"
	jq -e --argjson p "$P" '[.findings[] | select(.kind == "error_responses" and .evidence.port == $p
		and .evidence.grpc_status.RESOURCE_EXHAUSTED > 0)] | length > 0' "$j" >/dev/null ||
		fail "$name: no error_responses naming RESOURCE_EXHAUSTED: $(jq -c '[.findings[] | .text]' "$j")"
	echo "ok: $name: observer $(jget "$j" "$s | .requests") calls = the interceptor's $calls (4 connections, 10 streams in flight each); by grpc-status $(jq -c "$s | .h2_statuses.grpc_status" "$j") = the interceptor's; RESOURCE_EXHAUSTED named, no other warning"
	OBS_MEAN=$(jget "$j" "$s | .service_time.mean" | cut -d. -f1)
	CALL_MEAN=$(jget "$S" '.call_mean_ns["/kv.Store/Get"]' | cut -d. -f1)
}

# 20 ms handlers: the service mean within 5% of the interceptor's mean per call. grpc-go's own
# path is in the observer's and not in the interceptor's: 110-170 us on a quiet host, 740 us in a
# busy CI run (+12.7% on 5 ms handlers), so the handlers are long enough for it to be a few
# percent, and a case that missed runs again, up to 3 times (the counts exact each time)
for try in 1 2 3; do
	grpc d20 20ms 1000 3000
	within_pct "$OBS_MEAN" "$CALL_MEAN" 5 && break
	[ "$try" = 3 ] || echo "note: d20 run $try: service mean $OBS_MEAN ns against the interceptor's $CALL_MEAN ns; again"
done
check_within "d20: service mean vs the interceptor's mean per call (ns)" "$OBS_MEAN" "$CALL_MEAN" 5
# handlers that return at once: what the interceptor does not see is grpc-go's own path around
# it (its stream goroutine, the message's decoding and encoding, the hand-off to the writer
# goroutine): the observer's mean is above the interceptor's by that, a constant (110-170 us on
# this 2-CPU VM at 0, 0.5, 2 and 5 ms), never below it
grpc d0 0s 2000 6000
gap=$((OBS_MEAN - CALL_MEAN))
[ "$gap" -ge 0 ] && [ "$gap" -lt 1000000 ] ||
	fail "d0: the observer's service mean $OBS_MEAN ns against the interceptor's $CALL_MEAN ns"
echo "ok: d0: the observer's service mean $OBS_MEAN ns = the interceptor's $CALL_MEAN ns + $gap ns of grpc-go's own path"
# 1000 streams in flight on one connection (closed loop): grpc-go's reads and its writer's
# flushes then hold over 1,000 frames (with the walk's bound at 256 frames a write lost the
# connection: 5 of 50,000 calls counted at 250 streams; at 1,024, 25 at 1,000 streams): every
# call counted, no gap
P=$(free_port)
start srv_many "$SRV" -listen "127.0.0.1:$P" -delay 0s -json "$LL_TMP/srv_many.json"
wait_for srv_many listening 20
start_observer obs_many "$P"
"$LOADLENS_BIN/loadlens-driver" "grpc://127.0.0.1:$P/kv.Store/Get" \
	--proto-file "$LOADLENS_SRC/tests/data/kv.proto" --message '{"key":"k{{seq}}"}' \
	-c 1 --streams 1000 -n 30000 -q >"$LL_TMP/drv_many.out" 2>&1 ||
	fail "many: the driver exited $? ($(tail -2 "$LL_TMP/drv_many.out"))"
sleep 0.3
stop obs_many
stop srv_many
j=$LL_TMP/obs_many.json s=$(tcp_slot "$P")
expect_json "many: the server's calls" "$LL_TMP/srv_many.json" '.calls["/kv.Store/Get"]' 30000
echo "many: $(jq -c "$s | {requests, h2_gaps, h2_gap_reads, h2_gap_writes, h2_gap_answered, h2_lost, h2_early, unanswered}" "$j")"
expect_json "many: the observer's requests" "$j" "$s | .requests" 30000
expect_json "many: gaps" "$j" "$s | .h2_gaps" 0
expect_json "many: connections lost" "$j" "$s | .h2_lost" 0
# residence within the client's round trip: 16 streams on one connection, and 16 connections of
# one stream (each stream its own arrival, bpf/req_h2_arrivals.bpf.h): mean and p99 <= the
# driver's + 2%
for spec in "1 16" "16 1"; do
	set -- $spec
	P=$(free_port) name=res_$1x$2
	start "srv_$name" "$SRV" -listen "127.0.0.1:$P" -delay 0s -json "$LL_TMP/srv_$name.json"
	wait_for "srv_$name" listening 20
	start_observer "obs_$name" "$P"
	"$LOADLENS_BIN/loadlens-driver" "grpc://127.0.0.1:$P/kv.Store/Get" \
		--proto-file "$LOADLENS_SRC/tests/data/kv.proto" --message '{"key":"k{{seq}}"}' \
		-c "$1" --streams "$2" -d 2s -q --json "$LL_TMP/drv_$name.json" >"$LL_TMP/drv_$name.out" 2>&1 ||
		fail "$name: the driver exited $? ($(tail -2 "$LL_TMP/drv_$name.out"))"
	sleep 0.3
	stop "obs_$name" "srv_$name"
	j=$LL_TMP/obs_$name.json s=$(tcp_slot "$P") d=$LL_TMP/drv_$name.json
	expect_json "$name: the observer's requests" "$j" "$s | .requests" "$(jget "$d" .requests)"
	for st in mean p99; do
		r=$(jget "$j" "$s | .residence.$st") c=$(jget "$d" ".latency_uncorrected.$st")
		echo "$name: residence $st $r ns, the driver's round trip $c ns"
		awk -v a="$r" -v b="$c" 'BEGIN { exit !(a <= b * 1.02) }' ||
			fail "$name: residence $st $r ns above the client's $c ns + 2%"
	done
done
# a server with 2 places for its 5 ms handlers (-max-concurrent 2, about 390 calls/s): one call
# in flight for 1.5 s, then a second driver with 5 connections of 10 streams. grpc-go reads the
# 50 streams at once and their wait for a place is in their service time (no socket queue):
# worker_saturation from inside (the interceptor's time per call holds that wait too: the places
# are taken inside it)
P=$(free_port)
start srv_lim "$SRV" -listen "127.0.0.1:$P" -delay 5ms -max-concurrent 2 -json "$LL_TMP/srv_lim.json"
wait_for srv_lim listening 20
start_observer obs_lim "$P" --interval 0.5s
drv=("$LOADLENS_BIN/loadlens-driver" "grpc://127.0.0.1:$P/kv.Store/Get"
	--proto-file "$LOADLENS_SRC/tests/data/kv.proto" --message '{"key":"k{{seq}}"}' -q)
"${drv[@]}" -c 1 --streams 1 -d 4s >"$LL_TMP/drv_lim1.out" 2>&1 &
sleep 1.5
"${drv[@]}" -c 5 --streams 10 -d 2.5s >"$LL_TMP/drv_lim2.out" 2>&1 ||
	fail "lim: the driver exited $? ($(tail -2 "$LL_TMP/drv_lim2.out"))"
wait $! || fail "lim: the one-stream driver exited $?"
sleep 0.3
stop obs_lim
stop srv_lim
j=$LL_TMP/obs_lim.json
f=$(jq -c '[.findings[] | select(.kind == "worker_saturation" and .evidence.source == "inside")][0]' "$j")
[ "$f" != null ] || fail "lim: no worker_saturation from inside: $(jq -c '[.findings[] | .text]' "$j")"
echo "ok: lim: $(echo "$f" | jq -r .text)"
echo "    the interceptor's mean per call, its wait for a place included: $(jget "$LL_TMP/srv_lim.json" '.call_mean_ns["/kv.Store/Get"]' | cut -d. -f1) ns"
pass "grpc-go: calls exact, service within 5% of the server's own, a 2-place server named"
