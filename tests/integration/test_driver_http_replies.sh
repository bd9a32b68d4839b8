#!/usr/bin/env bash
# Odd HTTP replies are classed the same by both engines. Status codes 100..999 are
# counted as they are (999 is not 0); a garbage reply and a status under 100 are short_response;
# headers over the engine's limit are too_large, not ECONNRESET with a "reset" hint.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver
[ -x /usr/bin/python3 ] || skip "needs /usr/bin/python3 for the test server"

P=$(free_port)
start odd /usr/bin/python3 "$(dirname "$0")/odd_httpd.py" "$P"
wait_for odd listening

# check NAME JQ-EXPR WANT
check() {
	local got
	got=$(jq -r "$2" "$LL_TMP/$1.json")
	[ "$got" = "$3" ] || { cat "$LL_TMP/$1.out"; fail "$1: $2 is $got, expected $3"; }
}

for e in native curl; do
	DRIVER_RC=1 driver "s999-$e" "http://127.0.0.1:$P/status/999" --http-engine "$e" -n 7 -q
	check "s999-$e" '.status."999"' 7
	check "s999-$e" '.status."0" // 0' 0
	check "s999-$e" .errors.http_status 7
	grep -q 'status  *999: 7' "$LL_TMP/s999-$e.out" || fail "$e: summary does not show 999: 7"

	driver "s100-$e" "http://127.0.0.1:$P/status/299" --http-engine "$e" -n 3 -q
	check "s100-$e" '.status."299"' 3
	check "s100-$e" .requests 3

	for path in garbage status/099; do
		n=garb-$e-${path//\//}
		DRIVER_RC=1 driver "$n" "http://127.0.0.1:$P/$path" --http-engine "$e" -n 4 -q
		check "$n" .errors.short_response 4
		check "$n" .errors.other 0
	done

	DRIVER_RC=1 driver "big-$e" "http://127.0.0.1:$P/bighdr" --http-engine "$e" -n 3 -q
	check "big-$e" .errors.too_large 3
	check "big-$e" .errors.ECONNRESET 0
	check "big-$e" .errors.other 0
	grep -q '^hint: too_large: response headers over' "$LL_TMP/big-$e.out" ||
		fail "$e: no too_large hint"
	grep -q 'reset connections' "$LL_TMP/big-$e.out" && fail "$e: oversized headers hinted as resets"
done
pass "both engines: status 100..999 as they are, garbage is short_response, big headers too_large"
