#!/usr/bin/env bash
# Slots are allocated as they take a request, so -c 1000000 -n 1 stays
# small (before: 845 MB, every slot up front); a refused target is retried with a per-slot
# exponential backoff, 1 ms doubling to 1 s, and every attempt is still counted exactly (before:
# ~230,000 connect attempts in 2 s).
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"
[ -x /usr/bin/time ] || skip "no /usr/bin/time to measure the peak RSS"

P=$(free_port)
refserver_up rs "$P" --proto tcp
/usr/bin/time -f "%M" -o "$LL_TMP/rss" "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$P" \
	-c 1000000 -n 1 -q --json "$LL_TMP/big.json" >"$LL_TMP/big.out" 2>"$LL_TMP/big.err" ||
	{ cat "$LL_TMP/big.out" "$LL_TMP/big.err"; fail "-c 1000000 -n 1 failed"; }
stop rs
rss=$(tail -1 "$LL_TMP/rss")
[ "$(jget "$LL_TMP/big.json" .requests)" = 1 ] || fail "-c 1000000 -n 1: not 1 request"
[ "$(jget "$LL_TMP/big.json" .connect_attempts)" = 1 ] || fail "-c 1000000 -n 1: more than 1 connect"
[ "$rss" -lt 102400 ] || fail "-c 1000000 -n 1 peaked at $rss kB (limit 100 MB)"
pass "-c 1000000 -n 1: peak RSS $rss kB, one connection"

# A refused port for 2 s with 4 slots: each slot tries at 0, 1, 3, 7 ... 1023 ms (11 tries), the
# 12th would be at 2023 ms; allow one either way for a loaded machine.
P=$(free_port)
DRIVER_RC=1 driver refused "tcp://127.0.0.1:$P" -c 4 -d 2s -q
J=$LL_TMP/refused.json
att=$(jget "$J" .connect_attempts)
[ "$(jget "$J" .errors.ECONNREFUSED)" = "$att" ] || fail "refused: $att attempts, $(jget "$J" .errors.ECONNREFUSED) ECONNREFUSED"
[ "$(jget "$J" .errors_total)" = "$att" ] || fail "refused: errors_total != attempts"
[ "$att" -ge 40 ] && [ "$att" -le 48 ] || fail "refused: $att connect attempts in 2 s over 4 slots, expected 44 (40..48)"
# -n with the backoff: every attempt is one request of -n, counted exactly
DRIVER_RC=1 driver refused_n "tcp://127.0.0.1:$P" -c 2 -n 20 -q
[ "$(jget "$LL_TMP/refused_n.json" .errors.ECONNREFUSED)" = 20 ] || fail "refused -n 20: not 20 errors"
# udp: an ICMP port unreachable is a refused attempt too, with the same backoff
DRIVER_RC=1 driver refused_u "udp://127.0.0.1:$P" -c 4 -d 2s --timeout 100ms -q
J=$LL_TMP/refused_u.json
e=$(jget "$J" .errors.ECONNREFUSED) t=$(jget "$J" .errors_total)
[ "$e" -le 48 ] || fail "udp refused: $e refused attempts in 2 s over 4 slots"
[ "$e" = "$t" ] || fail "udp refused: $e ECONNREFUSED of $t errors"
# the curl engine: the same backoff, every refused attempt counted as an attempt and an error
DRIVER_RC=1 driver refused_c "http://127.0.0.1:$P/" --http-engine curl -c 4 -d 2s -q
J=$LL_TMP/refused_c.json
c=$(jget "$J" .connect_attempts)
[ "$(jget "$J" .errors.ECONNREFUSED)" = "$c" ] || fail "curl refused: $c attempts, $(jget "$J" .errors.ECONNREFUSED) ECONNREFUSED"
[ "$c" -ge 40 ] && [ "$c" -le 48 ] || fail "curl refused: $c attempts in 2 s over 4 slots, expected 44 (40..48)"
pass "refused target: $att tcp, $e udp, $c curl attempts in 2 s over 4 slots, each counted"
