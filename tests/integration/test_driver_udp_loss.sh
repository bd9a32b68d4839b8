#!/usr/bin/env bash
# Issue 5: a reference server that drops every Nth datagram gives exactly the expected loss count,
# and no reply is mistaken for a late one.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"

N=20000 EVERY=50
P=$(free_port)
refserver_up rs "$P" --proto udp --drop-every "$EVERY"
driver udp "udp://127.0.0.1:$P" -c 20 -n "$N" --timeout 200ms -q
stop rs
lost=$(jget "$LL_TMP/udp.json" .errors.lost)
late=$(jget "$LL_TMP/udp.json" .late_replies)
dropped=$(jget "$LL_TMP/rs.json" .udp_dropped)
[ "$dropped" = $((N / EVERY)) ] || fail "the server dropped $dropped, expected $((N / EVERY))"
[ "$lost" = "$dropped" ] || fail "the driver counted $lost lost, the server dropped $dropped"
[ "$late" = 0 ] || fail "$late late replies, expected none"
[ "$(jget "$LL_TMP/udp.json" .requests)" = $((N - N / EVERY)) ] || fail "ok count is off"
grep -q '^hint: lost:' "$LL_TMP/udp.out" || fail "no hint for the lost class"
pass "udp loss: $lost lost of $N, exactly every ${EVERY}th, 0 late"
