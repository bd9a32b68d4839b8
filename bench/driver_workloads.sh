#!/usr/bin/env bash
# loadlens-driver against redis-benchmark (PING, GET, each with -P 1 and
# -P 16) on redis-server, and against dnsperf on unbound (a local zone, UDP), alternated round by
# round in one run. Server on CPU 0, client on CPU 1; both clients single-threaded.
# Usage: ROUNDS=3 N=200000 DNS_S=5 bench/driver_workloads.sh [BUILD_BIN]  → a table on stdout.
set -u
. "$(dirname "$0")/common.sh"
bench_test_servers # unbound_conf: the same unbound as the integration tests'
bench_bin "${1:-}" loadlens-driver
ROUNDS=${ROUNDS:-3}
N=${N:-200000}
DNS_S=${DNS_S:-5}
C=${C:-50}
bench_tmp drvwork

RP=$(port)
exec_on_cpu 0 redis-server --port "$RP" --bind 127.0.0.1 --save '' --appendonly no >"$TMP/redis.log" 2>&1 &
PIDS+=($!)
UP=$(port)
unbound_conf "$TMP/ub.conf" "$UP" bench.test. 'local-data: "a.bench.test. 60 IN A 10.0.0.1"' \
	'local-data: "b.bench.test. 60 IN A 10.0.0.2"'
exec_on_cpu 0 unbound -d -c "$TMP/ub.conf" >"$TMP/ub.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 50); do redis-cli -p "$RP" ping >/dev/null 2>&1 && break; sleep 0.1; done
printf 'a.bench.test A\n' >"$TMP/q1.txt"
for _ in $(seq 1 50); do # unbound answers
	"$D" "udp://127.0.0.1:$UP" -n 1 --timeout 100ms --requests-file "$TMP/q1.txt" \
		--response dns -q >/dev/null 2>&1 && break
	sleep 0.1
done
redis-cli -p "$RP" set key:000000000001 hello >/dev/null
printf '*1\r\n$4\r\nPING\r\n' >"$TMP/ping"
printf '*2\r\n$3\r\nGET\r\n$16\r\nkey:000000000001\r\n' >"$TMP/get"
printf 'a.bench.test A\nb.bench.test A\n' >"$TMP/q.txt"

# one line per run: tool setting round rps p50_ms p99_ms
rb() { # rb TEST PIPE ROUND
	on_cpu 1 redis-benchmark -p "$RP" -t "$1" -n "$N" -c "$C" -P "$2" --csv 2>/dev/null | tail -1 |
		tr -d '"' | awk -F, -v s="$1 -P $2" -v r="$3" '{print "redis-benchmark", s, r, $2, $5, $7}'
}
ld() { # ld TEST PIPE ROUND
	local pay=$TMP/ping
	[ "$1" = get ] && pay=$TMP/get
	on_cpu 1 "$D" "tcp://127.0.0.1:$RP" -c "$C" -n "$N" -P "$2" --payload "$pay" --response resp -q \
		--json "$TMP/ld.json" >/dev/null 2>&1
	jq -r --arg s "$1 -P $2" --arg r "$3" \
		'"loadlens-driver \($s) \($r) \(.throughput_rps) \(.latency.p50/1e6) \(.latency.p99/1e6)"' \
		"$TMP/ld.json"
}
dp() { # dp ROUND: dnsperf, 100 outstanding
	on_cpu 1 dnsperf -s 127.0.0.1 -p "$UP" -d "$TMP/q.txt" -l "$DNS_S" -q "$C" -c 1 \
		>"$TMP/dp.out" 2>&1
	awk -v r="$1" -v c="$C" '/Queries per second/ {q=$4} /Average Latency/ {a=$4}
		END {print "dnsperf dns-udp -q", c, r, q, a * 1000, "-"}' "$TMP/dp.out"
}
ldd() {
	on_cpu 1 "$D" "udp://127.0.0.1:$UP" -c "$C" -d "${DNS_S}s" --requests-file "$TMP/q.txt" \
		--response dns -q --json "$TMP/ldd.json" >/dev/null 2>&1
	jq -r --arg r "$1" \
		'"loadlens-driver dns-udp -c \(.config.connections) \($r) \(.throughput_rps) \(.latency.p50/1e6) \(.latency.p99/1e6)"' \
		"$TMP/ldd.json"
}
{
	for r in $(seq 1 "$ROUNDS"); do
		for t in ping_mbulk get; do
			for p in 1 16; do
				if [ $((r % 2)) = 1 ]; then rb $t $p "$r"; ld ${t%_mbulk} $p "$r"
				else ld ${t%_mbulk} $p "$r"; rb $t $p "$r"; fi
			done
		done
		if [ $((r % 2)) = 1 ]; then dp "$r"; ldd "$r"; else ldd "$r"; dp "$r"; fi
	done
} | sed 's/ping_mbulk/ping/' | tee "$TMP/raw.txt" >&2
bench_table "client" "setting" "rounds" "req/s median (min–max)" "p50 ms median" "p99 ms median"
sort -k1,1 -k2,4 "$TMP/raw.txt" | awk '
function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
	if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t } return a[int((n + 1) / 2)] }
{ k = $1 " | " $2 " " $3 " " $4; if (!(k in n)) order[++m] = k; n[k]++
  rps[k, n[k]] = $6; p50[k, n[k]] = $7; p99[k, n[k]] = $8 }
END { for (o = 1; o <= m; o++) { k = order[o]; c = n[k]; lo = 1e18; hi = 0
	for (i = 1; i <= c; i++) { a[i] = rps[k, i]; if (a[i] + 0 < lo) lo = a[i]; if (a[i] + 0 > hi) hi = a[i]
		b[i] = p50[k, i]; d[i] = p99[k, i] }
	printf "| %s | %d | %.0f (%.0f–%.0f) | %s | %s |\n", k, c, med(a, c), lo, hi, med(b, c), med(d, c) } }'
