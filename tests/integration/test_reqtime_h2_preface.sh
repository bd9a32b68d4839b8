#!/bin/bash
# The HTTP/2 client preface in pieces (include/loadlens/h2.h, ll_h2_preface_step()): a client
# that writes it a byte at a time, or in pieces of 5 or 23 bytes, each write apart
# (h2_preface_pieces.py), against nginx h2c: the connection is HTTP/2 from the read that ends
# the preface, its pieces are no requests: the observer's requests = nginx's log lines = the
# streams the client saw answered (before, each piece was a read/write turn: phantom requests).
# Healthy neighbours: a POST whose "P" is read alone, then "OST ..." (HTTP/1.1, an nginx without
# http2): each is one request, = the log. Sick: "PRI * HTTP/1.1" on the h2c port, the preface's
# method with no preface: counted in h2_bad_preface, no request.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer
require_cmd nginx nginx-light

free_ports H2 H1 ST
nginx_up ng "$ST" "$(nginx_ok_servers "$H2 http2" "$LL_TMP/h2.log" "$H1" "$LL_TMP/h1.log")"

# pieces NAME PORT LOG MODE ARGS...: the client under the observer; leaves obs_NAME.json, the
# log's lines in NAME.log, and the streams the client saw answered in ANSWERED
pieces() {
	local name=$1 port=$2 log=$3 mode=$4 out
	shift 4
	: >"$log"
	start_observer "obs_$name" "$port"
	out=$(python3 "$LOADLENS_SRC/tests/integration/h2_preface_pieces.py" "$mode" --port "$port" \
		"$@") || fail "$name: the client failed: $out"
	ANSWERED=${out#answered }
	sleep 0.3
	stop "obs_$name"
	cp "$log" "$LL_TMP/$name.log"
}

for piece in 1 5 23; do
	pieces "h2_by_$piece" "$H2" "$LL_TMP/h2.log" h2 --piece "$piece" --requests 5 \
		--connections 10
	[ "$ANSWERED" = 50 ] || fail "h2_by_$piece: the client saw $ANSWERED streams answered"
	requests_as_logged "h2_by_$piece" "$H2" "$LL_TMP/h2_by_$piece.log" 50 unanswered h2_gaps \
		h2_bad_preface
	expect_json "h2_by_$piece: HTTP/2 connections" "$LL_TMP/obs_h2_by_$piece.json" \
		"$(tcp_slot "$H2") | .h2_connections" 10
done

# a POST whose first byte is read alone: an HTTP/1.1 request, not a preface
pieces post "$H1" "$LL_TMP/h1.log" post --requests 5 --connections 10
requests_as_logged post "$H1" "$LL_TMP/post.log" 50 unanswered h2_bad_preface h2_connections

# sick: the preface's method and no preface: counted apart, no request
pieces broken "$H2" "$LL_TMP/h2.log" broken --connections 10
s=$(tcp_slot "$H2")
echo "broken: $(jq -c "$s | {requests, unanswered, h2_connections, h2_bad_preface}" "$LL_TMP/obs_broken.json"), nginx logged $(wc -l <"$LL_TMP/broken.log")"
expect_json "broken: connections counted apart" "$LL_TMP/obs_broken.json" "$s | .h2_bad_preface" 10
expect_json "broken: requests" "$LL_TMP/obs_broken.json" "$s | .requests" 0
expect_json "broken: unanswered" "$LL_TMP/obs_broken.json" "$s | .unanswered" 0
grep -q "broke it: neither HTTP/2 nor HTTP/1" "$LL_TMP/obs_broken.out" ||
	fail "broken: the summary does not name them"
pass "the HTTP/2 preface in pieces: no phantom request; broken ones counted apart"
