#!/bin/bash
# The observer as a fleet agent over a long churn run: `--interval 0 --metrics PORT`
# watching a refserver while the driver makes a new connection per request (open loop, RATE/s),
# scraped once a second as Prometheus would; tests/integration/rss_slope.py samples the
# observer's memory (RssAnon: what it allocated) and fds once a second after a 20 s warm-up.
# At the end, the observer's accepted connections against the driver's. Loopback only, bounded
# in time.
# Prints one Markdown table row on stdout; progress on stderr.
#
#   sudo bench/agent_soak.sh [SECONDS (default 200)] [RATE (default 5000)] [BIN_DIR]
set -eu
. "$(dirname "$0")/common.sh"
SECS=${1:-200}
RATE=${2:-5000}
LOADLENS_BIN=${3:-${LOADLENS_BIN:-}}
[ -n "$LOADLENS_BIN" ] || unset LOADLENS_BIN
bench_root
bench_bins
OBS=$BIN/loadlens-observer
bench_tmp loadlens-agent-soak
P=$(port)
M=$(port)
"$RS" --proto tcp --listen "127.0.0.1:$P" >"$TMP/rs.out" 2>"$TMP/rs.err" &
PIDS+=($!)
"$OBS" --port "$P" --interval 0 --metrics "$M" --json "$TMP/obs.json" \
	>"$TMP/obs.out" 2>"$TMP/obs.err" &
OP=$!
PIDS+=($OP)
for _ in $(seq 200); do grep -q "metrics at" "$TMP/obs.err" && break; sleep 0.1; done
grep -q "metrics at" "$TMP/obs.err" || { cat "$TMP/obs.err" >&2; exit 1; }
"$D" "tcp://127.0.0.1:$P" -c 8 --rate "$RATE" --new-conn -d "$((SECS + 25))s" -q \
	--json "$TMP/drv.json" >"$TMP/drv.out" 2>&1 &
DP=$!
echo "agent soak: ${SECS}s of churn at ${RATE}/s, observer $OBS" >&2
python3 "$(dirname "$0")/../tests/integration/rss_slope.py" "$OP" "$SECS" --warmup 20 \
	--scrape "http://127.0.0.1:$M/metrics" --max-fds-growth 2 >"$TMP/slope.txt" || true
wait "$DP"
sleep 1.5
kill -INT "$OP"
wait "$OP" || true
cat "$TMP/slope.txt" >&2
conns=$(jq .connections "$TMP/drv.json")
acc=$(jq .accepted "$TMP/obs.json")
ivs=$(jq '.request_timing.intervals | length' "$TMP/obs.json")
awk -v c="$conns" -v a="$acc" -v i="$ivs" -v s="$SECS" -v r="$RATE" '
	/^RssAnon [0-9]/ { first = $2; last = $7; slope = $0; sub(/.*slope /, "", slope); sub(/ kB\/s.*/, "", slope)
	               fds = $0; sub(/.*fds /, "", fds); sub(/ \(max.*/, "", fds)
	               sc = $0; sub(/.*\); /, "", sc) }
	/^FAIL/ { verdict = "FAIL" }
	END { printf "| %d s | %d/s | %d | %d | %s kB | %s kB | %s kB/s | %s | %s | %d | %s |\n", s, r, c,
	      a, first, last, slope, fds, sc, i, verdict ? verdict : "flat" }' "$TMP/slope.txt"
