#!/usr/bin/env bash
# Past one process's fd limit. Under RLIMIT_NOFILE 300 (hard), -c 600 runs in as many
# worker processes as it needs, opens all 600 and reports one merged result; with -p 1 the same
# run hits EMFILE and the driver says the hard limit is the wall; -p N with -n splits the requests
# exactly; --connect-rate spaces the connections; connections wait for -d when their next request
# falls past it.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"
command -v prlimit >/dev/null || skip "prlimit (util-linux) is not installed"

P=$(free_port)
refserver_up srv "$P" --proto http --workers 2
D=$LOADLENS_BIN/loadlens-driver

# 1. -c 600 under a 300-fd limit: 3 processes (one may hold about 300 - 16 - 64), 600 held for
#    the whole -d (one request each, then idle: --delay is past -d), one merged JSON.
t0=$(date +%s.%N)
prlimit --nofile=300:300 "$D" "http://127.0.0.1:$P/" -c 600 -d 2s --delay 1h \
	--json "$LL_TMP/auto.json" >"$LL_TMP/auto.out" 2>"$LL_TMP/auto.err" ||
	{ st=$?; cat "$LL_TMP/auto.out" "$LL_TMP/auto.err"; fail "auto: exit $st"; }
wall=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
J=$LL_TMP/auto.json
[ "$(jget "$J" .procs)" = 3 ] || { cat "$LL_TMP/auto.err"; fail "auto: $(jget "$J" .procs) processes, want 3"; }
[ "$(jget "$J" .connections)" = 600 ] || fail "auto: $(jget "$J" .connections) connections opened, want 600"
[ "$(jget "$J" .requests)" = 600 ] || fail "auto: $(jget "$J" .requests) requests, want 600 (one each)"
[ "$(jget "$J" .errors_total)" = 0 ] || fail "auto: errors $(jq -c .errors "$J")"
[ "$(jget "$J" .config.connections)" = 600 ] || fail "auto: config.connections is not the command's -c"
grep -q "running 3 worker processes, one merged result" "$LL_TMP/auto.err" ||
	fail "auto: no line saying why it runs 3 processes: $(cat "$LL_TMP/auto.err")"
grep -q "the wall is the hard RLIMIT_NOFILE (300)" "$LL_TMP/auto.err" ||
	fail "auto: the wall is not named: $(cat "$LL_TMP/auto.err")"
awk -v w="$wall" 'BEGIN { exit !(w >= 1.9) }' || fail "auto: ended after ${wall}s: the idle connections were not held until -d 2s"
grep -q "in 3 worker processes" "$LL_TMP/auto.out" || fail "auto: the summary does not say 3 worker processes"
pass "auto: 600 connections in 3 processes under a 300-fd limit, held ${wall}s, one result"

# 2. -p 1: the same run is held to one process: EMFILE, and the wall and the way past it named.
prlimit --nofile=300:300 "$D" "http://127.0.0.1:$P/" -c 600 -d 1s -p 1 -q \
	--json "$LL_TMP/one.json" >"$LL_TMP/one.out" 2>"$LL_TMP/one.err" || true
[ "$(jget "$LL_TMP/one.json" .errors.EMFILE)" -gt 0 ] || fail "-p 1: no EMFILE counted"
grep -q "past the hard RLIMIT_NOFILE (300).*run several processes with -p.*(-p 3 fits)" "$LL_TMP/one.err" ||
	fail "-p 1: the warning does not name the wall and -p: $(cat "$LL_TMP/one.err")"
grep -q "leave -p out" "$LL_TMP/one.out" || fail "-p 1: the EMFILE hint does not point at -p"
pass "-p 1: EMFILE $(jget "$LL_TMP/one.json" .errors.EMFILE), the hard limit named, -p 3 suggested"

# 3. -p 4 -n 10001: the requests split exactly over the processes (the first ones one more).
"$D" "http://127.0.0.1:$P/" -c 10 -p 4 -n 10001 -q --json "$LL_TMP/n.json" >"$LL_TMP/n.out" 2>&1 ||
	{ st=$?; cat "$LL_TMP/n.out"; fail "-n: exit $st"; }
[ "$(jget "$LL_TMP/n.json" .requests)" = 10001 ] || fail "-n: $(jget "$LL_TMP/n.json" .requests) requests, want 10001"
[ "$(jget "$LL_TMP/n.json" .procs)" = 4 ] || fail "-n: not 4 processes"
pass "-p 4 -n 10001: 10001 requests"

# 4. --connect-rate 200 with 100 connections: about 40 open at 0.2 s, all 100 by 0.6 s (without
#    it, all 100 at once).
"$D" "http://127.0.0.1:$P/" -c 100 -p 1 -d 1500ms --delay 1h --connect-rate 200 --interval 100ms \
	--json "$LL_TMP/cr.json" >"$LL_TMP/cr.out" 2>"$LL_TMP/cr.err" || { st=$?; cat "$LL_TMP/cr.err"; fail "connect-rate: exit $st"; }
[ "$(jget "$LL_TMP/cr.json" .connections)" = 100 ] || fail "connect-rate: $(jget "$LL_TMP/cr.json" .connections) connections"
at02=$(sed -n 's/^\[ *0\.2s\].* \([0-9]*\) connections.*/\1/p' "$LL_TMP/cr.err")
at08=$(sed -n 's/^\[ *0\.8s\].* \([0-9]*\) connections.*/\1/p' "$LL_TMP/cr.err")
[ -n "$at02" ] && [ "$at02" -ge 20 ] && [ "$at02" -le 70 ] ||
	fail "connect-rate: ${at02:-no} connections at 0.2 s, want about 40: $(head -4 "$LL_TMP/cr.err")"
[ "$at08" = 100 ] || fail "connect-rate: $at08 connections at 0.8 s, want 100"
pass "--connect-rate 200: $at02 connections at 0.2 s, $at08 at 0.8 s"
stop srv
