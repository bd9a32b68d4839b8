#!/usr/bin/env bash
# Every UDP reply is matched to its request by an id, never by order. A server
# that answers late, twice, never, or with junk gives exact counts of lost, late, duplicate and
# unmatched replies, with the refserver tag and with --payload --id OFFSET:WIDTH; the driver's own
# receive-buffer drops are counted (--rcvbuf). Before: duplicates were "late", junk answered
# requests, a late reply answered the next request, and replies past --timeout counted on time.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"
PY=/usr/bin/python3
[ -x "$PY" ] || skip "no $PY for the misbehaving UDP server"
SRV="$(dirname "$0")/udp_misbehave.py"

# misbehave NAME PORT ARGS...: the test server, waited for
misbehave() {
	local name=$1 port=$2
	shift 2
	start "$name" "$PY" "$SRV" --port "$port" --json "$LL_TMP/$name.json" "$@"
	wait_for "$name" listening
}

# expect FILE KEY VALUE
expect() {
	local v
	v=$(jget "$1" "$2")
	[ "$v" = "$3" ] || { cat "${1%.json}.out"; fail "$(basename "$1"): $2 is $v, expected $3"; }
}

# Two slots, 60 requests each; per slot, of requests 0..44: 5 unanswered, 5 answered twice,
# 4 held back until the next request (late), 4 preceded by junk, 4 answered 260 ms later (past
# the 200 ms timeout: lost, then late).
check() {
	local j=$LL_TMP/$1.json
	expect "$j" .requests 94
	expect "$j" .errors.lost 26
	expect "$j" .errors_total 26
	expect "$j" .late_replies 16
	expect "$j" .duplicate_replies 10
	expect "$j" .unmatched_replies 8
	expect "$j" .late_latency.count 16
	expect "$j" .latency.count 94
	# no reply taken for another request's: every on-time answer came within the timeout of its
	# send (from the send: in open loop the corrected latency also holds the wait behind a loss)
	[ "$(jget "$j" .latency_uncorrected.max)" -lt 200000000 ] ||
		fail "$1: an answer took longer than --timeout"
	grep -q '^hint: late:' "$LL_TMP/$1.out" || fail "$1: no late hint"
	grep -q '^hint: duplicate:' "$LL_TMP/$1.out" || fail "$1: no duplicate hint"
	grep -q '^hint: unmatched:' "$LL_TMP/$1.out" || fail "$1: no unmatched hint"
}

P=$(free_port)
misbehave bad "$P" --until 45
driver tagged "udp://127.0.0.1:$P" -c 2 -n 120 --timeout 200ms -q
stop bad
check tagged
pass "refserver tag: 94 ok, 26 lost, 16 late, 10 duplicate, 8 unmatched"

# The same in open loop, where replies are read at the waker's wake-ups (after each send, before
# the timeout sweep) and timed by the kernel's receive stamp: the counts must not move.
P=$(free_port)
misbehave badopen "$P" --until 45
driver tagged_open "udp://127.0.0.1:$P" -c 2 -n 120 --rate 400 --timeout 200ms -q
stop badopen
check tagged_open
pass "open loop, replies read at wake-ups: the same exact counts"

# --payload with --id 2:2: the id stamped in the middle of a 16-byte payload, echoed back
printf 'AB\0\0cdefghijklmn' >"$LL_TMP/req.bin"
P=$(free_port)
misbehave bad2 "$P" --until 45 --id-at 2:2
driver idpay "udp://127.0.0.1:$P" -c 2 -n 120 --timeout 200ms --payload "$LL_TMP/req.bin" \
	--id 2:2 -q
stop bad2
check idpay
[ "$(jget "$LL_TMP/bad2.json" .distinct_ids)" = 120 ] ||
	fail "--id 2:2: the server saw $(jget "$LL_TMP/bad2.json" .distinct_ids) distinct ids in 120 requests"
pass "--payload --id 2:2: the same exact counts, 120 distinct ids"

# rxq NAME DRIVER-ARGS...: the driver's own drops, 2000 copies of the first reply into a small
# receive buffer (later replies may be dropped too): every datagram sent is read or dropped
rxq() {
	local name=$1 j=$LL_TMP/$1.json ok late dup um drops
	shift
	P=$(free_port)
	misbehave "burst$name" "$P" --burst 2000
	driver "$name" "udp://127.0.0.1:$P" -c 1 -n 50 --timeout 1s --rcvbuf 2048 -q "$@"
	stop "burst$name"
	ok=$(jget "$j" .requests) late=$(jget "$j" .late_replies) dup=$(jget "$j" .duplicate_replies)
	um=$(jget "$j" .unmatched_replies) drops=$(jget "$j" .rxq_ovfl)
	[ "$drops" -gt 0 ] || fail "$name: no drops counted with --rcvbuf 2048 and a 2000-datagram burst"
	[ $((ok + late + dup + um + drops)) = 2050 ] ||
		fail "$name: $ok ok + $late late + $dup duplicates + $um unmatched + $drops drops != 2050 sent"
	[ $((ok + $(jget "$j" .errors_total))) = 50 ] || fail "$name: ok + errors != 50"
	grep -q "^hint: dropped:" "$LL_TMP/$name.out" || fail "$name: no hint for the drops"
	pass "receive drops ($name): $ok ok + $late late + $dup duplicates + $um unmatched + $drops dropped = 2050 sent"
}
rxq rxq
# in open loop with one slot: its replies wake the thread (no other send would)
rxq rxq_open --rate 200

# --rcvbuf past net.core.rmem_max: the cap is said, not silent
max=$(cat /proc/sys/net/core/rmem_max)
P=$(free_port)
refserver_up echo "$P" --proto udp
driver capped "udp://127.0.0.1:$P" -n 10 --rcvbuf $((max * 2)) -q
stop echo
[ "$(jget "$LL_TMP/capped.json" .rcvbuf_bytes)" = "$max" ] || fail "rcvbuf_bytes is not rmem_max ($max)"
grep -q "^hint: rcvbuf: --rcvbuf $((max * 2)) asked, the kernel gave $max bytes" "$LL_TMP/capped.out" ||
	fail "no hint for the capped --rcvbuf"
pass "--rcvbuf over rmem_max: capped at $max, said so"

# bad --id and --rcvbuf: one line, exit 64
D="$LOADLENS_BIN/loadlens-driver"
for args in "udp://127.0.0.1:$P -n 1 --id 0:2" "udp://127.0.0.1:$P -n 1 --payload $LL_TMP/req.bin --id 15:2" \
	"udp://127.0.0.1:$P -n 1 --payload $LL_TMP/req.bin --id 0:9" "tcp://127.0.0.1:$P -n 1 --rcvbuf 4096"; do
	rc=0
	# shellcheck disable=SC2086
	"$D" $args >"$LL_TMP/o" 2>"$LL_TMP/e" || rc=$?
	[ "$rc" = 64 ] && [ "$(wc -l <"$LL_TMP/e")" = 1 ] || fail "'$args': exit $rc, $(cat "$LL_TMP/e")"
done
pass "bad --id / --rcvbuf: exit 64 in one line"
