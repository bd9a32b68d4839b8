#!/usr/bin/env bash
# Issue 5: open loop (--rate) reaches the asked rate within 1% at 1k, 10k and 50k req/s, and every
# request reaches the server.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"

P=$(free_port)
refserver_up rs "$P" --proto tcp
total=0
for rate in 1000 10000 50000; do
	driver "r$rate" "tcp://127.0.0.1:$P" -c 100 -d 3s --rate "$rate" -q
	got=$(jget "$LL_TMP/r$rate.json" .throughput_rps)
	sent=$(jget "$LL_TMP/r$rate.json" '.requests + .errors_total')
	# requests the driver could not start before -d (a busy machine) are counted, not sent late
	ns=$(jget "$LL_TMP/r$rate.json" .not_sent)
	total=$((total + sent))
	awk -v g="$got" -v r="$rate" 'BEGIN { d = (g - r) / r; if (d < 0) d = -d; exit !(d < 0.01) }' ||
		fail "asked $rate req/s, achieved $got"
	[ $((sent + ns)) = $((rate * 3)) ] ||
		fail "asked $((rate * 3)) requests in 3 s at $rate/s, sent $sent, not sent $ns"
	echo "rate $rate: achieved $got req/s ($(jget "$LL_TMP/r$rate.json" .rate_achieved_pct)%)"
done
stop rs
[ "$(jget "$LL_TMP/rs.json" .requests)" = "$total" ] || fail "the server saw a different count"
pass "open loop within 1% at 1k, 10k, 50k req/s"
