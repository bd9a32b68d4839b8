#!/usr/bin/env bash
# The driver's native HTTP/2 engine against h2load on nginx h2c, 4 connections
# x 10 streams (h2load -c 4 -m 10 -t 1; the driver -c 4 --streams 10 -t 1), each load tool pinned
# to CPU 1 and nginx (1 worker, a 12-byte body, no access log) to CPU 0; the tools alternate,
# round by round. Per run: requests/s, the tool's CPU (user + sys of the whole process) per
# request, and from it requests/s per core of the tool (1 / CPU per request), and nginx's worker's
# CPU per request (/proc/PID/schedstat); nginx is the bound, so req/s is what nginx served each
# tool, and each pair's ratio is the served ratio (median and range printed). Prints Markdown
# rows for BENCHMARKS.md, then the medians and the driver / h2load ratio of the per-core rates.
#
#   bench/h2_vs_h2load.sh
#
# Environment: LOADLENS_BIN (default build/bin), ROUNDS (5), N (requests per run, 300000).
# Loopback only.
set -u
. "$(dirname "$0")/common.sh"
bench_bins
ROUNDS=${ROUNDS:-5}
N=${N:-300000}
bench_tmp loadlens-h2bench
for c in nginx h2load jq taskset; do
	command -v "$c" >/dev/null ||
		{ echo "needs $c (nginx-light, nghttp2-client, jq, util-linux)"; exit 1; }
done
[ "$(nproc)" -ge 2 ] || { echo "needs 2 CPUs: nginx on CPU 0, the load tool on CPU 1"; exit 1; }

PORT=$(port)
bench_nginx_up "$TMP/ngx" "$PORT" "http2" --http2-prior-knowledge
URL=http://127.0.0.1:$PORT/
WORKER=$(pgrep -P "${PIDS[-1]}" | head -1)
[ -n "$WORKER" ] || { echo "no nginx worker under pid ${PIDS[-1]}"; exit 1; }
# srv_ns: nginx's worker's time on a CPU so far (ns, /proc/PID/schedstat)
srv_ns() { awk '{ print $1 }' "/proc/$WORKER/schedstat"; }

# cpu_of CMD...: run CMD pinned to CPU 1; its user+sys seconds into $TMP/cpu, stdout to stdout
cpu_of() {
	local TIMEFORMAT='%U %S'
	{ time taskset -c 1 "$@" 2>&1; } 2>"$TMP/time"
	awk '{ printf "%.3f\n", $1 + $2 }' "$TMP/time" >"$TMP/cpu"
}

# row TOOL OK SECONDS SRV_NS: a table row, and "TOOL rps us per-core srv-us" appended to $TMP/all
row() {
	local tool=$1 ok=$2 secs=$3 srv=$4 cpu
	cpu=$(cat "$TMP/cpu")
	awk -v t="$tool" -v ok="$ok" -v s="$secs" -v c="$cpu" -v n="$srv" 'BEGIN {
		rps = ok / s; us = c * 1e6 / ok; core = ok / c; sus = n / 1e3 / ok
		printf "| %s | %d | %.0f | %.3f | %.2f | %.0f | %.2f |\n", t, ok, rps, c, us, core, sus
		printf "%s %.0f %.2f %.0f %.3f\n", t, rps, us, core, sus >> "'"$TMP/all"'" }'
}

bench_table "### HTTP/2 h2c, nginx 1 worker: 4 connections x 10 streams, $N requests a run" \
	tool requests "req/s" "CPU s" "CPU µs/request" "req/s per core" "nginx CPU µs/request"
for r in $(seq 1 "$ROUNDS"); do
	s0=$(srv_ns)
	cpu_of h2load -c 4 -m 10 -t 1 -n "$N" "$URL" >"$TMP/h2load.out"
	ok=$(awk '/^requests:/ { print $8 }' "$TMP/h2load.out")
	secs=$(awk '/^finished in/ { sub(/s,$/, "", $3); print $3 }' "$TMP/h2load.out")
	[ "${ok:-0}" = "$N" ] ||
		{ cat "$TMP/h2load.out"; echo "h2load: $ok of $N succeeded"; exit 1; }
	row h2load "$ok" "$secs" $(($(srv_ns) - s0))
	s0=$(srv_ns)
	cpu_of "$D" "$URL" --http2 -c 4 --streams 10 -t 1 -n "$N" -q --json "$TMP/d.json" \
		>"$TMP/d.out"
	ok=$(jq .requests "$TMP/d.json")
	[ "$ok" = "$N" ] || { cat "$TMP/d.out"; echo "driver: $ok of $N ok"; exit 1; }
	row driver "$ok" "$(jq '.duration_ns / 1e9' "$TMP/d.json")" $(($(srv_ns) - s0))
done
echo
awk '{ rps[$1] = rps[$1] " " $2; us[$1] = us[$1] " " $3; core[$1] = core[$1] " " $4
	srv[$1] = srv[$1] " " $5
	# the served ratio of each interleaved pair (the h2load row, then the driver row)
	if ($1 == "h2load") last = $2; else ratio = ratio " " $2 / last }
function median(s,   a, n, i, j, t) {
	n = split(s, a, " ")
	for (i = 1; i <= n; i++)
		for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
	return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}
END {
	for (t in rps) { mr[t] = median(rps[t]); mu[t] = median(us[t]); mc[t] = median(core[t])
		ms[t] = median(srv[t])
		printf "median %s: %.0f req/s, %.2f CPU µs/request, %.0f req/s per core, " \
			"nginx %.2f CPU µs/request\n", t, mr[t], mu[t], mc[t], ms[t] }
	n = split(ratio, a, " "); lo = hi = a[1]
	for (i = 2; i <= n; i++) { if (a[i] < lo) lo = a[i]; if (a[i] > hi) hi = a[i] }
	printf "driver / h2load: req/s %.2fx, req/s per core %.2fx, nginx CPU per request %.2fx\n",
		mr["driver"] / mr["h2load"], mc["driver"] / mc["h2load"], ms["driver"] / ms["h2load"]
	printf "nginx served the driver %.3fx what it served h2load (median of %d pairs, " \
		"range %.3f-%.3f)\n", median(ratio), n, lo, hi
}' "$TMP/all"
