#!/bin/bash
# --cgroup: the observer counts the accepts and requests of the processes in one cgroup v2, and
# only theirs.
# Two reference servers, one inside a cgroup the test creates and one outside; the observer,
# given the cgroup and no port, must count exactly the inside server's connections.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver
cgroup_create "loadlens-test-$$"
port_in=$(free_port)
port_out=$(free_port)
[ "$port_in" != "$port_out" ] || port_out=$(free_port)

# the inside server joins the cgroup before it execs, so all of its threads are in it
refserver_up --cgroup "$LL_CGROUP" inside "$port_in" --proto tcp
refserver_up outside "$port_out" --proto tcp
grep -qx "$PID_inside" "$LL_CGROUP/cgroup.procs" || fail "the inside server is not in $LL_CGROUP"

start observer "$LOADLENS_BIN/loadlens-observer" --cgroup "$LL_CGROUP" --interval 1s \
	--json "$LL_TMP/observer.json"
wait_for observer observing 60

new_conns drv_in "$port_in" 300
new_conns drv_out "$port_out" 200
stop observer inside outside

expect_json "the inside server's accepts" "$LL_TMP/inside.json" .connections_accepted 300
expect_json "the outside server's accepts" "$LL_TMP/outside.json" .connections_accepted 200
expect_json "the observer's accepted with --cgroup (the inside server's)" \
	"$LL_TMP/observer.json" .accepted 300
# request timing too: the inside server's own sockets only, under its own port
slots=$(jq -c '[.request_timing.slots[] | select(.requests > 0) | {port, proto, requests}]' \
	"$LL_TMP/observer.json")
resp=$(jget "$LL_TMP/inside.json" .responses)
echo "request timing: $slots; inside server answered $resp"
[ "$slots" = "[{\"port\":$port_in,\"proto\":\"tcp\",\"requests\":$resp}]" ] ||
	fail "--cgroup request timing: $slots, expected only tcp/$port_in with $resp requests"
pass "--cgroup: observer = inside server = 300, the outside server's 200 excluded"
