#!/bin/bash
# Error responses on a real server (observer/rules/rules_statuses.c, error_responses): nginx h2c
# under the observer, h2load's requests to a path it does not have (404 for all) and to one it
# serves (200 for all).
# - sick: the finding error_responses names tcp/PORT, 100% client errors, and its 404 count =
#   h2load's 4xx = nginx's access log; the NDJSON interval records' statuses (deltas of the
#   cumulative counts) add up to the same; a live line "  tcp/PORT  st 4xx:..." shows them;
# - healthy: 200s only: no error_responses finding, no warning; the intervals' 200s add up to
#   h2load's 2xx.
# Statuses are read from HTTP/2 header blocks only (HTTP/2 and gRPC); HTTP/1 responses are not.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer
require_cmd nginx nginx-light h2load nghttp2-client jq jq

free_ports P ST
mkdir -p "$LL_TMP/www"
nginx_up ng "$ST" "
	log_format st '\$status';
	server {
		listen 127.0.0.1:$P http2;
		access_log $LL_TMP/access.log st;
		root $LL_TMP/www;
		location = /ok { return 200 \"ok\\n\"; }
	}"

# run NAME PATH: h2load's 2,000 requests (2 connections, 10 streams in flight each) to PATH under
# the observer (--ndjson), kept a second and more after them so that a live line shows them;
# leaves obs_NAME.json, obs_NAME.ndjson, obs_NAME.out (the live lines), nginx's log in NAME.log
# and h2load's statuses by class in H2XX and H4XX
run() {
	local name=$1 path=$2 out
	: >"$LL_TMP/access.log"
	start_observer "obs_$name" "$P" --ndjson "$LL_TMP/obs_$name.ndjson"
	out=$LL_TMP/h2load_$name.out
	h2load -c 2 -m 10 -n 2000 "http://127.0.0.1:$P$path" >"$out" 2>&1 ||
		fail "$name: h2load exited $? ($(tail -3 "$out"))"
	sleep 1.5
	stop "obs_$name"
	cp "$LL_TMP/access.log" "$LL_TMP/$name.log"
	# "status codes: 0 2xx, 0 3xx, 2000 4xx, 0 5xx"
	H2XX=$(awk '/^status codes:/ { print $3 }' "$out")
	H4XX=$(awk '/^status codes:/ { print $7 }' "$out")
	[ -n "$H2XX" ] && [ -n "$H4XX" ] || fail "$name: no status codes in h2load's output: $(cat "$out")"
	echo "$name: h2load $(grep '^status codes:' "$out")"
}

# interval_sum NAME CODE: CODE's responses on port P over NAME's NDJSON interval records
interval_sum() {
	jq -s --argjson p "$P" --arg c "$2" '[.[] | select(.type == "interval") | .statuses[]? |
		select(.port == $p) | .status[$c] // 0] | add // 0' "$LL_TMP/obs_$1.ndjson"
}

# sick: every request to a missing path
run miss /missing
[ "$H4XX" = 2000 ] || fail "miss: h2load saw $H4XX 4xx of 2000"
logged=$(grep -c '^404$' "$LL_TMP/miss.log")
[ "$logged" = "$H4XX" ] || fail "miss: nginx logged $logged 404s, h2load saw $H4XX"
j=$LL_TMP/obs_miss.json
f=$(jq -c '[.findings[] | select(.kind == "error_responses")][0]' "$j")
[ "$f" != null ] || fail "miss: no error_responses finding: $(jq -c '[.findings[] | .text]' "$j")"
echo "miss: $(jq -r .text <<<"$f")"
[ "$(jq -r .severity <<<"$f")" = warning ] || fail "miss: severity $(jq -r .severity <<<"$f")"
[ "$(jq -r .evidence.port <<<"$f")" = "$P" ] || fail "miss: the finding names port $(jq -r .evidence.port <<<"$f"), not $P"
n=$(jq -r '.evidence.codes["404"]' <<<"$f")
[ "$n" = "$H4XX" ] || fail "miss: the finding counts $n 404s, h2load $H4XX ($f)"
jq -r .text <<<"$f" | grep -q "100% of 2,000 HTTP/2 responses were client errors (404: 2,000)" ||
	fail "miss: the text does not say the share and the count: $(jq -r .text <<<"$f")"
echo "ok: miss: error_responses on tcp/$P: $n 404s = h2load's $H4XX 4xx = nginx's log"
expect_json "miss: the summary's 404s" "$j" "$(tcp_slot "$P") | .h2_statuses.status[\"404\"]" "$H4XX"
sum=$(interval_sum miss 404)
[ "$sum" = "$H4XX" ] || fail "miss: the interval records' 404s add up to $sum, h2load's $H4XX"
echo "ok: miss: the interval records' 404s add up to $sum"
[ "$(interval_sum miss 200)" = 0 ] || fail "miss: 200s in the interval records"
grep -q '"kind":"error_responses"' "$LL_TMP/obs_miss.ndjson" ||
	fail "miss: no error_responses event in the NDJSON"
grep -Eq "^  tcp/$P +st 4xx:" "$LL_TMP/obs_miss.out" ||
	fail "miss: no live line of its statuses: $(cat "$LL_TMP/obs_miss.out")"
echo "ok: miss: live: $(grep -E "^  tcp/$P +st " "$LL_TMP/obs_miss.out" | head -1)"

# healthy: every request served
run ok /ok
[ "$H2XX" = 2000 ] || fail "ok: h2load saw $H2XX 2xx of 2000"
j=$LL_TMP/obs_ok.json
[ "$(jq '[.findings[] | select(.kind == "error_responses")] | length' "$j")" = 0 ] ||
	fail "ok: error_responses on a healthy run: $(jq -c '[.findings[] | .text]' "$j")"
[ "$(jq '[.findings[] | select(.severity != "note")] | length' "$j")" = 0 ] ||
	fail "ok: a warning on a healthy run: $(jq -c '[.findings[] | .text]' "$j")"
sum=$(interval_sum ok 200)
[ "$sum" = "$H2XX" ] || fail "ok: the interval records' 200s add up to $sum, h2load's $H2XX"
grep -Eq "^  tcp/$P +st 2xx:" "$LL_TMP/obs_ok.out" ||
	fail "ok: no live line of its statuses: $(cat "$LL_TMP/obs_ok.out")"
echo "ok: ok: 2000 200s, the interval records' add up to $sum, no finding"
pass "error responses on nginx h2c: 404s named with h2load's count; 200s silent"
