#!/bin/bash
# loadlens run: the observer and the driver per load level, joined, against the
# reference server with a known service time and against nginx on a loopback port.
#  - both sides counted the same requests (exactly);
#  - the driver ran without root (as the sudo user, else nobody);
#  - the split adds up: median residence + remainder = median round trip within 5%, where the
#    remainder is the mean round trip minus the mean residence (an independent estimate: it holds
#    where the round trip is the residence shifted by the network, i.e. no queueing at the
#    client) for the refserver, and the printed percentile split matches the raw driver JSON;
#  - the service time the observer measured is the refserver's own, within 5%;
#  - gRPC with error statuses: counts match on answers, grpc-status counts equal the observer's;
#  - nothing listening: run and sweep exit 2 and say why (terminal, JSON, report).
source "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-driver loadlens-refserver
LL="$LOADLENS_SRC/tools/loadlens"
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"

# check_levels FILE: the checks every joined level must pass
check_levels() {
	local f=$1 n i drv
	n=$(jget "$f" '.levels | length')
	[ "$n" -ge 1 ] || fail "$f has no levels"
	for i in $(seq 0 $((n - 1))); do
		[ "$(jget "$f" ".levels[$i].counts_match")" = true ] ||
			fail "level $i: observer saw $(jq ".levels[$i].server.requests" "$f")," \
				"driver $(jq ".levels[$i].driver.requests" "$f")"
		drv=$(jget "$f" ".levels[$i].files.driver")
		# the printed split is the raw files' figures: RTT p50 from the driver JSON itself
		check_within "level $i: residence p50 + remainder p50 vs the driver's RTT p50" \
			"$(jq ".levels[$i].split.p50 | .residence + .remainder" "$f")" \
			"$(jget "$drv" .latency_uncorrected.p50)" 5
		# the stacked means add up to the mean round trip
		check_within "level $i: stacked means vs mean RTT" \
			"$(jq ".levels[$i].stack_mean_ns | add" "$f")" \
			"$(jget "$f" ".levels[$i].driver.rtt.mean")" 1
		[ "$(jq ".levels[$i].split.p50.remainder >= 0" "$f")" = true ] ||
			fail "level $i: residence p50 above the round trip p50"
		[ "$(stat -c %u "$drv")" != 0 ] || fail "the driver ran as root (it wrote $drv as root)"
	done
	[ "$(jget "$f" .driver_user)" != root ] || fail "driver_user is root"
}

# 1. the reference server: 2 workers, 5 ms of service per request (sleeping), c <= workers (5 ms:
#    the client's own delays on a busy machine, a few hundred us, stay inside 5%)
P=$(free_port)
refserver_up rs "$P" --proto http --workers 2 --service-time 5ms --service-mode sleep
rc=0
"$LL" run "http://127.0.0.1:$P/" -c 1,2 -d 2s --out "$LL_TMP/run-rs" --json "$LL_TMP/rs-run.json" \
	>"$LL_TMP/run-rs.out" 2>"$LL_TMP/run-rs.err" || rc=$?
[ $rc = 0 ] ||
	{ cat "$LL_TMP/run-rs.out" "$LL_TMP/run-rs.err"; fail "loadlens run (refserver) exited $rc"; }
cat "$LL_TMP/run-rs.out"
stop rs
F=$LL_TMP/rs-run.json
check_levels "$F"
srv_p50=$(jget "$LL_TMP/rs.json" .service_time.p50)
for i in 0 1; do
	check_within "level $i: observer service p50 vs the refserver's own" \
		"$(jget "$F" ".levels[$i].server.service_time.p50")" "$srv_p50" 5
	check_within "level $i: median residence + mean remainder vs median RTT" \
		"$(jq ".levels[$i] | .split.p50.residence + .split.mean.remainder" "$F")" \
		"$(jget "$F" ".levels[$i].split.p50.rtt")" 5
done
grep -q "report: $LL_TMP/run-rs/report.html" "$LL_TMP/run-rs.out" || fail "no report path printed"
[ -s "$LL_TMP/run-rs/report.html" ] || fail "no report written"
grep -q '^p50 (client round trip' "$LL_TMP/run-rs.out" || fail "no table printed"
[ "$(jq .failed "$F")" = null ] && ! grep -q "no request succeeded" "$LL_TMP/run-rs.out" ||
	fail "a healthy run said it failed: $(jq -c .failed "$F")"

# 2. nginx on a loopback port (hello world: the remainder is most of a short round trip, so only
#    the exact checks apply)
command -v nginx >/dev/null || skip "nginx not installed (apt-get install nginx-light)"
NP=$(free_port)
SP=$(free_port)
nginx_up ngx "$SP" "server { listen 127.0.0.1:$NP; location / { return 200 \"hello\\n\"; } }"
rc=0
"$LL" run "http://127.0.0.1:$NP/" -c 1,4 -d 2s --out "$LL_TMP/run-ngx" \
	--json "$LL_TMP/ngx-run.json" >"$LL_TMP/run-ngx.out" 2>"$LL_TMP/run-ngx.err" || rc=$?
[ $rc = 0 ] ||
	{ cat "$LL_TMP/run-ngx.out" "$LL_TMP/run-ngx.err"; fail "loadlens run (nginx) exited $rc"; }
cat "$LL_TMP/run-ngx.out"
check_levels "$LL_TMP/ngx-run.json"

# 3. gRPC with every 10th call of a worker answered RESOURCE_EXHAUSTED: the failed calls were
#    served too (counts match on answers), and the driver's grpc-status counts are the
#    observer's, in the JSON and on the table's status line. The .proto sits in a folder only
#    root can open: the driver (run as another user) gets a copy it can read, said on stderr
GP=$(free_port)
refserver_up grs "$GP" --proto grpc --grpc-status RESOURCE_EXHAUSTED:10
mkdir -m 700 "$LL_TMP/private"
cp "$LOADLENS_SRC/tests/data/kv.proto" "$LL_TMP/private/"
rc=0
"$LL" run "grpc://127.0.0.1:$GP/kv.Store/Put" -c 2 -d 2s --out "$LL_TMP/run-grpc" \
	-- --proto-file "$LL_TMP/private/kv.proto" \
	>"$LL_TMP/run-grpc.out" 2>"$LL_TMP/run-grpc.err" || rc=$?
cat "$LL_TMP/run-grpc.out"
[ $rc = 0 ] || { cat "$LL_TMP/run-grpc.err"; fail "loadlens run (gRPC) exited $rc"; }
grep -q "^loadlens: --proto-file .*/private/kv.proto: copied where the driver's user (.*) can read it" \
	"$LL_TMP/run-grpc.err" || { cat "$LL_TMP/run-grpc.err"; fail "gRPC: no line for the copied .proto"; }
G=$LL_TMP/run-grpc/run.json
[ "$(jget "$G" '.levels[0].counts_match')" = true ] ||
	fail "gRPC: the server saw $(jq '.levels[0].server.requests' "$G"), the driver answered" \
		"$(jq '.levels[0].driver.answered' "$G")"
drv_st=$(jq -c '.levels[0].driver.statuses.grpc' "$G")
srv_st=$(jq -c '.levels[0].server.statuses.grpc' "$G")
echo "gRPC statuses: driver $drv_st, observer $srv_st"
[ "$(jq '.levels[0].driver.statuses.grpc.RESOURCE_EXHAUSTED > 0' "$G")" = true ] &&
	[ "$drv_st" = "$srv_st" ] || fail "gRPC: driver's statuses $drv_st, observer's $srv_st"
grep -q "^c=2: status 200 [0-9,]*; grpc-status OK [0-9,]*, RESOURCE_EXHAUSTED [0-9,]*; the server" \
	"$LL_TMP/run-grpc.out" || fail "gRPC: no status line in the table"
stop grs

# 4. nothing listens: run and sweep exit 2 and say why on the terminal (the driver's errors by
#    cause, a hint, the observer's no_listener note), in the JSON's "failed" and in the report
DEAD=$(free_port)
for cmd in run sweep; do
	rc=0
	args=(-c 1,2)
	[ $cmd = sweep ] && args=(--max-c 2)
	"$LL" $cmd "http://127.0.0.1:$DEAD/" "${args[@]}" -d 1s --out "$LL_TMP/dead-$cmd" \
		>"$LL_TMP/dead-$cmd.out" 2>"$LL_TMP/dead-$cmd.err" || rc=$?
	cat "$LL_TMP/dead-$cmd.out"
	[ $rc = 2 ] || { cat "$LL_TMP/dead-$cmd.err"; fail "$cmd with nothing listening exited $rc, not 2"; }
	grep -q "Traceback\|internal error" "$LL_TMP/dead-$cmd.out" "$LL_TMP/dead-$cmd.err" &&
		fail "$cmd with nothing listening: a traceback"
	grep -q "^no request succeeded at any level ([12] level(s)): [0-9,]* errors (ECONNREFUSED" \
		"$LL_TMP/dead-$cmd.out" || fail "$cmd: no failure line with the driver's errors"
	grep -q "observer \[no_listener\]: .*nothing listens on port $DEAD" "$LL_TMP/dead-$cmd.out" ||
		fail "$cmd: the observer's no_listener note not shown"
	J=$LL_TMP/dead-$cmd/$cmd.json
	[ "$(jq '.failed.errors.ECONNREFUSED > 0 and .failed.levels == (.levels | length)' "$J")" = true ] ||
		fail "$cmd: JSON failed is $(jq -c .failed "$J")"
	grep -q '<div class=failed><pre>no request succeeded' "$LL_TMP/dead-$cmd/report.html" ||
		fail "$cmd: the report does not say that nothing answered"
done

# 5. bad input: one line, exit 64
rc=0
"$LL" run "ftp://127.0.0.1:$NP/" -c 1 2>"$LL_TMP/bad.err" || rc=$?
[ "$rc" = 64 ] && [ "$(wc -l <"$LL_TMP/bad.err")" = 1 ] ||
	{ cat "$LL_TMP/bad.err"; fail "bad URL: exit $rc"; }
rc=0
"$LL" run "http://127.0.0.1:$NP/" -c 1,x 2>"$LL_TMP/bad.err" || rc=$?
[ "$rc" = 64 ] || { cat "$LL_TMP/bad.err"; fail "bad -c: exit $rc"; }
rc=0
"$LL" run "http://127.0.0.1:$NP/" --json /nonexistent/x.json 2>"$LL_TMP/bad.err" || rc=$?
[ "$rc" = 64 ] || { cat "$LL_TMP/bad.err"; fail "unwritable --json: exit $rc"; }
pass "loadlens run joins the driver and the observer per level (refserver and nginx)"
