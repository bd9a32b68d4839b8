#!/bin/bash
# --pid without --port times only the target's own sockets. A target server
# and two other servers (TCP and UDP, other processes) serve at the same time on loopback; the
# observer, given the target's pid and no port, must count exactly the target's requests, under
# the target's own port (not tcp/0), and none of the others'. Then --pid with --port on a port
# the target shares with another process (SO_REUSEPORT): only the target's requests, and only
# the connections the target accepted, count.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver
command -v jq >/dev/null || skip "needs jq"
pt=$(free_port)
po=$(free_port)
pu=$(free_port)

refserver_up target "$pt" --proto tcp
refserver_up other "$po" --proto tcp
refserver_up otheru "$pu" --proto udp

start observer "$LOADLENS_BIN/loadlens-observer" --pid "$PID_target" --interval 1s \
	--json "$LL_TMP/obs.json"
wait_for observer observing 60
grep -q "in netns net:\[" "$LL_TMP/observer.err" || fail "the banner does not name the netns"

# all three at once, bounded in count and time
timeout 60 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$pt" -c 4 -n 3000 -q \
	>"$LL_TMP/d1.out" 2>&1 &
d1=$!
timeout 60 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$po" -c 4 -n 4000 -q \
	>"$LL_TMP/d2.out" 2>&1 &
d2=$!
timeout 60 "$LOADLENS_BIN/loadlens-driver" "udp://127.0.0.1:$pu" -c 4 -n 5000 -q \
	>"$LL_TMP/d3.out" 2>&1 &
d3=$!
wait $d1 || fail "driver (target) exited $?"
wait $d2 || fail "driver (other tcp) exited $?"
wait $d3
sleep 0.3
stop observer
stop target
stop other
stop otheru

obs=$LL_TMP/obs.json
srv=$(jget "$LL_TMP/target.json" .responses)
oth=$(jget "$LL_TMP/other.json" .responses)
echo "target answered $srv (port $pt), other tcp $oth (port $po), other udp $(jget \
	"$LL_TMP/otheru.json" .responses) (port $pu)"
jq -c '.request_timing.slots[] | {port, proto, requests}' "$obs"
[ "$srv" = 3000 ] || fail "the target answered $srv of 3000"
n=$(jq "[.request_timing.slots[] | select(.requests > 0)] | length" "$obs")
[ "$n" = 1 ] || fail "$n slots with requests, only the target's tcp/$pt expected"
got=$(jget "$obs" ".request_timing.slots[] | select(.proto == \"tcp\" and .port == $pt) | .requests")
[ "$got" = "$srv" ] || fail "observer counted $got requests on tcp/$pt, the target answered $srv"
[ "$(jget "$obs" .request_timing.scope)" = "the targets' own sockets" ] ||
	fail "scope is '$(jget "$obs" .request_timing.scope)'"
f=$(jget "$obs" .request_timing.foreign_sockets)
# at least the other TCP server's 4 connections and the UDP server's socket (the drivers' ends too)
[ "$f" -ge 5 ] || fail "only $f foreign sockets seen; the other processes' sockets were not judged"
pass "--pid without --port: $got requests on tcp/$pt = the target's own; $f sockets of others left out"

# echo_server NAME PORT [UPSTREAM]: echo_framed.py on PORT (the refserver's framing, SO_REUSEPORT;
# with UPSTREAM also a client of 127.0.0.1:UPSTREAM)
echo_server() {
	start "$1" /usr/bin/python3 "$(dirname "$0")/echo_framed.py" "${@:2}"
	wait_for "$1" listening
}

# --pid without --port, a target that is also a client (a proxy, an app with a database): its
# connections to another server (ephemeral local ports) are not requests it serves
pb=$(free_port)
pup=$(free_port)
refserver_up up "$pup" --proto tcp
echo_server both "$pb" "$pup"
start obs3 "$LOADLENS_BIN/loadlens-observer" --pid "$PID_both" --interval 1s \
	--json "$LL_TMP/obs3.json"
wait_for obs3 observing 60
timeout 60 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$pb" -c 2 -n 1000 -q \
	>"$LL_TMP/d5.out" 2>&1 || fail "driver (target and client) exited $?"
for _ in $(seq 100); do
	[ "$(jq -r .responses "$LL_TMP/up.json" 2>/dev/null)" = 300 ] && break
	# the upstream server writes its JSON at exit only: wait for the 300 requests by count
	ss -Htn state established "( dport = :$pup )" | grep -q . || break
	sleep 0.1
done
sleep 0.3
stop obs3
stop both
stop up
a=$(awk '/^responses/ { print $2 }' "$LL_TMP/both.out")
u=$(jget "$LL_TMP/up.json" .responses)
got=$(jget "$LL_TMP/obs3.json" ".request_timing.slots[] | select(.proto == \"tcp\" and .port == $pb) | .requests")
n=$(jq "[.request_timing.slots[] | select(.requests > 0)] | length" "$LL_TMP/obs3.json")
cl=$(jget "$LL_TMP/obs3.json" .request_timing.client_sockets)
echo "target served $a on $pb and made $u requests to $pup; observer: $got on tcp/$pb, $n slots, $cl client sockets"
[ "$u" = 300 ] || fail "the target's client made $u of 300 requests"
[ "$got" = "$a" ] && [ "$a" = 1000 ] || fail "observer counted $got, the target served $a (1000 sent)"
[ "$n" = 1 ] || fail "$n slots with requests: the target's client connection was timed as served"
[ "$cl" -ge 1 ] || fail "the target's client connection was not counted as one"
pass "--pid without --port: a target's own client connections are not its requests"

# --pid with --port: two processes share the port (SO_REUSEPORT); only the target's requests
ps=$(free_port)
refserver_up t2 "$ps" --proto tcp --workers 2
# the other process: echo_server on the same port (SO_REUSEPORT)
echo_server o2 "$ps"
start obs2 "$LOADLENS_BIN/loadlens-observer" --pid "$PID_t2" --port "$ps" --interval 1s \
	--json "$LL_TMP/obs2.json"
wait_for obs2 observing 60
timeout 60 "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$ps" -c 16 -n 4000 -q \
	--reconnect-every 50 >"$LL_TMP/d4.out" 2>&1 || fail "driver (shared port) exited $?"
sleep 0.3
stop obs2
stop t2
stop o2
a=$(jget "$LL_TMP/t2.json" .responses)
b=$(awk '/^responses/ { print $2 }' "$LL_TMP/o2.out")
got=$(jget "$LL_TMP/obs2.json" ".request_timing.slots[] | select(.proto == \"tcp\") | .requests")
echo "shared port $ps: target answered $a, the other process $b; observer $got"
[ "$a" -gt 0 ] && [ "$b" -gt 0 ] || fail "the kernel did not spread connections over both ($a, $b)"
[ "$got" = "$a" ] || fail "--pid --port: observer counted $got, the target answered $a (other $b)"
pass "--pid with --port: $got requests = the target's, the other process's $b left out"
# accepted: the target's accept()s only, not the handshakes on the shared port
ta=$(jget "$LL_TMP/t2.json" .connections_accepted)
oa=$(awk '/^accepted/ { print $2 }' "$LL_TMP/o2.out")
ga=$(jget "$LL_TMP/obs2.json" .accepted)
hs=$(jget "$LL_TMP/obs2.json" .handshakes)
echo "shared port $ps: target accepted $ta, the other process $oa; observer accepted $ga" \
	"(handshakes on the port $hs)"
[ "$ta" -gt 0 ] && [ "$oa" -gt 0 ] || fail "the kernel did not spread connections ($ta, $oa)"
[ "$ga" = "$ta" ] || fail "--pid --port: observer accepted $ga, the target accepted $ta (other $oa)"
pass "--pid with --port: accepted $ga = the target's, the other process's $oa left out"
