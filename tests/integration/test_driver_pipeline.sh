#!/usr/bin/env bash
# -P N keeps N requests in flight per connection. Against the refserver (tcp framing with
# random sizes, and HTTP/1.1) the counts agree on both sides and every request has its own
# latency; a server that answers 3 of 8 pipelined requests and closes gives 3 ok and 5 errors.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"

P=$(free_port)
refserver_up rs_tcp "$P" --proto tcp
driver t5 "tcp://127.0.0.1:$P" -c 3 -n 30000 -P 5 --size 10-3000 -q
stop rs_tcp
[ "$(jget "$LL_TMP/t5.json" .requests)" = 30000 ] || fail "tcp -P 5: not 30000 ok"
[ "$(jget "$LL_TMP/rs_tcp.json" .responses)" = 30000 ] || fail "tcp -P 5: the refserver disagrees"
[ "$(jget "$LL_TMP/t5.json" .latency.count)" = 30000 ] || fail "tcp -P 5: not a latency each"
[ "$(jget "$LL_TMP/t5.json" .connections)" = 3 ] || fail "tcp -P 5: more than 3 connections"

P=$(free_port)
refserver_up rs_http "$P" --proto http
driver h8 "http://127.0.0.1:$P/" -c 2 -n 20000 -P 8 -q
stop rs_http
[ "$(jget "$LL_TMP/h8.json" '.status."200"')" = 20000 ] || fail "http -P 8: not 20000 x 200"
[ "$(jget "$LL_TMP/rs_http.json" .responses)" = 20000 ] || fail "http -P 8: the refserver disagrees"
pass "-P: tcp 5 deep (random sizes) and http 8 deep, counts equal on both sides"

# sick: 8 pipelined, the server answers 3 and closes: 3 ok, 5 short_response
P=$(free_port)
oneshot_httpd three "$P" 8 3
driver sick "http://127.0.0.1:$P/" -c 1 -n 8 -P 8 --timeout 3s -q
jq -c '{requests, errors_total, short: .errors.short_response}' "$LL_TMP/sick.json"
[ "$(jget "$LL_TMP/sick.json" .requests)" = 3 ] || fail "not 3 ok"
[ "$(jget "$LL_TMP/sick.json" .errors.short_response)" = 5 ] || fail "not 5 short_response"
pass "-P 8 on a connection closed after 3 answers: 3 ok, 5 short_response"

# options that do not go together: one line, exit 64
printf 'x' >"$LL_TMP/x"
DRIVER_RC=64 driver u1 "udp://127.0.0.1:$P" -n 1 -P 4 -q
DRIVER_RC=64 driver u2 "http://127.0.0.1:$P/" -n 1 -P 4 --http-close -q
DRIVER_RC=64 driver u3 "tcp://127.0.0.1:$P" -n 1 -P 4 --payload "$LL_TMP/x" --response dns -q
DRIVER_RC=64 driver u4 "tcp://127.0.0.1:$P" -n 1 --proto memcache-udp --payload "$LL_TMP/x" -q
DRIVER_RC=64 driver u5 "udp://127.0.0.1:$P" -n 1 --proto memcache-udp --payload "$LL_TMP/x" --id 0:2 -q
DRIVER_RC=64 driver u6 "tcp://127.0.0.1:$P" -n 1 -P 0 -q
DRIVER_RC=64 driver u7 "tcp://127.0.0.1:$P" -n 1 --payload "$LL_TMP/x" --response redis -q
for u in u1 u2 u3 u4 u5 u6 u7; do
	[ "$(grep -c . "$LL_TMP/$u.err")" = 1 ] || fail "$u: not one line on stderr: $(cat "$LL_TMP/$u.err")"
done
pass "-P, --proto and --response misuse: one line each, exit 64"
