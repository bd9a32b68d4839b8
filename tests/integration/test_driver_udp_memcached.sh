#!/usr/bin/env bash
# Against memcached over UDP, a 50 ms stall with --timeout 5ms must not break
# the run. Replies carry the request id of memcached's 8-byte UDP frame header (--id 0:2), so every
# request that timed out during the stall is answered late, and each of those replies is counted
# late, never taken for a later request's answer. Before: "153k req/s, RTT p50 4 us".
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver
command -v jq >/dev/null || skip "jq is not installed"
MC=$(command -v memcached) || skip "memcached is not installed (apt-get install memcached)"

P=$(free_port)
start mc "$MC" -U "$P" -p 0 -l 127.0.0.1 -t 1 -u nobody -vv
for _ in $(seq 1 50); do ss -Huan "( sport = :$P )" | grep -q . && break; sleep 0.1; done
# request id 0 (stamped by --id 0:2), sequence 0, 1 datagram, reserved; then a get
printf '\0\0\0\0\0\1\0\0get loadlens-key\r\n' >"$LL_TMP/get.bin"
(sleep 0.7; kill -STOP "$PID_mc"; sleep 0.05; kill -CONT "$PID_mc") &
stall=$!
driver mc "udp://127.0.0.1:$P" -c 1 -d 2s --timeout 5ms --payload "$LL_TMP/get.bin" --id 0:2 -q
wait "$stall"
J=$LL_TMP/mc.json
lost=$(jget "$J" .errors.lost) late=$(jget "$J" .late_replies)
ok=$(jget "$J" .requests)
[ "$lost" -ge 3 ] || fail "memcached stalled 50 ms with --timeout 5ms, yet only $lost lost"
[ "$late" = "$lost" ] || fail "$lost requests lost in the stall, $late late replies (memcached answers each)"
[ "$(jget "$J" .unmatched_replies)" = 0 ] || fail "unmatched replies from memcached"
[ "$(jget "$J" .duplicate_replies)" = 0 ] || fail "duplicate replies from memcached"
[ "$(jget "$J" .errors_total)" = "$lost" ] || fail "errors other than lost"
# the run goes on after the stall at memcached's own pace: answers count from their own request
[ "$(jget "$J" '.latency_uncorrected.max')" -lt 5000000 ] || fail "an answer past --timeout"
pass "memcached stalled: $ok ok, $lost lost during the stall, each answered late ($late)"
