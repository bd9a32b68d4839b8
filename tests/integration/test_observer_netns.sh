#!/bin/bash
# Network namespaces: the same port served on the host and inside a netns
# the test creates, both loaded at once. The host observer (--port P) must count only the host
# server's requests and accepts; an observer given --netns (a path, then a pid) must count only
# the namespace's, requests and accepts alike, and name the namespace in its banner. A --netns
# that is not a network namespace is a usage error (exit 64).
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver
command -v jq >/dev/null || skip "needs jq"
ns=lltest-ns-$$
netns_create "$ns"
p=$(free_port)

refserver_up host "$p" --proto tcp
refserver_up --netns "$ns" inner "$p" --proto tcp
inner_pid=$(pgrep -n -f "refserver --listen 127.0.0.1:$p --json $LL_TMP/inner.json")
[ -n "$inner_pid" ] || fail "cannot find the namespace's server"
inum=$(stat -L -c %i "/run/netns/$ns")

start_observer ohost "$p"
start_observer onspath "$p" --netns "/run/netns/$ns"
start_observer onspid "$p" --netns "$inner_pid"
grep -q "in netns net:\[$inum\] of --netns /run/netns/$ns" "$LL_TMP/onspath.err" ||
	fail "the --netns observer's banner does not name net:[$inum]: $(grep observing "$LL_TMP/onspath.err")"

timeout 60 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$p" -c 4 -n 3000 -q \
	--reconnect-every 30 >"$LL_TMP/dh.out" 2>&1 &
dh=$!
timeout 60 ip netns exec "$ns" "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$p" -c 4 \
	-n 2000 -q --reconnect-every 20 >"$LL_TMP/dn.out" 2>&1 || fail "driver in $ns exited $?"
wait $dh || fail "driver on the host exited $?"
sleep 0.3
stop ohost onspath onspid host inner

hr=$(jget "$LL_TMP/host.json" .responses)
ha=$(jget "$LL_TMP/host.json" .connections_accepted)
nr=$(jget "$LL_TMP/inner.json" .responses)
na=$(jget "$LL_TMP/inner.json" .connections_accepted)
echo "host server: $hr responses, $ha accepted; namespace server: $nr responses, $na accepted"
[ "$hr" = 3000 ] && [ "$nr" = 2000 ] || fail "servers answered $hr and $nr (3000, 2000 expected)"
slot='.request_timing.slots[] | select(.proto == "tcp") | .requests'
check() {
	expect_json "$1's requests (its namespace's server answered $2)" "$LL_TMP/$1.json" "$slot" "$2"
	expect_json "$1's accepted (its namespace's server accepted $3)" "$LL_TMP/$1.json" .accepted "$3"
}
check ohost "$hr" "$ha"
check onspath "$nr" "$na"
check onspid "$nr" "$na"

rc=0
"$LOADLENS_BIN/loadlens-observer" --port "$p" --netns /proc/self/ns/uts --duration 1s \
	>"$LL_TMP/bad.out" 2>"$LL_TMP/bad.err" || rc=$?
[ "$rc" = 64 ] || fail "--netns on a uts namespace exited $rc, 64 expected"
[ "$(wc -l <"$LL_TMP/bad.err")" = 1 ] || fail "more than one line for a bad --netns: $(cat "$LL_TMP/bad.err")"
pass "each observer counted only its namespace: host $hr/$ha, --netns $nr/$na"
