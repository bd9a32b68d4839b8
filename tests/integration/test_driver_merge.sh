#!/usr/bin/env bash
# Two shards of one run (--shard 0/2, 1/2, one --start-at) merge exactly: counts add up
# and agree with the server, and every histogram bucket of the merge is the sum of the shards'.
# (tests/unit/test_driver_merge.c checks the merge against one run holding both sample sets.)
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"

P=$(free_port)
refserver_up rs "$P" --proto tcp
at=$(($(date +%s) + 2))
driver_bg() {
	"$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$P" -c 10 -n 40000 --rate 8000 \
		--shard "$1" --start-at "$at" -q --json "$LL_TMP/$2.json" >"$LL_TMP/$2.out" 2>&1
}
driver_bg 0/2 a &
pa=$!
driver_bg 1/2 b &
pb=$!
wait $pa || fail "shard 0 failed: $(cat "$LL_TMP/a.out")"
wait $pb || fail "shard 1 failed: $(cat "$LL_TMP/b.out")"
stop rs
"$LOADLENS_BIN/loadlens-driver" merge "$LL_TMP/a.json" "$LL_TMP/b.json" --json "$LL_TMP/m.json" \
	>"$LL_TMP/m.out" || fail "merge failed"
cat "$LL_TMP/m.out"
[ "$(jget "$LL_TMP/a.json" .requests)" = 20000 ] || fail "shard 0 did not take half of -n"
[ "$(jget "$LL_TMP/m.json" .requests)" = 40000 ] || fail "merged requests != 40000"
[ "$(jget "$LL_TMP/rs.json" .requests)" = 40000 ] || fail "the server saw a different count"
[ "$(jget "$LL_TMP/m.json" .merged_from)" = 2 ] || fail "merged_from != 2"
# no answer before its own send: two drivers on 2 CPUs preempt each other, and a receive stamp
# turned to the run's clock with an offset read across a preemption once came out early (a
# negative latency: max -7906 ns, the merge's sum and max then 2^64 ns)
for f in a b; do
	for h in latency latency_uncorrected; do
		mx=$(jget "$LL_TMP/$f.json" ".$h.max")
		mn=$(jget "$LL_TMP/$f.json" ".$h.min")
		[ "$mn" -gt 0 ] && [ "$mx" -ge "$mn" ] && [ "$mx" -lt 60000000000 ] ||
			fail "shard $f: $h min $mn max $mx ns: an answer before its send"
	done
done
for h in latency latency_uncorrected connect_latency; do
	jq -e --arg h "$h" --slurpfile a "$LL_TMP/a.json" --slurpfile b "$LL_TMP/b.json" '
		def counts(x): reduce x[$h].buckets[] as $e ({}; .[($e[0]|tostring)] += $e[1]);
		counts(.) == (counts($a[0]) as $ca | counts($b[0]) as $cb |
			reduce (($ca + $cb) | keys[]) as $k ({}; .[$k] = ($ca[$k] // 0) + ($cb[$k] // 0)))
		and .[$h].count == $a[0][$h].count + $b[0][$h].count
		and .[$h].max == ([$a[0][$h].max, $b[0][$h].max] | max)' "$LL_TMP/m.json" >/dev/null ||
		fail "$h: merged buckets are not the sum of the shards'"
done
# the merged rate is the run's total, reached by the two shards together
pct=$(jget "$LL_TMP/m.json" .rate_achieved_pct)
awk -v p="$pct" 'BEGIN { exit !(p > 97 && p < 103) }' || fail "merged rate is $pct% of asked"
# bad input to merge: one line, exit 64
rc=0
"$LOADLENS_BIN/loadlens-driver" merge "$LL_TMP/rs.json" 2>"$LL_TMP/bad.err" || rc=$?
[ "$rc" = 64 ] || fail "merge of a non-driver file exited $rc, expected 64"
pass "merge of two shards is exact ($pct% of the asked rate)"
