#!/bin/bash
# The observer as a fleet agent: `--interval 0 --metrics PORT` prints no live lines
# and serves /metrics; Debian's prometheus scrapes it every second (OpenMetrics: Prometheus asks
# for it first); through Prometheus's HTTP API,
#  - increase(loadlens_accepted_connections_total[...]) equals the driver's connections exactly
#    (evaluated at the last sample, over a window reaching back before the first, which reads 0:
#    no extrapolation at either end, so PromQL gives last - first);
#  - histogram_quantile(0.5, ...service_seconds_bucket...) lies within the classic bucket that
#    holds the observer's own p50 (--json), i.e. within that bucket's width of it;
#  - the target is up with no scrape error, and `promtool check metrics` passes on a text scrape;
#  - bad --metrics values exit 64; a bare port binds 127.0.0.1.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-refserver loadlens-driver
command -v prometheus >/dev/null || skip "no prometheus binary (apt-get install prometheus)"
command -v promtool >/dev/null || skip "no promtool (part of Debian's prometheus package)"
command -v curl >/dev/null || skip "no curl"

obs=$LOADLENS_BIN/loadlens-observer
# bad input: one line, exit 64
for bad in "127.0.0.1:99999" "nohost.invalid:9435" ":9435" "12x"; do
	rc=0
	"$obs" --port 1 --metrics "$bad" >/dev/null 2>"$LL_TMP/bad.err" || rc=$?
	[ "$rc" = 64 ] || fail "--metrics '$bad' exited $rc, expected 64"
	[ "$(wc -l <"$LL_TMP/bad.err")" = 1 ] || fail "--metrics '$bad': $(cat "$LL_TMP/bad.err")"
done

port=$(free_port)
mport=$(free_port)
pport=$(free_port)
refserver_up --pin rs "$port" --proto tcp --service-time 3ms --service-mode sleep
start_agent obs "$port" "$mport"
grep -q "metrics at http://127.0.0.1:$mport/metrics" "$LL_TMP/obs.err" ||
	fail "a bare --metrics port did not bind 127.0.0.1: $(grep metrics "$LL_TMP/obs.err")"
# a port in use is a usage error, said at start
rc=0
"$obs" --port "$port" --metrics "$mport" -d 1s >/dev/null 2>"$LL_TMP/busy.err" || rc=$?
[ "$rc" = 64 ] && grep -q "cannot listen on --metrics" "$LL_TMP/busy.err" ||
	fail "a taken --metrics port exited $rc: $(cat "$LL_TMP/busy.err")"

cat >"$LL_TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: loadlens
    static_configs:
      - targets: ['127.0.0.1:$mport']
EOF
start prom prometheus --config.file="$LL_TMP/prometheus.yml" \
	--storage.tsdb.path="$LL_TMP/tsdb" --web.listen-address="127.0.0.1:$pport" \
	--storage.tsdb.retention.time=1h
api=http://127.0.0.1:$pport/api/v1
# q EXPR [TIME]: the first result's value, or "" (no result)
q() {
	curl -sf "$api/query" --data-urlencode "query=$1" ${2:+--data-urlencode "time=$2"} |
		jq -r '.data.result[0].value[1] // empty'
}
for _ in $(seq 1 150); do
	n=$(q "count_over_time(loadlens_accepted_connections_total[1m])" 2>/dev/null)
	[ -n "$n" ] && [ "$n" -ge 2 ] && break
	sleep 0.2
done
[ -n "$n" ] && [ "$n" -ge 2 ] || { tail -5 "$LL_TMP/prom.err"; fail "prometheus has no samples"; }
[ "$(q 'min_over_time(loadlens_accepted_connections_total[1m])')" = 0 ] ||
	fail "the first samples are not 0: $(q loadlens_accepted_connections_total)"

# load: 2 connections, a new one every 10 requests
driver drv "tcp://127.0.0.1:$port" -c 2 -n 1000 --reconnect-every 10 -q
conns=$(jget "$LL_TMP/drv.json" .connections)
[ "$conns" -ge 100 ] || fail "driver made $conns connections, 100 expected"
# two scrapes after the load: the last sample holds every accept
sleep 2.5
curl -sf "http://127.0.0.1:$mport/metrics" >"$LL_TMP/scrape.txt" || fail "cannot scrape"
promtool check metrics <"$LL_TMP/scrape.txt" >"$LL_TMP/promtool.out" 2>&1 ||
	fail "promtool check metrics: $(head -5 "$LL_TMP/promtool.out")"
echo "ok: promtool check metrics passes ($(grep -vc '^#' "$LL_TMP/scrape.txt") samples)"
curl -sf -H 'Accept: application/openmetrics-text; version=1.0.0' \
	"http://127.0.0.1:$mport/metrics" >"$LL_TMP/scrape.om" || fail "cannot scrape OpenMetrics"
[ "$(tail -1 "$LL_TMP/scrape.om")" = "# EOF" ] || fail "OpenMetrics scrape does not end in # EOF"
code() { curl -s -o /dev/null -w '%{http_code}' "$@"; }
[ "$(code "http://127.0.0.1:$mport/nope")" = 404 ] || fail "an unknown path did not get 404"
[ "$(code -X POST "http://127.0.0.1:$mport/metrics")" = 405 ] || fail "POST did not get 405"
[ "$(code -I "http://127.0.0.1:$mport/metrics")" = 200 ] || fail "HEAD /metrics did not get 200"
sleep 1.2
# every scrape so far parsed (Prometheus asked for OpenMetrics)
health=$(curl -sf "$api/targets" | jq -r '.data.activeTargets[0] | "\(.health) \(.lastError)"')
[ "$health" = "up " ] || fail "prometheus target: $health"
stop obs
stop rs
# no live lines in agent mode: stdout is only the summary
grep -q "ACC/S" "$LL_TMP/obs.out" && fail "agent mode printed live lines"

# the last sample's time, from the raw samples (an instant query would see the staleness marker
# Prometheus writes once the observer is gone)
t=$(curl -sf "$api/query" --data-urlencode 'query=loadlens_accepted_connections_total[10m]' |
	jq -r '.data.result[0].values[-1][0] // empty')
[ -n "$t" ] || fail "no samples of loadlens_accepted_connections_total in Prometheus"
inc=$(q 'increase(loadlens_accepted_connections_total[10m])' "$t")
obs_acc=$(jget "$LL_TMP/obs.json" .accepted)
echo "driver $conns connections; observer $obs_acc; PromQL increase() $inc"
[ "$inc" = "$conns" ] || fail "increase(loadlens_accepted_connections_total) = $inc, driver $conns"
[ "$obs_acc" = "$conns" ] || fail "observer --json accepted $obs_acc, driver $conns"

sel="port=\"$port\",proto=\"tcp\""
pq=$(q "histogram_quantile(0.5, sum by (le) (loadlens_request_service_seconds_bucket{$sel}))" "$t")
p50=$(jget "$LL_TMP/obs.json" '.request_timing.slots[] | select(.proto == "tcp") | .service_time.p50')
reqs=$(q "loadlens_requests_total{$sel}" "$t")
[ "$reqs" = 1000 ] || fail "loadlens_requests_total = $reqs, 1000 expected"
for h in socket_queue service residence; do
	n=$(q "loadlens_request_${h}_seconds_count{$sel}" "$t")
	[ "$n" = 1000 ] || fail "loadlens_request_${h}_seconds_count = $n, 1000 expected"
	n=$(q "loadlens_request_${h}_seconds_bucket{$sel,le=\"+Inf\"}" "$t")
	[ "$n" = 1000 ] || fail "loadlens_request_${h}_seconds_bucket{le=+Inf} = $n, 1000 expected"
done
# the classic bucket (lo, hi] holding the observer's p50, and the PromQL p50 within its width
awk -v q="$pq" -v p="$p50" 'BEGIN {
	p /= 1e9; lo = 0; n = split("1e-6 2e-6 5e-6 1e-5 2e-5 5e-5 1e-4 2e-4 5e-4 1e-3 2e-3 5e-3 1e-2 2e-2 5e-2 0.1 0.2 0.5 1 2 5 10 20 50 100", b, " ")
	for (i = 1; i <= n; i++) { if (p <= b[i]) { hi = b[i]; break } lo = b[i] }
	d = q - p; if (d < 0) d = -d
	printf "PromQL p50 %.6f s, observer p50 %.6f s, bucket (%g, %g], |diff| %.6f s\n", q, p, lo, hi, d
	exit !(d <= hi - lo && q > lo && q <= hi) }' ||
	fail "histogram_quantile p50 $pq s is not within the bucket of the observer's p50 $p50 ns"
pass "Prometheus scrapes the agent: exact accepts through PromQL, p50 within its bucket, promtool clean"
