#!/bin/bash
# Request timing over kernel TLS (kTLS): nginx with `ssl_conf_command Options KTLS` hands each
# connection's records to the kernel's tls module after the handshake, and reads and writes the
# plaintext on the socket; the observer follows such a connection as one in the clear from its
# first plaintext read (bpf/req_hello.bpf.h's ktls_hello()), with no uprobe. Against nginx driven
# by h2load over https, the kernel's own counters (/proc/net/tls_stat) proving kTLS was used:
# - HTTP/2 (TLS 1.2), 10 streams in flight on each of 4 connections, the uprobes on libssl
#   attached as a user starts the observer: requests = nginx's access log exactly, 4 kTLS
#   connections, none counted through the uprobes (the SSL calls walk nothing: no double count),
#   4 handshakes timed, the summary's lines (the SSL calls trapped for nothing: --no-tls-uprobes);
# - the same with --no-tls-uprobes (what a kTLS server's user runs: its SSL calls trap for
#   nothing): exact, none unseen, the uprobes said to be off;
# - HTTP/1.1 over kTLS, no uprobes: exact; a connection a request: exact, a handshake each;
# - TLS 1.3: exact, through kTLS where this OpenSSL hands TLS 1.3 reads to the kernel, else
#   through the uprobes (the test says which).
# Skips (77) where the kernel has no TLS (CONFIG_TLS: this project's host kernel); the kernel
# guests (Debian's kernels build it as a module) run it: tools/kernels/guest.py.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer
require_cmd nginx nginx-light h2load nghttp2-client

[ -e /proc/net/tls_stat ] || modprobe tls 2>/dev/null || true
[ -e /proc/net/tls_stat ] ||
	skip "the kernel has no TLS (CONFIG_TLS; no /proc/net/tls_stat after modprobe tls): kTLS cannot run here"

free_ports K12 K13 ST
tls_cert "$LL_TMP/pki"
# ktls_server PORT PROTOCOL LOG: an nginx server block on 127.0.0.1:PORT, TLS PROTOCOL only, kTLS
# asked for, answering 200 "ok", each request logged to $LL_TMP/LOG.log
ktls_server() {
	printf '\tserver {\n\t\tlisten 127.0.0.1:%s ssl http2;\n\t\t%s\n' "$1" "$NGINX_TLS"
	printf '\t\tssl_protocols %s;\n\t\tssl_conf_command Options KTLS;\n' "$2"
	printf '\t\taccess_log %s rt;\n\t\thttp2_max_concurrent_streams 128;\n' "$LL_TMP/$3.log"
	printf '\t\tlocation / { return 200 "ok\\n"; }\n\t}\n'
}
nginx_up ng "$ST" "
	log_format rt '\$request_time \$status \$server_protocol';
$(ktls_server "$K12" TLSv1.2 k12)
$(ktls_server "$K13" TLSv1.3 k13)"

# tls_stat NAME: the kernel's count of connections given software kTLS that way (TlsTxSw, TlsRxSw)
tls_stat() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/net/tls_stat
}

# run NAME PORT LOG H2LOAD_ARGS...: h2load over https under the observer (its ENV before the
# call); leaves $LL_TMP/obs_NAME.json, the log's lines in $LL_TMP/NAME.lines and the connections
# kTLS took each way in TX_NAME, RX_NAME
run() {
	local name=$1 port=$2 log=$LL_TMP/$3.log tx rx
	shift 3
	: >"$log"
	tx=$(tls_stat TlsTxSw)
	rx=$(tls_stat TlsRxSw)
	h2load_observed "$name" "$port" "https://127.0.0.1:$port/" "$@"
	cp "$log" "$LL_TMP/$name.lines"
	eval "TX_$name=$(($(tls_stat TlsTxSw) - tx)) RX_$name=$(($(tls_stat TlsRxSw) - rx))"
}

# exact NAME PORT WANT CONNS: requests = nginx's log lines = WANT, on CONNS connections that kTLS
# took both ways and the observer followed as such, each handshake timed, nothing unanswered,
# lost, unseen, or counted through the uprobes
exact() {
	local name=$1 port=$2 want=$3 conns=$4 j=$LL_TMP/obs_$1.json s k tx rx
	s=$(tcp_slot "$port")
	tx=$(eval echo "\$TX_$name")
	rx=$(eval echo "\$RX_$name")
	[ "$tx/$rx" = "$conns/$conns" ] ||
		fail "$name: the kernel gave $tx connections kTLS for writes and $rx for reads, $conns expected"
	requests_as_logged "$name" "$port" "$LL_TMP/$name.lines" "$want" \
		unanswered tls_unseen tls_plain_connections tls_plain_lost tls_lost h2_lost \
		h2_unmatched h2_early h2_stream_drops h2_gaps h2_gap_answered h2_gap_unknown
	for k in ktls_connections tls_handshakes; do
		[ "$(jget "$j" "$s | .$k")" = "$conns" ] ||
			fail "$name: $k $(jget "$j" "$s | .$k"), $conns expected"
	done
	[ "$(jget "$j" "$s | .tls_requests")" = plaintext ] || fail "$name: tls_requests"
	grep -q "$conns TLS connections in the kernel's TLS both ways (kTLS)" "$LL_TMP/obs_$name.out" ||
		fail "$name: no summary line of the kTLS connections"
	echo "ok: $name: $conns connections in kTLS (the kernel's $tx/$rx), their requests exact"
}

# HTTP/2 over TLS 1.2, the uprobes on libssl attached too: each byte counted once
run h2 "$K12" k12 -c 4 -m 10 -n 2000
exact h2 "$K12" 2000 4
[ "$(jget "$LL_TMP/obs_h2.json" "$(tcp_slot "$K12") | .h2_connections")" = 4 ] ||
	fail "h2: $(jget "$LL_TMP/obs_h2.json" "$(tcp_slot "$K12") | .h2_connections") HTTP/2 connections"
[ "$(jget "$LL_TMP/obs_h2.json" .request_timing.features.tls_plaintext)" = uprobes ] ||
	fail "h2: the uprobes were not attached: $(jget "$LL_TMP/obs_h2.json" .request_timing.features.tls_plaintext_detail)"
grep -q "TLS probes: .*; every TLS connection (4) was on kTLS, read from the socket: the serving processes' calls trapped for nothing (--no-tls-uprobes" "$LL_TMP/obs_h2.out" ||
	fail "h2: the summary does not say the SSL calls trapped for nothing ($(grep "TLS probes" "$LL_TMP/obs_h2.out"))"

# the same, the uprobes off: the kernel's plaintext alone
LL_OBSERVER_ARGS=--no-tls-uprobes run h2off "$K12" k12 -c 4 -m 10 -n 2000
exact h2off "$K12" 2000 4
grep -q "not seen in plaintext" "$LL_TMP/obs_h2off.out" && fail "h2off: a warning on seen connections"
j=$LL_TMP/obs_h2off.json
[ "$(jget "$j" .request_timing.features.tls_plaintext)/$(jget "$j" .request_timing.ssl_calls)" = off/0 ] ||
	fail "h2off: the uprobes: $(jget "$j" .request_timing.features.tls_plaintext_detail), $(jget "$j" .request_timing.ssl_calls) SSL calls"

# HTTP/1.1 over kTLS, one request in flight a connection; then a connection a request
LL_OBSERVER_ARGS=--no-tls-uprobes run h1 "$K12" k12 --h1 -c 4 -m 1 -n 1000
exact h1 "$K12" 1000 4
# (none unanswered: the lean hooks leave kTLS connections to the full hooks, whose read would
# otherwise take a client's close_notify for a request: 43 in one run of four before)
LL_OBSERVER_ARGS=--no-tls-uprobes run h1new "$K12" k12 --h1 -c 100 -m 1 -n 100
exact h1new "$K12" 100 100

# TLS 1.3: this OpenSSL may give the kernel its writes only; the requests are exact either way
run t13 "$K13" k13 -c 4 -m 10 -n 1000
s=$(tcp_slot "$K13")
j=$LL_TMP/obs_t13.json
if [ "$RX_t13" = 4 ]; then
	exact t13 "$K13" 1000 4
else
	requests_as_logged t13 "$K13" "$LL_TMP/t13.lines" 1000 unanswered tls_unseen ktls_connections
	[ "$(jget "$j" "$s | .tls_plain_connections")" = 4 ] ||
		fail "t13: $(jget "$j" "$s | .tls_plain_connections") connections through the uprobes, 4 expected"
	echo "ok: t13: TLS 1.3 reads not in the kernel here (kTLS $TX_t13 for writes, $RX_t13 for reads): counted through the uprobes"
fi
pass "kTLS: requests counted from the socket's plaintext, once"
