#!/usr/bin/env bash
# LDAP searches a second against Debian's slapd (mdb, 10,000 entries
# uid=user0..9999, uid indexed, no stats log), the driver (--proto ldap, a templated filter)
# against a hand-written asyncio search loop (bench/ldap_search_peer.py), alternated round by
# round; slapd on CPU 0, the client on CPU 1. Each search: (uid=userN), N uniform, one entry.
# Usage: ROUNDS=3 SECS=10 C=16 bench/ldap_searchrate.sh [BUILD_BIN]  → a table on stdout.
set -u
. "$(dirname "$0")/common.sh"
bench_test_servers # slapd_db: the same slapd and 10,000 entries as the integration test's
bench_bin "${1:-}" loadlens-driver
ROUNDS=${ROUNDS:-3}
SECS=${SECS:-10}
C=${C:-16}
BASE=ou=people,dc=example,dc=com
command -v slapd >/dev/null || [ -x /usr/sbin/slapd ] || { echo "needs slapd"; exit 1; }
PATH=$PATH:/usr/sbin
bench_tmp ldapbench

slapd_db "$TMP" 0 || { cat "$TMP/slapadd.out"; exit 1; }
P=$(port)
exec_on_cpu 0 slapd -h "ldap://127.0.0.1:$P/" -f "$TMP/slapd.conf" -d 0 >"$TMP/slapd.log" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do
	"$D" "tcp://127.0.0.1:$P" --proto ldap -n 1 -q >/dev/null 2>&1 && break
	sleep 0.1
done

bench_table "### LDAP searches/s against slapd, $C connections, ${SECS}s a run" \
	client round "searches/s" "entries/search" "p50 ms" "p99 ms" "client CPU s"
for r in $(seq 1 "$ROUNDS"); do
	on_cpu 1 "$D" "tcp://127.0.0.1:$P" --proto ldap --base "$BASE" \
		--filter '(uid=user{{rand:0-9999}})' -c "$C" -d "${SECS}s" -q --json "$TMP/d.json" \
		>/dev/null 2>&1
	jq -r --arg r "$r" 'def ms: . / 1e4 | round / 100;
		"| loadlens-driver | \($r) | \(.throughput_rps | floor) | " +
		"\(.ldap.entries / .ldap.searches) | \(.latency.p50 | ms) | \(.latency.p99 | ms) | " +
		"\(.driver.cpu_ns / 1e7 | round / 100) |"' "$TMP/d.json"
	on_cpu 1 /usr/bin/time -f "%U %S" -o "$TMP/t" python3 "$(dirname "$0")/ldap_search_peer.py" \
		"$P" "$BASE" "$C" "$SECS" >"$TMP/p.out"
	awk -v r="$r" 'NR == FNR { cpu = $1 + $2; next }
		{ printf "| python asyncio loop | %s | %d | %.2f | - | - | %.2f |\n", r, $2 / $6,
		  $4 / $2, cpu }' \
		"$TMP/t" "$TMP/p.out"
done
