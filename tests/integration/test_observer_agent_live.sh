#!/bin/bash
# The observer as the package runs it (--interval 0, no --metrics: no live lines) still decides
# while it runs: a finding is said on stderr while the observer is up, not only in the summary at
# exit. Until 2026-11-27 --interval 0 without --metrics never ticked: a server leaking 1,000
# connections into CLOSE_WAIT was never named live, and the summary said "none".
# Sick: the reference server never closes its side (--no-close), CLOSE_WAIT grows; the finding
# must appear on stderr before the observer is stopped. Healthy: the same load on a server that
# closes: no finding line at all, while the observer ticks (its lean hooks switch, a note only a
# tick decides, where the kernel has them).
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver

# agent NAME PORT: the observer as packaged (ARGS="... --interval 0"), on PORT
agent() {
	start "$1" "$LOADLENS_BIN/loadlens-observer" --port "$2" --interval 0 --json "$LL_TMP/$1.json"
	wait_for "$1" observing 60
}

# churn PORT SECONDS: new connections, one request each, 100 a second (its JSON:
# $LL_TMP/churn_PORT.json)
churn() {
	timeout 60 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$1" -c 2 --rate 100 -d "$2s" \
		--new-conn -q --json "$LL_TMP/churn_$1.json" >"$LL_TMP/churn_$1.out" 2>&1 ||
		{ cat "$LL_TMP/churn_$1.out"; fail "driver to port $1 exited"; }
}

free_ports sick healthy

refserver_up rs_sick "$sick" --proto tcp --no-close
agent obs_sick "$sick"
churn "$sick" 3
# said while it runs: the observer is still up here
wait_for obs_sick "^\[[0-9:]*\] CLOSE_WAIT: .* on port $sick" 10
kill -0 "$PID_obs_sick" || fail "the observer exited before it was stopped"
stop obs_sick rs_sick
jq -e '.findings[] | select(.kind == "close_wait_leak")' "$LL_TMP/obs_sick.json" >/dev/null ||
	fail "no close_wait_leak finding in the JSON"
echo "sick, said live: $(grep -m1 "CLOSE_WAIT:" "$LL_TMP/obs_sick.err" | cut -c1-120)"

refserver_up rs_healthy "$healthy" --proto tcp
agent obs_healthy "$healthy"
churn "$healthy" 6
sleep 1.5
stop obs_healthy rs_healthy
if grep "^\[[0-9:]*\] " "$LL_TMP/obs_healthy.err"; then
	fail "a healthy server was given a finding"
fi
[ "$(jq '.findings | length' "$LL_TMP/obs_healthy.json")" = 0 ] ||
	fail "findings in the JSON: $(jq -c '[.findings[].kind]' "$LL_TMP/obs_healthy.json")"
n=$(jget "$LL_TMP/obs_healthy.json" .accepted) d=$(jget "$LL_TMP/churn_$healthy.json" .connections)
[ "$n" = "$d" ] && [ "$d" -ge 500 ] || fail "healthy: $n connections accepted, the driver made $d"
grep "lean hooks" "$LL_TMP/obs_healthy.err" || echo "note: no lean hooks on this kernel"
pass "--interval 0: findings said while the observer runs; a healthy server stays silent"
