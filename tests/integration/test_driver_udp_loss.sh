#!/usr/bin/env bash
# A reference server that drops every Nth datagram gives exactly the expected loss count,
# and no reply is mistaken for a late one.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"

# loss NAME N DRIVER-ARGS...: the server drops every EVERY-th datagram; the driver counts exactly
loss() {
	local name=$1 n=$2 j=$LL_TMP/$1.json lost late dropped
	shift 2
	P=$(free_port)
	refserver_up "rs$name" "$P" --proto udp --drop-every "$EVERY"
	driver "$name" "udp://127.0.0.1:$P" -n "$n" --timeout 200ms -q "$@"
	stop "rs$name"
	lost=$(jget "$j" .errors.lost)
	late=$(jget "$j" .late_replies)
	dropped=$(jget "$LL_TMP/rs$name.json" .udp_dropped)
	[ "$dropped" = $((n / EVERY)) ] || fail "$name: the server dropped $dropped, expected $((n / EVERY))"
	[ "$lost" = "$dropped" ] || fail "$name: the driver counted $lost lost, the server dropped $dropped"
	[ "$late" = 0 ] || fail "$name: $late late replies, expected none"
	[ "$(jget "$j" .requests)" = $((n - n / EVERY)) ] || fail "$name: ok count is off"
	grep -q '^hint: lost:' "$LL_TMP/$name.out" || fail "$name: no hint for the lost class"
	pass "udp loss ($name): $lost lost of $n, exactly every ${EVERY}th, 0 late"
}

EVERY=50
loss closed 20000 -c 20
# open loop: replies read at the waker's wake-ups; with and without an id in the payload (a
# payload without --id takes a new socket after each loss)
printf 'abcdefghijklmnop' >"$LL_TMP/req.bin"
loss open 4000 -c 20 --rate 2k
loss open_noid 2000 -c 20 --rate 2k --payload "$LL_TMP/req.bin"

# A server that never answers: each request is declared lost at its own deadline, not
# up to a quarter of --timeout after it (the sweep once ran every timeout/4: +16.5% on a -c 1
# run's wall time). 100 requests one after another at 100 ms each: 10 s, within 2%.
P=$(free_port)
refserver_up rssilent "$P" --proto udp --drop-every 1
DRIVER_RC=1 driver silent "udp://127.0.0.1:$P" -n 100 --timeout 100ms -c 1 -q
stop rssilent
j=$LL_TMP/silent.json
[ "$(jget "$j" .errors.lost)" = 100 ] || fail "silent: $(jget "$j" .errors.lost) lost, expected 100"
ns=$(jget "$j" .duration_ns)
echo "silent server: 100 lost at 100 ms each in $ns ns (10 s expected)"
[ "$ns" -ge 10000000000 ] && [ "$ns" -le 10200000000 ] ||
	fail "silent: 100 timeouts of 100 ms took $ns ns, not within 2% of 10 s"
pass "udp: a silent server's 100 requests lost at their deadlines, in $ns ns (10 s + $(((ns - 10000000000) / 1000000)) ms)"
