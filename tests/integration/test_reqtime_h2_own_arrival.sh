#!/bin/bash
# Each HTTP/2 stream's own arrival (bpf/req_h2_arrivals.bpf.h), where it decides the figure: the
# refserver's HTTP/2 serves a connection's streams one at a time inside its event loop (100 ms
# each, asleep), while the client (h2_streams_apart.py) sends 4 more streams 20 ms apart, each in
# a segment of its own; the server reads them in one read once the first is served. A stream
# stamped with that read's earliest bytes (the first queued stream's) would be held longer than
# its client waited: 20 + 40 + 60 ms too much a connection, +9% on the mean. The observer's
# requests = the streams (3 connections x 5); residence mean and max <= the client's own
# latency mean and max + 1% (each stream's residence ends at its write, before its client reads
# it). Runs on the host and in 5.10's share of the kernel matrix (the compat object).
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"

free_ports P
refserver_up rs "$P" --proto h2 --service-time 100ms --service-mode sleep

start_observer obs "$P"
out=$(python3 "$LOADLENS_SRC/tests/integration/h2_streams_apart.py" --port "$P" --streams 5 \
	--gap 0.02 --connections 3) || fail "the client failed: $out"
sleep 0.3
stop obs
echo "client: $out"
O=$LL_TMP/obs.json s=$(tcp_slot "$P")
echo "observer: $(jq -c "$s | {requests, residence: {mean: .residence.mean, max: .residence.max}}" "$O")"
expect_json "the observer's requests" "$O" "$s | .requests" 15

residence_within mean "$(jget "$O" "$s | .residence.mean")" "$(echo "$out" | jq .latency_mean_ns)" 1
residence_within max "$(jget "$O" "$s | .residence.max")" "$(echo "$out" | jq .latency_max_ns)" 1
pass "each HTTP/2 stream from its own segment: residence within its client's latency"
