#!/usr/bin/env bash
# The reference server stalls for 1 s during an open-loop run. Latency from the intended
# send time (corrected) shows the stall at p99; latency from the actual send (uncorrected) does not.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"

P=$(free_port)
refserver_up rs "$P" --proto tcp --stall 1s:1s
driver co "tcp://127.0.0.1:$P" -c 10 -d 3s --rate 1000 -q
stop rs
[ "$(jget "$LL_TMP/rs.json" .stalls)" -ge 1 ] || fail "the server did not stall"
p99=$(jget "$LL_TMP/co.json" .latency.p99)
u99=$(jget "$LL_TMP/co.json" .latency_uncorrected.p99)
echo "corrected p99 ${p99} ns, uncorrected p99 ${u99} ns"
[ "$p99" -ge 500000000 ] || fail "corrected p99 $p99 ns does not show the 1 s stall"
[ "$u99" -lt 50000000 ] || fail "uncorrected p99 $u99 ns shows the stall; expected it hidden"
[ "$(jget "$LL_TMP/co.json" .errors_total)" = 0 ] || fail "errors during the stall"
pass "coordinated omission: corrected p99 $((p99 / 1000000)) ms, uncorrected $((u99 / 1000)) us"
