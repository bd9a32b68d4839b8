#!/bin/bash
# Request timing over TLS from the plaintext: uprobes on OpenSSL's libssl in nginx
# (bpf/req_ssl.bpf.h). Against nginx terminating TLS, driven by h2load over https:
# - HTTP/2 (ALPN h2), 10 streams in flight on each of 4 connections: the observer's requests
#   equal nginx's access log lines exactly, every connection seen in plaintext, its handshake
#   timed apart; on x86-64 the probes at instructions the kernel emulates (SSL_read/_ex and
#   SSL_write/_ex at their inner functions), and the same counts with each function probed at
#   its own entry (LOADLENS_OBSERVER_SSL_ENTRIES); --check measures what a probed call costs;
# - a location proxied to a 3 ms backend: the observer's service mean within 5% of nginx's
#   $request_time mean;
# - HTTP/1.1 over TLS (h2load --h1): exact too; the SSL calls the probes took, nginx's and
#   h2load's apart, in the JSON and the summary's line (none with the probes off); with --pid
#   nginx alone, the probes in its memory only: h2load's calls not probed, 0 counted;
# - uprobes switched off (LOADLENS_OBSERVER_NO_UPROBES, as on a kernel without them): one line
#   says so, connections and handshakes are counted, and no request: never turns as requests;
# - a Go server (crypto/tls linked in: no libssl in its maps): its connections and handshakes
#   counted, no request, and the summary's one warning line names it.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-refserver
require_cmd nginx nginx-light h2load nghttp2-client

free_ports TLS SLOW BACK ST
tls_cert "$LL_TMP/pki"
refserver_up back "$BACK" --proto http --service-time 3ms --service-mode sleep --workers 2
nginx_up ng "$ST" "
	log_format rt '\$request_time \$status \$server_protocol';
	server {
		listen 127.0.0.1:$TLS ssl http2;
		$NGINX_TLS
		access_log $LL_TMP/tls.log rt;
		http2_max_concurrent_streams 128;
		location / { return 200 \"ok\\n\"; }
	}
	server {
		listen 127.0.0.1:$SLOW ssl http2;
		$NGINX_TLS
		access_log $LL_TMP/slow.log rt;
		location /slow { proxy_pass http://127.0.0.1:$BACK/; }
	}"

# run NAME PORT LOG H2LOAD_ARGS...: h2load over https under the observer (its ENV before the
# call); leaves $LL_TMP/obs_NAME.json and the log's lines in $LL_TMP/NAME.lines
run() {
	local name=$1 port=$2 log=$LL_TMP/$3.log path=$4
	shift 4
	: >"$log"
	h2load_observed "$name" "$port" "https://127.0.0.1:$port$path" "$@"
	cp "$log" "$LL_TMP/$name.lines"
}

# exact NAME PORT WANT CONNS: requests = nginx's log lines = WANT, CONNS connections each seen
# in plaintext and handshaken, nothing lost, left unseen or in a gap
exact() {
	local name=$1 port=$2 want=$3 conns=$4 j=$LL_TMP/obs_$1.json s k
	s=$(tcp_slot "$port")
	requests_as_logged "$name" "$port" "$LL_TMP/$name.lines" "$want" \
		unanswered tls_unseen tls_plain_lost h2_lost h2_unmatched h2_early h2_stream_drops \
		h2_gaps h2_gap_answered h2_gap_unknown
	for k in tls_plain_connections tls_handshakes; do
		[ "$(jget "$j" "$s | .$k")" = "$conns" ] ||
			fail "$name: $k $(jget "$j" "$s | .$k"), $conns expected"
	done
	[ "$(jget "$j" "$s | .tls_requests")" = plaintext ] || fail "$name: tls_requests"
	[ "$(jget "$j" .request_timing.features.tls_plaintext)" = uprobes ] ||
		fail "$name: $(jget "$j" .request_timing.features.tls_plaintext_detail)"
}

# HTTP/2 over TLS: 10 streams in flight on each of 4 connections
run m10 "$TLS" tls / -c 4 -m 10 -n 20000
exact m10 "$TLS" 20000 4
[ "$(jget "$LL_TMP/obs_m10.json" "$(tcp_slot "$TLS") | .h2_connections")" = 4 ] ||
	fail "m10: $(jget "$LL_TMP/obs_m10.json" "$(tcp_slot "$TLS") | .h2_connections") HTTP/2 connections, 4 expected"
grep -q "not seen in plaintext" "$LL_TMP/obs_m10.out" && fail "m10: a warning on seen connections"
# Debian's libssl on x86-64: SSL_read/_ex and SSL_write/_ex probed at their inner functions' first
# push, SSL_do_handshake at its own: no probe stepped out of line (observer/kernel/ssl_sites.h)
if [ "$(uname -m)" = x86_64 ]; then
	d=$(jget "$LL_TMP/obs_m10.json" .request_timing.features.tls_plaintext_detail)
	case $d in
	*"3 probes at instructions the kernel emulates, SSL_read/_ex and SSL_write/_ex at their inner functions; 0 stepped"*) ;;
	*) fail "m10: the probes' sites: $d" ;;
	esac
	# each function at its own entry instead (stepped there): the same counts
	LOADLENS_OBSERVER_SSL_ENTRIES=1 run entries "$TLS" tls / -c 4 -m 10 -n 20000
	exact entries "$TLS" 20000 4
	d=$(jget "$LL_TMP/obs_entries.json" .request_timing.features.tls_plaintext_detail)
	case $d in
	*"1 probe at instructions the kernel emulates; 4 stepped"*) ;;
	*) fail "entries: the probes' sites: $d" ;;
	esac
	# --check measures what a probed call of the host's libssl takes more: a figure, above 0
	"$LOADLENS_BIN/loadlens-observer" --check=json >"$LL_TMP/check.json" 2>"$LL_TMP/check.err" ||
		fail "--check exited $? ($(tail -1 "$LL_TMP/check.err"))"
	d=$(jq -r '.features[] | select(.feature | startswith("request timing over TLS")) | .mechanism' "$LL_TMP/check.json")
	us=$(echo "$d" | sed -n 's/.*measured here: a probed SSL call takes \([0-9.]*\) us more.*/\1/p')
	awk -v u="$us" 'BEGIN { exit !(u + 0 > 0 && u + 0 < 100) }' ||
		fail "--check: no measured cost of a probed SSL call ($d)"
	echo "ok: --check: a probed SSL call takes $us us more here"
fi

# a 3 ms backend behind nginx: per-stream service against nginx's own $request_time
run slow "$SLOW" slow /slow -c 2 -m 4 -n 800
exact slow "$SLOW" 800 2
ngx=$(awk '{ s += $1 } END { printf "%d", s / NR * 1e9 }' "$LL_TMP/slow.lines")
obs=$(jget "$LL_TMP/obs_slow.json" "$(tcp_slot "$SLOW") | .service_time.mean")
check_within "slow: observer's service mean vs nginx's \$request_time mean (ns)" "${obs%.*}" "$ngx" 5

# HTTP/1.1 over TLS, one request in flight a connection (--h1 -m 10 would pipeline)
run h1 "$TLS" tls / --h1 -c 4 -m 1 -n 4000
exact h1 "$TLS" 4000 4
[ "$(jget "$LL_TMP/obs_h1.json" "$(tcp_slot "$TLS") | .h2_connections")" = 0 ] || fail "h1: HTTP/2?"
# what the probes cost, in calls: nginx's at least a read and a write a request (one in flight
# a connection); h2load's own (the same libssl) counted apart, as other processes'; the line says
# both
j=$LL_TMP/obs_h1.json
[ "$(jget "$j" .request_timing.ssl_calls)" -ge 8000 ] ||
	fail "h1: $(jget "$j" .request_timing.ssl_calls) SSL calls of nginx for 4000 requests"
[ "$(jget "$j" .request_timing.ssl_calls_other)" -ge 8000 ] ||
	fail "h1: $(jget "$j" .request_timing.ssl_calls_other) SSL calls of h2load for 4000 requests"
grep -q "TLS probes: $(jget "$j" .request_timing.ssl_calls) SSL calls of the serving processes .*; $(jget "$j" .request_timing.ssl_calls_other) SSL calls of other processes" "$LL_TMP/obs_h1.out" ||
	fail "h1: no line of the SSL calls ($(grep "TLS probes" "$LL_TMP/obs_h1.out"))"
echo "ok: h1: $(grep -o "TLS probes: [0-9]* SSL calls[^,]*" "$LL_TMP/obs_h1.out")"
# --pid alone: the probes in nginx's memory only; h2load's calls never trap: none counted
: >"$LL_TMP/tls.log"
start_observer obs_pid "$TLS" --pid "$(cat "$LL_TMP/ng/nginx.pid")"
h2load --h1 -c 4 -m 1 -n 4000 "https://127.0.0.1:$TLS/" >"$LL_TMP/h2load_pid.out" 2>&1 ||
	fail "pid: h2load exited $?"
sleep 0.3
stop obs_pid
cp "$LL_TMP/tls.log" "$LL_TMP/pid.lines"
exact pid "$TLS" 4000 4
j=$LL_TMP/obs_pid.json
[ "$(jget "$j" .request_timing.ssl_calls)" -ge 8000 ] ||
	fail "pid: $(jget "$j" .request_timing.ssl_calls) SSL calls of nginx for 4000 requests"
[ "$(jget "$j" .request_timing.ssl_calls_other)" = 0 ] ||
	fail "pid: $(jget "$j" .request_timing.ssl_calls_other) SSL calls of other processes probed"
case $(jget "$j" .request_timing.features.tls_plaintext_detail) in
*"in the --pid processes only"*) ;;
*) fail "pid: $(jget "$j" .request_timing.features.tls_plaintext_detail)" ;;
esac
echo "ok: pid: $(jget "$j" .request_timing.ssl_calls) SSL calls of nginx probed, 0 of h2load's"
# a connection each (a handshake each, TLS 1.3 with the request read with the Finished)
run h1new "$TLS" tls / --h1 -c 200 -m 1 -n 200
exact h1new "$TLS" 200 200

# uprobes switched off: one line, connections and handshakes, no request
LOADLENS_OBSERVER_NO_UPROBES=1 run off "$TLS" tls / -c 4 -m 10 -n 2000
j=$LL_TMP/obs_off.json
s=$(tcp_slot "$TLS")
[ "$(jget "$j" "$s | .requests")" = 0 ] || fail "off: $(jget "$j" "$s | .requests") requests, 0 expected"
[ "$(jget "$j" "$s | .tls_handshakes")" = 4 ] || fail "off: $(jget "$j" "$s | .tls_handshakes") handshakes"
[ "$(jget "$j" "$s | .tls_unseen")" = 4 ] || fail "off: $(jget "$j" "$s | .tls_unseen") unseen, 4 expected"
[ "$(jget "$j" .request_timing.features.tls_plaintext)" = off ] || fail "off: tls_plaintext"
[ "$(jget "$j" .request_timing.ssl_calls)/$(jget "$j" .request_timing.ssl_calls_other)" = 0/0 ] ||
	fail "off: SSL calls counted with no probe"
grep -q "TLS probes" "$LL_TMP/obs_off.out" && fail "off: a line of SSL calls with no probe"
[ "$(grep -c "note: TLS plaintext is off" "$LL_TMP/obs_off.err")" = 1 ] ||
	fail "off: not one note line ($(cat "$LL_TMP/obs_off.err"))"
echo "ok: off: 0 requests, 4 handshakes, 4 connections not seen, said once"

# Go's crypto/tls: no libssl to probe
GO=$(command -v go || echo /usr/local/go/bin/go)
if [ -x "$GO" ]; then
	mkdir -p "$LL_TMP/go"
	GOCACHE=$LL_TMP/go/cache GOTOOLCHAIN=local GOPROXY=off GOFLAGS= GO111MODULE=off \
		CGO_ENABLED=0 GOPATH=$LL_TMP/go/path timeout 300 "$GO" build -o "$LL_TMP/go/tlsgo" \
		"$(dirname "$0")/tlsgo/main.go" >"$LL_TMP/go/build.out" 2>&1 ||
		fail "go build of tlsgo failed ($(tail -2 "$LL_TMP/go/build.out"))"
	GOP=$(free_port)
	start tlsgo "$LL_TMP/go/tlsgo" "127.0.0.1:$GOP" "$LL_TMP/pki/cert.pem" "$LL_TMP/pki/key.pem"
	wait_for tlsgo listening 20
	start_observer obs_go "$GOP"
	h2load --h1 -c 4 -m 1 -n 400 "https://127.0.0.1:$GOP/" >"$LL_TMP/h2load_go.out" 2>&1 ||
		fail "go: h2load exited $?"
	grep -q "400 succeeded" "$LL_TMP/h2load_go.out" || fail "go: $(grep requests: "$LL_TMP/h2load_go.out")"
	sleep 0.3
	stop obs_go
	j=$LL_TMP/obs_go.json
	s=$(tcp_slot "$GOP")
	[ "$(jget "$j" "$s | .requests")" = 0 ] || fail "go: $(jget "$j" "$s | .requests") requests, 0 expected"
	[ "$(jget "$j" "$s | .tls_handshakes")" = 4 ] || fail "go: handshakes $(jget "$j" "$s | .tls_handshakes")"
	[ "$(jget "$j" "$s | .tls_unseen")" = 4 ] || fail "go: unseen $(jget "$j" "$s | .tls_unseen")"
	[ "$(jget "$j" .request_timing.features.tls_processes_without_libssl)" = 1 ] ||
		fail "go: processes without libssl"
	[ "$(grep -c "not seen in plaintext (tlsgo (pid [0-9]*) maps no libssl" "$LL_TMP/obs_go.out")" = 1 ] ||
		fail "go: not one warning line naming tlsgo ($(grep -i tls "$LL_TMP/obs_go.out"))"
	echo "ok: go: 0 requests, 4 handshakes, 4 connections not seen: $(grep "not seen in plaintext" "$LL_TMP/obs_go.out")"
else
	echo "note: no Go toolchain: the statically linked TLS case is not run"
fi
pass "TLS plaintext: requests counted from it, or not at all"
