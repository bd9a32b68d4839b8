#!/bin/bash
# The kernel-side signals behind the observer's notes: each must count where its case
# happens and stay 0 where it does not.
#   multi_arrival_reads   a pipelining client (redis, several commands written one by one before
#                         any reply) versus one request in flight per connection (refserver)
#   udp_shared_sockets    memcached's 4 threads reading one UDP socket versus refserver's
#                         workers, one SO_REUSEPORT socket each; memcached's datagrams are each
#                         timed by the thread that read it: requests = its replies, exactly
#   netns note            a --pid target outside the --netns namespace versus one inside
#   targets_full          --children past a "targets" map of 4 (LOADLENS_OBSERVER_MAX_TARGETS)
#                         versus one of 16
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer loadlens-driver
command -v jq >/dev/null || skip "needs jq"
PY=/usr/bin/python3
slot() { # FILE PROTO FIELD: the field of the (only) slot of that protocol with requests or reads
	jget "$1" "[.request_timing.slots[] | select(.proto == \"$2\")][0].$3"
}

# --- multi-arrival reads: pipelining ---
command -v redis-server >/dev/null || skip "needs redis-server (PACKAGES in tools/loadlens)"
pr=$(free_port)
start redis redis-server --port "$pr" --bind 127.0.0.1 --save '' --appendonly no
for _ in $(seq 50); do redis-cli -p "$pr" ping >/dev/null 2>&1 && break; sleep 0.1; done
cat >"$LL_TMP/pipe.py" <<'PYEOF'
import socket, sys
port, batches, depth = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
s = socket.create_connection(("127.0.0.1", port))
s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
cmd = b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n"
for b in range(batches):
    for i in range(depth):
        s.sendall(cmd)  # one write per command, the next before any reply
    got = 0
    while got < 5 * depth:  # "+OK\r\n" each
        got += len(s.recv(65536))
PYEOF
start_observer opipe "$pr"
timeout 60 $PY "$LL_TMP/pipe.py" "$pr" 300 16 || fail "pipelining client exited $?"
sleep 0.3
stop opipe
m=$(slot "$LL_TMP/opipe.json" tcp multi_arrival_reads)
r=$(slot "$LL_TMP/opipe.json" tcp requests)
echo "pipelined redis: 4800 commands, $r requests (reads answered), $m reads of several writes"
[ "$m" -gt 0 ] || fail "no multi-arrival read counted for a pipelining client"
[ "$r" -lt 4800 ] || fail "$r requests for 4800 pipelined commands: expected fewer (reads)"

# healthy: one request in flight per connection (8 connections, 256-byte requests)
pk=$(free_port)
refserver_up --pin rs "$pk" --proto tcp
start_observer ok1 "$pk"
load_cpu "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$pk" -c 8 -n 4000 --size 256 -q \
	>"$LL_TMP/d1.out" 2>&1 || fail "driver exited $?"
sleep 0.3
stop ok1
stop rs
m=$(slot "$LL_TMP/ok1.json" tcp multi_arrival_reads)
r=$(slot "$LL_TMP/ok1.json" tcp requests)
[ "$r" = 4000 ] || fail "refserver keep-alive: $r requests counted, 4000 sent"
[ "$m" = 0 ] || fail "refserver keep-alive, one request in flight: $m multi-arrival reads"
pass "multi-arrival reads: $(slot "$LL_TMP/opipe.json" tcp multi_arrival_reads) with pipelining, 0 without"

# --- a UDP socket read by several threads ---
command -v memcached >/dev/null || skip "needs memcached (PACKAGES in tools/loadlens)"
pm=$(free_port)
start mc memcached -U "$pm" -p 0 -l 127.0.0.1 -t 4 -u root
sleep 0.5
cat >"$LL_TMP/mcudp.py" <<'PYEOF'
import socket, struct, sys
port, n, depth = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.settimeout(2)
got = sent = 0
while sent < n:
    for i in range(depth):  # several in flight: the threads race for them
        s.sendto(struct.pack(">HHHH", sent & 0xffff, 0, 1, 0) + b"get k\r\n", ("127.0.0.1", port))
        sent += 1
    for i in range(depth):
        try:
            s.recv(2048)
            got += 1
        except socket.timeout:
            break
print(got)
PYEOF
start_observer omc "$pm"
timeout 60 $PY "$LL_TMP/mcudp.py" "$pm" 4000 16 >"$LL_TMP/mc.out" || fail "memcached client exited $?"
sleep 0.3
stop omc
sh=$(slot "$LL_TMP/omc.json" udp udp_shared_sockets)
sw=$(slot "$LL_TMP/omc.json" udp udp_reader_switches)
got=$(cat "$LL_TMP/mc.out")
req=$(slot "$LL_TMP/omc.json" udp requests)
unanswered=$(slot "$LL_TMP/omc.json" udp unanswered)
unsolicited_writes=$(slot "$LL_TMP/omc.json" udp unsolicited_writes)
udp_unpaired=$(slot "$LL_TMP/omc.json" udp udp_unpaired)
echo "memcached -t 4 over UDP: $got replies, observer $req requests; $sh shared sockets," \
	"$sw reader switches; unanswered $unanswered, unsolicited $unsolicited_writes," \
	"unpaired $udp_unpaired"
[ "$sh" = 1 ] || fail "memcached's UDP socket: $sh shared sockets counted, 1 expected"
[ "$sw" -gt 0 ] || fail "no reader switch counted on memcached's UDP socket"
[ "$got" = 4000 ] || fail "the client got $got of its 4,000 replies"
[ "$req" = "$got" ] || fail "memcached -t 4 over UDP: observer $req requests, $got replies"
[ "$unanswered$unsolicited_writes$udp_unpaired" = 000 ] ||
	fail "memcached -t 4: unanswered $unanswered, unsolicited $unsolicited_writes, unpaired $udp_unpaired"

pu=$(free_port)
refserver_up --pin rsu "$pu" --proto udp --workers 2
start_observer ok2 "$pu"
load_cpu "$LOADLENS_BIN/loadlens-driver" "udp://127.0.0.1:$pu" -c 8 -n 4000 -q \
	>"$LL_TMP/d2.out" 2>&1 || fail "udp driver exited $?"
sleep 0.3
stop ok2
stop rsu
[ "$(slot "$LL_TMP/ok2.json" udp udp_shared_sockets)" = 0 ] ||
	fail "refserver's per-worker UDP sockets counted as shared"
[ "$(slot "$LL_TMP/ok2.json" udp udp_reader_switches)" = 0 ] ||
	fail "refserver's per-worker UDP sockets: reader switches counted"
pass "shared UDP socket: memcached $sh socket ($sw switches), refserver 0"

# --- a target outside the watched namespace ---
ns=lltest-sig-$$
netns_create "$ns"
po=$(free_port)
refserver_up --pin rso "$po" --proto tcp
start oout "$LOADLENS_BIN/loadlens-observer" --pid "$PID_rso" --netns "/run/netns/$ns" \
	--interval 1s --duration 2s
wait_for oout observing 60
grep -q "note: netns: .*(pid $PID_rso) lives in net:" "$LL_TMP/oout.err" ||
	fail "no netns note for a target outside --netns: $(cat "$LL_TMP/oout.err")"
start oin "$LOADLENS_BIN/loadlens-observer" --pid "$PID_rso" --interval 1s --duration 2s
wait_for oin observing 60
! grep -q "note: netns:" "$LL_TMP/oin.err" || fail "a netns note for a target inside its namespace"
stop oout
stop oin
stop rso
pass "netns note: for a target outside --netns, not for one inside"

# --- the targets map full (--children) ---
cat >"$LL_TMP/forker.py" <<'PYEOF'
import os, sys, time
go, n = sys.argv[1], int(sys.argv[2])
while not os.path.exists(go):
    time.sleep(0.05)
kids = []
for i in range(n):
    pid = os.fork()
    if pid == 0:
        time.sleep(3)
        os._exit(0)
    kids.append(pid)
    time.sleep(0.02)
print(" ".join(map(str, kids)), flush=True)
for k in kids:
    os.waitpid(k, 0)
PYEOF
forks() { # NAME MAX: a parent forking 8 children under an observer whose map holds MAX
	local name=$1 max=$2
	start "f_$name" $PY "$LL_TMP/forker.py" "$LL_TMP/go_$name" 8
	LOADLENS_OBSERVER_MAX_TARGETS=$max start "o_$name" "$LOADLENS_BIN/loadlens-observer" \
		--pid "$(eval echo "\$PID_f_$name")" --children --no-requests --interval 1s \
		--json "$LL_TMP/o_$name.json"
	wait_for "o_$name" observing 60
	touch "$LL_TMP/go_$name"
	for _ in $(seq 100); do [ -s "$LL_TMP/f_$name.out" ] && break; sleep 0.1; done
	sleep 0.3
	stop "o_$name"
}
forks small 4
forks big 16
n=$(jget "$LL_TMP/o_small.json" .forensics.targets_full.count)
first=$(jget "$LL_TMP/o_small.json" .forensics.targets_full.first_pid)
fourth=$(awk '{ print $4 }' "$LL_TMP/f_small.out")
echo "targets map of 4: $n children left out, the first pid $first (the 4th child: $fourth)"
[ "$n" = 5 ] || fail "a map of 4 (the parent and 3 children): $n left out, 5 expected"
[ "$first" = "$fourth" ] || fail "first left out is pid $first, the 4th child is $fourth"
[ "$(jget "$LL_TMP/o_big.json" .forensics.targets_full.count)" = 0 ] ||
	fail "a map of 16 counted children left out"
pass "targets map full: 5 of 8 children counted and the first named; 0 with room"
