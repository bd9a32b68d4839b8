#!/usr/bin/env bash
# HTTP/2 residence within the client's round trip: a server cannot hold a request longer than its
# client waits for it. Each stream takes the arrival of the segment that brought its HEADERS
# (bpf/req_h2_arrivals.bpf.h), not the earliest unread bytes' of the read that took it: at 10
# streams on one connection a read takes several segments, and the streams of the later ones were
# held longer than their clients waited (residence mean 1.09x, p99 1.27x the driver's latency).
# nginx h2c under the observer, the driver at 1 and 4 connections x 10 streams (in the clear and
# over TLS) and h2load at 4 x 10: the observer's requests = the client's; residence mean and p99
# <= the client's own latency (the driver's round trip; h2load's mean "time for request") + 2%.
# HTTP/1.1 pipelined (-P 16, 4 connections): the observer times each read of a batch as one
# request (its count is said apart: multi_arrival reads) and holds it no longer than the driver's
# requests waited either.
# (grpc-go at 16 streams x 1 connection and 1 x 16: test_reqtime_grpc_go.sh.)
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-driver
require_cmd nginx nginx-light h2load nghttp2-client
command -v jq >/dev/null || skip "jq is not installed"

free_ports P T H ST
tls_cert "$LL_TMP/pki"
nginx_up ng "$ST" "
	server {
		listen 127.0.0.1:$P http2;
		access_log off;
		http2_max_concurrent_streams 128;
		location / { return 200 \"ok\\n\"; }
	}
	server {
		listen 127.0.0.1:$H;
		access_log off;
		keepalive_requests 1000000;
		location / { return 200 \"ok\\n\"; }
	}
	server {
		listen 127.0.0.1:$T ssl http2;
		$NGINX_TLS
		access_log off;
		location / { return 200 \"ok\\n\"; }
	}"
slot=$(tcp_slot "$P")

# over TLS the plaintext's reads are libssl's: each stream keeps its read's stamp there
for spec in "h2c $P 1 10" "h2c $P 4 10" "tls $T 1 10" "tls $T 4 10"; do
	set -- $spec
	name=$1_$3x$4 url=http://127.0.0.1:$2/ tls=()
	[ "$1" = tls ] && url=https://127.0.0.1:$2/ tls=(--insecure)
	start_observer "obs_$name" "$2"
	"$LOADLENS_BIN/loadlens-driver" "$url" "${tls[@]}" --http2 -c "$3" --streams "$4" -d 2s \
		-q --json "$LL_TMP/$name.json" >"$LL_TMP/$name.out" 2>&1 ||
		fail "$name: driver exited $? ($(tail -3 "$LL_TMP/$name.out"))"
	sleep 0.3
	stop "obs_$name"
	O=$LL_TMP/obs_$name.json D=$LL_TMP/$name.json s=$(tcp_slot "$2")
	expect_json "$name: the observer's requests" "$O" "$s | .requests" "$(jget "$D" .requests)"
	residence_within "$name mean" "$(jget "$O" "$s | .residence.mean")" \
		"$(jget "$D" .latency_uncorrected.mean)" 2
	residence_within "$name p99" "$(jget "$O" "$s | .residence.p99")" \
		"$(jget "$D" .latency_uncorrected.p99)" 2
done

h2load_observed h2load "$P" "http://127.0.0.1:$P/" -c 4 -m 10 -t 1 -n 200000
O=$LL_TMP/obs_h2load.json
done_n=$(awk '/^requests:/ { print $8 }' "$LL_TMP/h2load_h2load.out")
expect_json "h2load: the observer's requests" "$O" "$slot | .requests" "$done_n"
# h2load's "time for request:  min  max  mean  sd  +/- sd", in its units
mean_ns=$(awk '/^time for request:/ { v = $6; u = v; sub(/[0-9.]+/, "", u); sub(/[a-z]+$/, "", v)
	printf "%.0f", v * (u == "us" ? 1e3 : u == "ms" ? 1e6 : u == "s" ? 1e9 : 1) }' \
	"$LL_TMP/h2load_h2load.out")
residence_within "h2load mean" "$(jget "$O" "$slot | .residence.mean")" "$mean_ns" 2
# HTTP/1.1, 16 requests in flight a connection: reads of several requests, each timed as one
start_observer obs_pipe "$H"
"$LOADLENS_BIN/loadlens-driver" "http://127.0.0.1:$H/" -c 4 -P 16 -d 2s -q \
	--json "$LL_TMP/pipe.json" >"$LL_TMP/pipe.out" 2>&1 ||
	fail "pipelined: driver exited $? ($(tail -3 "$LL_TMP/pipe.out"))"
sleep 0.3
stop obs_pipe
O=$LL_TMP/obs_pipe.json D=$LL_TMP/pipe.json s=$(tcp_slot "$H")
reads=$(jget "$O" "$s | .requests") multi=$(jget "$O" "$s | .multi_arrival_reads")
echo "pipelined: the observer timed $reads reads ($multi of several requests' bytes); the driver $(jget "$D" .requests) requests"
[ "$multi" -gt 0 ] || fail "pipelined: no read counted as several requests' (multi_arrival 0)"
residence_within "pipelined mean" "$(jget "$O" "$s | .residence.mean")" \
	"$(jget "$D" .latency_uncorrected.mean)" 2
residence_within "pipelined p99" "$(jget "$O" "$s | .residence.p99")" \
	"$(jget "$D" .latency_uncorrected.p99)" 2
pass "residence within the client's latency (driver 1 and 4 x 10 streams, h2c and TLS; h2load 4 x 10; HTTP/1.1 -P 16)"
