#!/bin/bash
# Request timing's TCP table frees every socket's entry once the socket is gone, however the
# connection ends (close_patterns.py: the server's close after its response, the client's first,
# a lingering close after shutdown(SHUT_WR), close() in FIN_WAIT2, shutdown(SHUT_RDWR), close()
# with bytes unread, the client's reset). An entry is freed by the application's close() where
# that shut both sides (in the closing task), else at CLOSE; one left behind would be found by a
# later socket at the same address. Two observers on one server: every hook (--lean off) and the
# lean hooks (--lean on). Sick side first: 20 connections kept open hold 20 entries in each table.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer
command -v bpftool >/dev/null || skip "bpftool is not installed"
command -v jq >/dev/null || skip "needs jq"

# held_entries PID: entries of the observer PID's tcp_slots map that a socket holds
held_entries() { observer_map_count "$1" tcp_slots '.sk != 0'; }

port=$(free_port)
start srv /usr/bin/python3 "$(dirname "$0")/close_patterns.py" server "$port"
wait_for srv listening
start_observer full "$port" --lean off
start_observer lean "$port" --lean on
hold=20
n=40
start cli /usr/bin/python3 "$(dirname "$0")/close_patterns.py" client "$port" "$n" "$hold" \
	"$LL_TMP/release"
wait_for cli held 60
for o in full lean; do
	h=$(held_entries "$(eval echo "\$PID_$o")")
	echo "$o: $h entries held with $hold connections open"
	[ "$h" -ge "$hold" ] || fail "$o: $h entries held while $hold connections are open"
done
wait_for cli ran 120
touch "$LL_TMP/release"
wait_for cli done 60
sleep 0.5
total=$((hold + 7 * n))
for o in full lean; do
	h=$(held_entries "$(eval echo "\$PID_$o")")
	echo "$o: $h entries held after $total connections ended"
	[ "$h" = 0 ] || fail "$o: $h entries still held after every connection ended"
done
stop full
stop lean
for o in full lean; do
	got=$(jget "$LL_TMP/$o.json" '.request_timing.slots[] | select(.proto == "tcp") | .requests')
	echo "$o: $got requests counted, $total answered"
	[ "$got" = "$total" ] || fail "$o: $got requests counted, the server answered $total"
	stale=$(jget "$LL_TMP/$o.json" .request_timing.tcp_stale_entries)
	[ "$stale" = 0 ] || fail "$o: $stale entries taken over from sockets gone without freeing them"
done
pass "every hook and the lean hooks: $hold entries held while open, 0 after $total connections ended in 7 ways; requests $total = answered"
