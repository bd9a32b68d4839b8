#!/bin/bash
# loadlens sweep and report.
#  - sick: one refserver worker sleeping 1 ms per request (capacity 1,000 req/s, CPU idle): the
#    sweep stops at a plateau, its peak is at most the capacity, and it names the server's
#    workers as what ran out (socket-queue wait above a flat service time, CPU not busy);
#  - healthy: one connection to a 5 ms server: nothing is named;
#  - nginx on a loopback port: a short sweep with a verdict, and its report renders in headless
#    Chromium with every image loaded; every plot has data points.
source "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-driver loadlens-refserver
LL="$LOADLENS_SRC/tools/loadlens"

sweep() { # NAME ARGS...
	local name=$1 rc=0
	shift
	"$LL" sweep "$@" --out "$LL_TMP/$name" --json "$LL_TMP/$name.json" \
		>"$LL_TMP/$name.out" 2>"$LL_TMP/$name.err" || rc=$?
	cat "$LL_TMP/$name.err" "$LL_TMP/$name.out"
	[ $rc = 0 ] || fail "loadlens sweep $* exited $rc"
}

# 1. sick: the server's concurrency is the limit
P=$(free_port)
refserver_up rs "$P" --proto http --workers 1 --service-time 1ms --service-mode sleep
sweep sick "http://127.0.0.1:$P/" --max-c 32 -d 2s --p99-bound 500ms --time-limit 60s
stop rs
F=$LL_TMP/sick.json
grep -q "sweep of up to 6 steps of 2s (at most about" "$LL_TMP/sick.err" ||
	fail "the sweep did not state its bound at the start"
jget "$F" .verdict.stopped_because | grep -q plateaued ||
	fail "no plateau: $(jq .verdict.stopped_because "$F")"
peak=$(jget "$F" .verdict.peak.throughput_rps)
awk -v p="$peak" 'BEGIN { exit !(p > 500 && p <= 1010) }' || fail "peak $peak req/s, capacity 1000"
[ "$(jget "$F" .verdict.ran_out_first.resource)" = "server workers" ] ||
	fail "ran out first: $(jq -c .verdict.ran_out_first "$F"), expected server workers"
jget "$F" .verdict.knee.level.connections >/dev/null
echo "ok: sick sweep: peak $peak req/s, $(jq -r .verdict.ran_out_first.text "$F")"

# 2. healthy: a single connection to a 5 ms server names nothing
P=$(free_port)
refserver_up rs2 "$P" --proto http --workers 1 --service-time 5ms --service-mode sleep
sweep healthy "http://127.0.0.1:$P/" -c 1 -d 1s --p99-bound 500ms
stop rs2
[ "$(jq .verdict.ran_out_first "$LL_TMP/healthy.json")" = null ] ||
	fail "healthy run named $(jq -c .verdict.ran_out_first "$LL_TMP/healthy.json")"
grep -q "ran out first: nothing named" "$LL_TMP/healthy.out" || fail "healthy: no 'nothing named'"

# 3. nginx: a short sweep, its report in headless Chromium
command -v nginx >/dev/null || skip "nginx not installed (apt-get install nginx-light)"
NP=$(free_port)
SP=$(free_port)
nginx_up ngx "$SP" "server { listen 127.0.0.1:$NP; location / { return 200 \"hello\\n\"; } }"
sweep ngx "http://127.0.0.1:$NP/" -c 1,2 -d 1s --p99-bound 100ms
jget "$LL_TMP/ngx.json" .verdict.peak.throughput_rps >/dev/null
R=$LL_TMP/ngx/report.html
[ -s "$R" ] || fail "no report at $R"
pts=$(grep -o 'data-points="[0-9]*"' "$R" | grep -o '[0-9]*' | tr '\n' ' ')
[ "$(echo $pts | wc -w)" = 4 ] || fail "report has plots with points: '$pts', expected 4 plots"
for n in $pts; do [ "$n" -gt 0 ] || fail "a plot without data points ($pts)"; done
[ "$(ls "$LL_TMP/ngx/png" | wc -l)" = 4 ] || fail "expected 4 PNG files in $LL_TMP/ngx/png"
command -v chromium >/dev/null || skip "chromium not installed (apt-get install chromium)"
# as root Chromium needs --no-sandbox; the page sets data-images-loaded="decoded/total" on load
timeout 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$LL_TMP/chrome" \
	--dump-dom "file://$R" >"$LL_TMP/dom.html" 2>"$LL_TMP/chrome.err" ||
	{ tail -5 "$LL_TMP/chrome.err"; fail "chromium could not render $R"; }
loaded=$(grep -o 'data-images-loaded="[^"]*"' "$LL_TMP/dom.html")
[ "$loaded" = 'data-images-loaded="4/4"' ] || fail "images loaded in chromium: '$loaded'"
timeout 60 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$LL_TMP/chrome" \
	--hide-scrollbars --window-size=1000,2000 --screenshot="$LL_TMP/page.png" "file://$R" \
	>/dev/null 2>&1 || fail "chromium --screenshot failed"
[ "$(head -c 8 "$LL_TMP/page.png" | od -An -c | tr -d ' ')" = '211PNG\r\n032\n' ] ||
	fail "the screenshot is not a PNG"
echo "ok: report $R: plots with $pts data points; chromium: $loaded"
pass "loadlens sweep names what ran out, stays silent when healthy, and its report renders"
