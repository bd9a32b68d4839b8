#!/usr/bin/env bash
# Bad input prints one line and exits 64; --help has EXAMPLES for every protocol and load
# model; a dead target is a counted, hinted error, never a crash.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver

D="$LOADLENS_BIN/loadlens-driver"
while read -r args; do
	rc=0
	# shellcheck disable=SC2086
	"$D" $args >"$LL_TMP/out" 2>"$LL_TMP/err" || rc=$?
	[ "$rc" = 64 ] || fail "'$args' exited $rc, expected 64"
	[ "$(wc -l <"$LL_TMP/err")" = 1 ] || fail "'$args' printed more than one line"
done <<'ARGS'
gopher://127.0.0.1:70 -n 1
tcp://no.such.host.invalid:7 -n 1
tcp://127.0.0.1:7 -c 0 -n 1
tcp://127.0.0.1:7 -d soon
tcp://127.0.0.1:7 -n 1 --rate -5
tcp://127.0.0.1:7
merge
ARGS
"$D" --help >"$LL_TMP/help" || fail "--help failed"
for w in EXAMPLES tcp:// udp:// http:// --rate --delay --new-conn --reconnect-every --warmup \
	--shard merge --payload --http-close --source-addr; do
	grep -q -- "$w" "$LL_TMP/help" || fail "--help does not mention $w"
done
P=$(free_port)
DRIVER_RC=1 driver dead "tcp://127.0.0.1:$P" -c 2 -n 20 -q
[ "$(jget "$LL_TMP/dead.json" .errors.ECONNREFUSED)" = 20 ] || fail "not 20 ECONNREFUSED"
grep -q '^hint: ECONNREFUSED' "$LL_TMP/dead.out" || fail "no ECONNREFUSED hint"
DRIVER_RC=1 driver deadu "udp://127.0.0.1:$P" -c 2 -n 20 --timeout 100ms -q
[ "$(jget "$LL_TMP/deadu.json" .errors_total)" = 20 ] || fail "udp to nothing: not 20 errors"
pass "bad input exits 64 in one line; dead targets are counted, not fatal"
