#!/usr/bin/env bash
# tcp://, udp:// and http:// (native and libcurl) against the reference server; the
# request counts agree exactly on both sides.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"

# same NAME_OF_DRIVER_RUNS... SERVER: driver attempts == server requests, ok == server responses
same() {
	local server=$1 want_req=0 want_ok=0 j
	shift
	for j in "$@"; do
		want_req=$((want_req + $(jget "$LL_TMP/$j.json" '.requests + .errors_total')))
		want_ok=$((want_ok + $(jget "$LL_TMP/$j.json" '.requests')))
	done
	local got_req got_resp
	got_req=$(jget "$LL_TMP/$server.json" .requests)
	got_resp=$(jget "$LL_TMP/$server.json" .responses)
	[ "$got_req" = "$want_req" ] || fail "$server counted $got_req requests, the driver sent $want_req"
	[ "$got_resp" = "$want_ok" ] || fail "$server sent $got_resp responses, the driver got $want_ok"
	pass "$server: $got_req requests on both sides"
}

# tcp: keep-alive, new connection per request, random sizes with reconnects, 2 threads
P=$(free_port)
refserver_up rs_tcp "$P" --proto tcp
driver tcp_ka "tcp://127.0.0.1:$P" -c 20 -n 30000 -q
driver tcp_new "tcp://127.0.0.1:$P" -c 4 -n 2000 --new-conn -q
driver tcp_rand "tcp://127.0.0.1:$P" -c 8 -t 2 -n 10000 --size 1-20000 --reconnect-every 7 -q
# raw payload files with each response rule: a refserver frame whose echo ends in CRLF
printf '\0\0\0\002\r\n' >"$LL_TMP/frame.bin"
driver tcp_fixed "tcp://127.0.0.1:$P" -c 4 -n 2000 --payload "$LL_TMP/frame.bin" --response fixed:6 -q
driver tcp_prefix "tcp://127.0.0.1:$P" -c 4 -n 2000 --payload "$LL_TMP/frame.bin" --response prefix:4 -q
driver tcp_delim "tcp://127.0.0.1:$P" -c 4 -n 2000 --payload "$LL_TMP/frame.bin" --response 'delim:\r\n' -q
stop rs_tcp
same rs_tcp tcp_ka tcp_new tcp_rand tcp_fixed tcp_prefix tcp_delim
for j in tcp_fixed tcp_prefix tcp_delim; do
	[ "$(jget "$LL_TMP/$j.json" .requests)" = 2000 ] || fail "$j: not 2000 ok"
done
[ "$(jget "$LL_TMP/tcp_ka.json" .requests)" = 30000 ] || fail "tcp keep-alive: not 30000 ok"
[ "$(jget "$LL_TMP/tcp_new.json" .connections)" = 2000 ] || fail "tcp --new-conn: not 2000 connections"
[ "$(jget "$LL_TMP/rs_tcp.json" .connections_accepted)" = \
  $((20 + 2000 + 12 + $(jget "$LL_TMP/tcp_rand.json" .connections))) ] || fail "connection counts differ"

# udp
P=$(free_port)
refserver_up rs_udp "$P" --proto udp
driver udp "udp://127.0.0.1:$P" -c 10 -n 20000 --size 8-1400 --timeout 1s -q
stop rs_udp
same rs_udp udp
[ "$(jget "$LL_TMP/udp.json" .requests)" = 20000 ] || fail "udp: not 20000 ok"

# http: native keep-alive, native Connection: close, libcurl keep-alive, libcurl POST
P=$(free_port)
refserver_up rs_http "$P" --proto http
driver http_native "http://127.0.0.1:$P/x" -c 20 -n 30000 -q
driver http_close "http://127.0.0.1:$P/" -c 4 -n 1000 --http-close -q
driver http_curl "http://127.0.0.1:$P/" -c 10 -n 3000 --http-engine curl -q
driver http_post "http://127.0.0.1:$P/p" -c 2 -n 500 --http-engine curl -m POST --body hello \
	-H 'X-Test: 1' -q
stop rs_http
same rs_http http_native http_close http_curl http_post
[ "$(jget "$LL_TMP/http_native.json" '.status["200"]')" = 30000 ] || fail "http: not 30000 x 200"
[ "$(jget "$LL_TMP/http_close.json" .connections)" = 1000 ] || fail "http --http-close: not 1000 connections"
pass "all three protocols agree with the reference server"
