#!/usr/bin/env bash
# https:// and --http2 --http-engine curl through libcurl against nginx (self-signed
# certificate, ALPN h2, prior-knowledge h2c): the driver's counts equal nginx's stub_status counts
# exactly, the HTTP version negotiated is the one asked for, keep-alive uses -c connections, and a
# negotiation that fails on every connection (an untrusted certificate, no h2 in ALPN, an HTTP/1
# answer to the h2c preface, grpcs) stops the run at once with the reason, while a flaky server
# (every other handshake fails) is measured for its whole -d. (The native HTTP/2 engine,
# --http2 without --http-engine curl, is test_driver_h2.sh's.)
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver
command -v jq >/dev/null || skip "jq is not installed"
require_cmd nginx nginx-light openssl openssl

D="$LOADLENS_BIN/loadlens-driver"
TLS=$(free_port)
H2C=$(free_port)
ST=$(free_port)
TLS1=$(free_port)
PLAIN=$(free_port)
tls_cert "$LL_TMP/pki"
CA="$LL_TMP/pki/cert.pem"
nginx_up ng "$ST" "
	server {
		listen 127.0.0.1:$TLS ssl http2;
		$NGINX_TLS
		location / { return 200 \"ok\\n\"; }
	}
	server {
		listen 127.0.0.1:$H2C http2;
		location / { return 200 \"ok\\n\"; }
	}
	server {
		listen 127.0.0.1:$TLS1 ssl;
		$NGINX_TLS
		location / { return 200 \"ok\\n\"; }
	}
	server {
		listen 127.0.0.1:$PLAIN;
		location / { return 200 \"ok\\n\"; }
	}"

# run NAME WANT_CONNS ARGS...: the driver with --json; then nginx must have accepted WANT_CONNS
# connections (skipped if empty) and served exactly the requests the driver attempted (or SERVED).
run() {
	local name=$1 want_conns=$2 a0 r0 a1 r1 attempts
	shift 2
	read -r a0 r0 <<<"$(nginx_counts "$ST")"
	driver "$name" "$@" -q
	read -r a1 r1 <<<"$(nginx_counts "$ST")"
	attempts=${SERVED:-$(jget "$LL_TMP/$name.json" '.requests + .errors_total')}
	[ $((r1 - r0 - 1)) = "$attempts" ] ||
		fail "$name: nginx served $((r1 - r0 - 1)) requests, the driver attempted $attempts"
	if [ -n "$want_conns" ]; then
		[ $((a1 - a0 - 1)) = "$want_conns" ] ||
			fail "$name: nginx accepted $((a1 - a0 - 1)) connections, expected $want_conns"
		[ "$(jget "$LL_TMP/$name.json" .connections)" = "$want_conns" ] ||
			fail "$name: the driver counted $(jget "$LL_TMP/$name.json" .connections) connections, expected $want_conns"
	fi
}

# ok NAME N VERSION: N requests, all 200, all in HTTP VERSION, no errors
ok() {
	local j=$LL_TMP/$1.json
	[ "$(jget "$j" .requests)" = "$2" ] || fail "$1: $(jget "$j" .requests) ok, expected $2"
	[ "$(jget "$j" '.status["200"]')" = "$2" ] || fail "$1: not $2 x 200"
	[ "$(jget "$j" ".http_version[\"$3\"]")" = "$2" ] ||
		fail "$1: HTTP versions $(jq -c .http_version "$j"), expected $2 x $3"
	[ "$(jget "$j" '.http_version | length')" = 1 ] || fail "$1: more than one HTTP version"
	[ "$(jget "$j" .errors_total)" = 0 ] || fail "$1: $(jget "$j" .errors_total) errors"
	pass "$1: $2 x 200 over HTTP/$3, counts equal nginx's"
}

# HTTPS, HTTP/1.1 keep-alive, verified against the test's CA (the name is localhost)
run tls11 8 "https://localhost:$TLS/" -c 8 -t 2 -n 4000 --cacert "$CA"
ok tls11 4000 1.1
[ "$(jget "$LL_TMP/tls11.json" .config.http_engine)" = curl ] || fail "https did not use curl"
[ "$(jget "$LL_TMP/tls11.json" .config.tls_verify)" = true ] || fail "tls_verify is not true"
# HTTPS, h2 via ALPN, without verification; keep-alive: -c connections
run tls2 8 "https://127.0.0.1:$TLS/x" -c 8 -t 2 -n 4000 --http2 --http-engine curl -k
ok tls2 4000 2
grep -q '^  http version HTTP/2: 4000$' "$LL_TMP/tls2.out" || fail "the summary has no HTTP/2 line"
# a new connection (TCP + TLS handshake) per request: each one in connect_latency
run tls2new 400 "https://localhost:$TLS/" -c 4 -n 400 --http2 --http-engine curl --new-conn \
	--cacert "$CA"
ok tls2new 400 2
[ "$(jget "$LL_TMP/tls2new.json" .connect_latency.count)" = 400 ] ||
	fail "tls2new: connect_latency does not hold one handshake per connection"
# reconnect every 50 requests with one slot: exactly n/50 connections
run tlsre 10 "https://localhost:$TLS/" -c 1 -n 500 --reconnect-every 50 --cacert "$CA"
ok tlsre 500 1.1

# a negotiation that fails on every connection stops the run once each slot has tried (not at -d
# 30s, retrying): exit 1 within 3 s, stopped_by "negotiation", the reason in OpenSSL's words, a
# hint; nothing reaches nginx but the h2c prefaces. An untrusted certificate (libcurl, and the native HTTP/2 engine),
# a TLS server that offers no h2 in ALPN, and an HTTP/1 server given the h2c preface.
# fast NAME CLASS REASON URL ARGS...
fast() {
	local name=$1 class=$2 why=$3 url=$4 t0 t1 a0 r0 a1 r1 lo hi
	shift 4
	t0=$(date +%s%N)
	read -r a0 r0 <<<"$(nginx_counts "$ST")"
	DRIVER_RC=1 driver "$name" "$url" -c 4 -d 30s "$@" -q
	t1=$(date +%s%N)
	read -r a1 r1 <<<"$(nginx_counts "$ST")"
	# nothing reaches nginx over TLS; each h2c preface is a request on its HTTP/1 listener:
	# the failed ones, and perhaps a retry the stop cancelled (sent, its answer not awaited)
	lo=0 hi=0
	[ "$name" = h1_for_h2c ] &&
		lo=$(jget "$LL_TMP/$name.json" .errors_total) &&
		hi=$(jget "$LL_TMP/$name.json" '.errors_total + .cancelled')
	[ $((r1 - r0 - 1)) -ge "$lo" ] && [ $((r1 - r0 - 1)) -le "$hi" ] ||
		fail "$name: nginx served $((r1 - r0 - 1)) requests, expected $lo to $hi"
	echo "$name: stopped after $(((t1 - t0) / 1000000)) ms: $(jq -c '[.stopped_by, .errors_total, .negotiation_failure]' "$LL_TMP/$name.json")"
	[ $((t1 - t0)) -lt 3000000000 ] || fail "$name: took $(((t1 - t0) / 1000000)) ms, not under 3 s"
	expect_json "$name: stopped by" "$LL_TMP/$name.json" .stopped_by negotiation
	expect_json "$name: the failure's class" "$LL_TMP/$name.json" .negotiation_failure.error "$class"
	jget "$LL_TMP/$name.json" .negotiation_failure.reason | grep -q "$why" ||
		fail "$name: the reason is not '$why'"
	# how many failures gave that reason: here all of them, each slot's at least
	[ "$(jget "$LL_TMP/$name.json" ".negotiation_failure.count == .errors.$class and
		.negotiation_failure.count >= 4")" = true ] ||
		fail "$name: count $(jq -c '[.negotiation_failure.count, .errors]' "$LL_TMP/$name.json")"
	# (a TLS connection is counted once its handshake is done: none; an h2c one at its connect)
	[ "$(jget "$LL_TMP/$name.json" ".errors.$class >= 4 and .requests == 0 and
		(\"$class\" != \"tls\" or .connections == 0)")" = true ] ||
		fail "$name: $(jq -c '{errors, requests, connections}' "$LL_TMP/$name.json")"
	grep -q "^hint: $class: the first failure: .*$why" "$LL_TMP/$name.out" &&
		grep -q "^stopped: every connection failed its .*$why" "$LL_TMP/$name.out" ||
		fail "$name: no hint with the reason, or no stop line with it: $(cat "$LL_TMP/$name.out")"
}
fast untrusted tls "self-signed certificate" "https://localhost:$TLS/"
grep -q '^hint: tls: .*--cacert' "$LL_TMP/untrusted.out" || fail "untrusted: no tls hint"
fast untrusted_h2 tls "self-signed certificate" "https://localhost:$TLS/" --http2
fast untrusted_grpcs tls "self-signed certificate" "grpcs://localhost:$TLS/kv.Store/Get"
# the name checked: nginx's certificate is for localhost (libcurl's words, then OpenSSL's)
fast wrong_name tls "does not match target host name" "https://127.0.0.1:$TLS/" --cacert "$CA"
fast wrong_name_h2 tls "IP address mismatch" "https://127.0.0.1:$TLS/" --http2 --cacert "$CA"
fast no_alpn_h2 not_h2 "ALPN chose no h2" "https://localhost:$TLS1/" --http2 --cacert "$CA"
fast no_alpn_grpcs not_h2 "ALPN chose no h2" "grpcs://localhost:$TLS1/kv.Store/Get" --cacert "$CA"
fast h1_for_h2c not_h2 "answered the HTTP/2 preface with HTTP/1" "http://127.0.0.1:$PLAIN/" --http2
# an HTTP/1 server that answers the preface with no status line (Python's http.server: an error
# page HTTP/0.9 style): not_h2 too, not h2_protocol retried until -d
HTTPD=$(free_port)
start httpd /usr/bin/python3 -u -c "import http.server, sys
s = http.server.HTTPServer(('127.0.0.1', $HTTPD), http.server.SimpleHTTPRequestHandler)
print('listening', file=sys.stderr, flush=True)
s.serve_forever()"
wait_for httpd "listening"
fast py_for_h2c not_h2 "first bytes were not an HTTP/2 SETTINGS frame" \
	"http://127.0.0.1:$HTTPD/" --http2
# healthy: the same server and CA, every request answered, the whole -d
t0=$(date +%s%N)
run trusted "" "https://localhost:$TLS/" -c 4 -d 2s --http2 --cacert "$CA"
echo "trusted: ran $((($(date +%s%N) - t0) / 1000000)) ms of -d 2s: $(jq -c '[.stopped_by, .requests, .errors_total]' "$LL_TMP/trusted.json")"
expect_json "trusted: stopped by" "$LL_TMP/trusted.json" .stopped_by duration
[ "$(jq -c .negotiation_failure "$LL_TMP/trusted.json")" = null ] ||
	fail "trusted: a negotiation failure $(jq -c .negotiation_failure "$LL_TMP/trusted.json")"
# flaky: every other handshake fails (an untrusted certificate), so some connections come up
# and are answered: measured for the whole -d, tls errors counted, no stop
mkdir -p "$LL_TMP/bad"
openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
	-keyout "$LL_TMP/bad/key.pem" -out "$LL_TMP/bad/cert.pem" >"$LL_TMP/bad/openssl.err" 2>&1 ||
	fail "openssl could not make a second certificate: $(cat "$LL_TMP/bad/openssl.err")"
FLAKY=$(free_port)
start flaky /usr/bin/python3 "$LL_HERE/flaky_tls_httpd.py" "$FLAKY" "$CA" "$LL_TMP/pki/key.pem" \
	"$LL_TMP/bad/cert.pem" "$LL_TMP/bad/key.pem"
wait_for flaky "listening"
t0=$(date +%s%N)
driver flaky "https://localhost:$FLAKY/" -c 4 -d 2s --cacert "$CA" -q
echo "flaky: ran $((($(date +%s%N) - t0) / 1000000)) ms of -d 2s: $(jq -c '[.stopped_by, .requests, .errors.tls, .negotiation_failure]' "$LL_TMP/flaky.json")"
expect_json "flaky: stopped by" "$LL_TMP/flaky.json" .stopped_by duration
[ "$(jget "$LL_TMP/flaky.json" '.requests > 0 and .errors.tls > 0')" = true ] ||
	fail "flaky: not both answers and tls errors: $(jq -c '{requests, errors}' "$LL_TMP/flaky.json")"
expect_json "flaky: the failure's reason" "$LL_TMP/flaky.json" .negotiation_failure.reason \
	"self-signed certificate"
! grep -q "^stopped:" "$LL_TMP/flaky.out" || fail "flaky: a stop line: $(cat "$LL_TMP/flaky.out")"
pass "a negotiation that fails on every connection stops at once, with OpenSSL's reason (curl and native, tls and not_h2, https and grpcs); a flaky server runs its -d"

# https with the native engine is a usage error in one line
rc=0
"$D" "https://127.0.0.1:$TLS/" -n 1 --http-engine native >"$LL_TMP/native.out" 2>"$LL_TMP/native.err" || rc=$?
[ "$rc" = 64 ] || fail "https with --http-engine native exited $rc, expected 64"
[ "$(wc -l <"$LL_TMP/native.err")" = 1 ] || fail "https with --http-engine native: not one line"

# h2c (prior knowledge) on a plain listener. libcurl before 8.0.0 cannot reuse an h2c connection
# (github.com/curl/curl/issues/10634): the driver refuses keep-alive there (64, one line) and --new-conn works.
rc=0
"$D" "http://127.0.0.1:$H2C/" -c 4 -n 1 --http2 --http-engine curl -q >"$LL_TMP/h2c.out" 2>"$LL_TMP/h2c.err" || rc=$?
if [ "$rc" = 64 ]; then
	grep -q 'libcurl' "$LL_TMP/h2c.err" || fail "h2c keep-alive refused without naming libcurl"
	echo "h2c keep-alive: $(cat "$LL_TMP/h2c.err")"
	run h2c 400 "http://127.0.0.1:$H2C/" -c 4 -n 400 --http2 --http-engine curl --new-conn
	ok h2c 400 2
else
	[ "$rc" = 0 ] || fail "h2c exited $rc"
	run h2c 4 "http://127.0.0.1:$H2C/" -c 4 -n 2000 --http2 --http-engine curl
	ok h2c 2000 2
fi
pass "https (HTTP/1.1 and h2) and h2c agree with nginx"
