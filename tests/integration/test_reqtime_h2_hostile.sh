#!/bin/bash
# Hostile HTTP/2 clients cannot blind the observer to the others: 90,000 short connections whose
# HEADERS frame claims 16 MiB (h2_hostile_streams.py: each leaves a stream begun and never
# ended), more than the stream table's 81,920 entries, then well-formed streams (h2load, 4
# connections of 10 in flight) against the same nginx h2c: every well-formed request counted
# (observer = nginx's log), none dropped, because a connection that closes with streams open
# frees their entries at once (bpf/req_h2.bpf.h, h2_forget_open()). And one connection cannot
# take more than RT_H2_CONN_STREAMS entries (h2_over_bound): h2load -m 100 stays under it.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer
require_cmd nginx nginx-light h2load nghttp2-client

free_ports H2 ST
nginx_up ng "$ST" "$(nginx_ok_servers "$H2 http2" "$LL_TMP/h2.log")"

start_observer obs "$H2"
out=$(timeout 300 python3 "$LOADLENS_SRC/tests/integration/h2_hostile_streams.py" --port "$H2" \
	--connections 90000 --procs 4) || fail "the hostile client failed: $out"
echo "$out"
[ "${out#hostile }" -ge 85000 ] || fail "only ${out#hostile } hostile connections made"
: >"$LL_TMP/h2.log"
h2load -c 4 -m 10 -n 2000 "http://127.0.0.1:$H2/" >"$LL_TMP/h2load.out" 2>&1 ||
	fail "h2load exited $? ($(tail -3 "$LL_TMP/h2load.out"))"
grep "requests:" "$LL_TMP/h2load.out"
sleep 0.3
stop obs
s=$(tcp_slot "$H2")
j=$LL_TMP/obs.json
echo "observer: $(jq -c "$s | {requests, unanswered, h2_connections, h2_stream_drops, h2_over_bound, h2_unmatched}" "$j")"
lines=$(wc -l <"$LL_TMP/h2.log")
[ "$lines" = 2000 ] || fail "nginx logged $lines well-formed requests, 2000 expected"
expect_json "well-formed requests counted (= nginx's log)" "$j" "$s | .requests" 2000
expect_json "streams dropped for want of room" "$j" "$s | .h2_stream_drops" 0
expect_json "streams over a connection's bound" "$j" "$s | .h2_over_bound" 0
[ "$(jget "$j" "$s | .h2_connections")" -ge 85004 ] ||
	fail "$(jget "$j" "$s | .h2_connections") HTTP/2 connections seen"
pass "hostile HTTP/2 connections left no stream entry behind: every well-formed request counted"
