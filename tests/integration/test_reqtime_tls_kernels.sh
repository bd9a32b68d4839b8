#!/bin/bash
# TLS plaintext with the programs this kernel takes (the kernel matrix runs it on the kernels
# whose share names it; cheap enough for an emulated CPU): nginx terminating TLS, driven by h2load
# over https, the observer's libssl uprobes reading the plaintext. HTTP/2 over TLS, 2 connections
# of 10 streams in flight, and HTTP/1.1 over TLS (h2load --h1), 400 requests each: the requests
# timed = nginx's access log lines = 400, each connection seen in plaintext and handshaken,
# nothing lost, unanswered or left in a gap, and the :status 200 of every HTTP/2 response read
# from nginx's header blocks. tests/integration/test_reqtime_tls_plain.sh is the host's fuller
# test (20,000 requests, --pid scope, the probes' cost).
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer
require_cmd nginx nginx-light h2load nghttp2-client

N=${LL_TLS_N:-400}
free_ports H2 H1 ST
tls_cert "$LL_TMP/pki"
nginx_up ng "$ST" "$(nginx_ok_servers "$H2 ssl http2" "$LL_TMP/h2.log" "$H1 ssl" "$LL_TMP/h1.log")"

# exact NAME PORT LOG CONNS: requests = LOG's lines = N, CONNS connections in plaintext and
# handshaken, nothing lost
exact() {
	local name=$1 port=$2 log=$3 conns=$4 j=$LL_TMP/obs_$1.json s k
	s=$(tcp_slot "$port")
	cp "$log" "$LL_TMP/$name.lines"
	requests_as_logged "$name" "$port" "$LL_TMP/$name.lines" "$N" \
		unanswered tls_unseen tls_plain_lost h2_lost h2_unmatched h2_stream_drops h2_gaps
	for k in tls_plain_connections tls_handshakes; do
		[ "$(jget "$j" "$s | .$k")" = "$conns" ] ||
			fail "$name: $k $(jget "$j" "$s | .$k"), $conns expected"
	done
	[ "$(jget "$j" .request_timing.features.tls_plaintext)" = uprobes ] ||
		fail "$name: $(jget "$j" .request_timing.features.tls_plaintext_detail)"
}

h2load_observed h2 "$H2" "https://127.0.0.1:$H2/" -c 2 -m 10 -n "$N"
exact h2 "$H2" "$LL_TMP/h2.log" 2
s=$(tcp_slot "$H2")
[ "$(jget "$LL_TMP/obs_h2.json" "$s | .h2_statuses.status[\"200\"]")" = "$N" ] &&
	[ "$(jget "$LL_TMP/obs_h2.json" "$s | .h2_statuses.ends_unread")" = 0 ] ||
	fail "h2: statuses read $(jq -c "$s | .h2_statuses" "$LL_TMP/obs_h2.json"), $N of 200 expected"
echo "ok: h2 over TLS: $N :status 200 read"

h2load_observed h1 "$H1" "https://127.0.0.1:$H1/" --h1 -c 2 -n "$N"
exact h1 "$H1" "$LL_TMP/h1.log" 2
pass "TLS plaintext: HTTP/2 (2 x 10 streams) and HTTP/1.1 requests exact on $(uname -r)"
