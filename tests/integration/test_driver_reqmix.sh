#!/usr/bin/env bash
# --requests-file over http:// (3 URLs, one a templated POST) against the refserver: the
# server's count equals the driver's, round-robin splits by weight exactly, and a capture of one
# POST shows the template expanded with a Content-Length that matches. Bad records: exit 64.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"

cat >"$LL_TMP/urls.txt" <<'EOT'
# three URLs
GET /
weight=2 GET /items/{{rand:1-1000}} -H 'Accept: application/json'
POST /orders -H 'Content-Type: application/json' -d '{"item":"{{zipf:1000:1.1}}","qty":{{rand:1-9}}}'
EOT
P=$(free_port)
refserver_up rs "$P" --proto http
driver h "http://127.0.0.1:$P/" -c 4 -n 8000 --requests-file "$LL_TMP/urls.txt"
stop rs
[ "$(jget "$LL_TMP/rs.json" .responses)" = 8000 ] || fail "the refserver answered $(jget "$LL_TMP/rs.json" .responses)"
jq -c '[.records[] | [.index, .requests, .errors, .latency.count]]' "$LL_TMP/h.json"
[ "$(jq -c '[.records[] | .requests]' "$LL_TMP/h.json")" = "[2000,4000,2000]" ] ||
	fail "round-robin by weight 1:2:1 of 8000 is not 2000/4000/2000"
grep -q "records      3 (round-robin), top 3 by count" "$LL_TMP/h.out" || fail "no top-N table"
pass "http, 3 URLs: 8000 = the refserver's count, 2000/4000/2000 by weight"

# what one templated POST looks like on the wire
P=$(free_port)
oneshot_httpd cap "$P" 1 1 "$LL_TMP/cap.req"
grep "^POST" "$LL_TMP/urls.txt" >"$LL_TMP/post.txt"
driver post "http://127.0.0.1:$P/" -n 1 --requests-file "$LL_TMP/post.txt" -q
cat "$LL_TMP/cap.req"; echo
grep -q '^POST /orders HTTP/1.1' "$LL_TMP/cap.req" || fail "not the record's method and path"
grep -q '^Content-Type: application/json' "$LL_TMP/cap.req" || fail "no record header"
tail -1 "$LL_TMP/cap.req" | grep -Eq '^\{"item":"[0-9]{4}","qty":[1-9]\}$' || fail "template not expanded"
pass "a templated POST: fields expanded at fixed width, Content-Length right"

# bad records: one line on stderr naming file and line, exit 64
printf 'GET /\nGET nopath\n' >"$LL_TMP/bad1.txt"
DRIVER_RC=64 driver b1 "http://127.0.0.1:$P/" -n 1 --requests-file "$LL_TMP/bad1.txt"
grep -q "bad1.txt:2:" "$LL_TMP/b1.err" || fail "no file:line for a bad record: $(cat "$LL_TMP/b1.err")"
printf 'GET key:{{rand:9-1}}\n' >"$LL_TMP/bad2.txt"
DRIVER_RC=64 driver b2 "tcp://127.0.0.1:$P" -n 1 --requests-file "$LL_TMP/bad2.txt" --response resp
DRIVER_RC=64 driver b3 "tcp://127.0.0.1:$P" -n 1 --requests-file "$LL_TMP/bad2.txt"
DRIVER_RC=64 driver b4 "tcp://127.0.0.1:$P" -n 1 --requests-file "$LL_TMP/none.txt" --response resp
pass "bad records and files refused at start with exit 64"
