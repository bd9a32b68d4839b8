#!/bin/bash
# The observer as a fleet agent keeps a flat memory: with `--interval 0 --metrics`
# it keeps nothing per tick, so under a minute of steady connection churn (the driver making a new
# connection per request to a refserver, open loop) and a scrape a second, what it allocated
# (RssAnon) after a 20 s warm-up grows by at most 64 kB over the minute, every scrape answers and
# its fds do not grow (rss_slope.py; this build's memory moves by no page at all); before,
# request timing kept a JSON interval per tick and RSS grew ~2.5 kB/s, 96-184 kB in any minute.
# The counts stay exact: the accepted connections equal the driver's. The 3-minute run is
# bench/agent_soak.sh (BENCHMARKS.md).
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-refserver loadlens-driver

secs=${SOAK_SECONDS:-60}
port=$(free_port)
mport=$(free_port)
refserver_up --pin rs "$port" --proto tcp
start_agent obs "$port" "$mport"
start drv "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$port" -c 8 --rate 4000 --new-conn \
	-d "$((secs + 20))s" -q --json "$LL_TMP/drv.json"
python3 "$(dirname "$0")/rss_slope.py" "$PID_obs" "$secs" --warmup 20 \
	--scrape "http://127.0.0.1:$mport/metrics" --max-growth-kb 64 --max-fds-growth 2 ||
	fail "the agent's memory or fds grow with uptime"
for _ in $(seq 1 150); do kill -0 "$PID_drv" 2>/dev/null || break; sleep 0.1; done
wait "$PID_drv" || fail "the driver exited $?"
sleep 1.2
stop obs
conns=$(jget "$LL_TMP/drv.json" .connections)
acc=$(jget "$LL_TMP/obs.json" .accepted)
ivs=$(jget "$LL_TMP/obs.json" '.request_timing.intervals | length')
echo "driver $conns connections; observer accepted $acc; interval records kept $ivs"
[ "$conns" -ge $((secs * 1000)) ] || fail "only $conns connections of churn (1,000/s at least)"
[ "$acc" = "$conns" ] || fail "observer accepted $acc, driver $conns"
[ "$ivs" = 0 ] || fail "agent mode kept $ivs interval records (none expected)"
pass "flat agent memory over ${secs}s of churn; counts exact"
