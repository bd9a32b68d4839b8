#!/usr/bin/env bash
# One wait per reply. The worker's own timers (sweep, interval line, end) run on the waker's
# timerfd, so its libuv loop blocks in a single epoll_wait with no timeout; before, each reply took
# two (a wait of the driver's own, then libuv's non-blocking dispatch), which cost a same-CPU
# round trip about 0.4 us. With one slot in the closed loop (-c 1), the thread waits in the
# socket's own blocking recv() instead (scheduling/pingpong.h: epoll_wait then recv cost ~7% of a
# same-CPU round trip more than recv alone): one recvfrom per reply, and no epoll_wait but a few;
# a tcp request goes by the socket's own sendto (libuv's write() takes the file layer).
# Counted with strace over a ping-pong, udp and tcp, against the refserver; the counts of the run
# stay exact.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v strace >/dev/null || skip "strace is not installed"
command -v jq >/dev/null || skip "jq is not installed"

# waits PROTO NAME SLOTS: the driver under strace, 3000 requests over SLOTS slots of one thread;
# sets EW (epoll_wait calls), RV (recvfrom calls: the blocking reads; libuv reads with recvmsg
# and read) and SN (sendto and sendmsg calls: for tcp the held socket's sends, one buffer or
# several; libuv sends tcp with write and writev), all threads
waits() {
	local proto=$1 name=$2 slots=$3 n
	strace -f -c -e trace=epoll_wait,epoll_pwait,epoll_pwait2,recvfrom,sendto,sendmsg -o "$LL_TMP/$name.st" \
		"$LOADLENS_BIN/loadlens-driver" "$proto://127.0.0.1:$P" -c "$slots" -n 3000 \
		--timeout 2s -q --json "$LL_TMP/$name.json" >"$LL_TMP/$name.out" 2>&1 ||
		fail "$name: driver exited $?: $(cat "$LL_TMP/$name.out")"
	n=$(jget "$LL_TMP/$name.json" .requests)
	[ "$n" = 3000 ] || fail "$name: $n requests of 3000"
	[ "$(jget "$LL_TMP/$name.json" .errors_total)" = 0 ] || fail "$name: errors"
	# strace -c: a row per syscall, calls in column 4 (column 5 is the errors, when any)
	EW=$(awk '$NF ~ /^epoll_/ { n += $4 } END { print n + 0 }' "$LL_TMP/$name.st")
	RV=$(awk '$NF == "recvfrom" { print $4 }' "$LL_TMP/$name.st")
	RV=${RV:-0}
	SN=$(awk '$NF == "sendto" || $NF == "sendmsg" { n += $4 } END { print n + 0 }' "$LL_TMP/$name.st")
	echo "$name: $EW epoll_wait, $RV recvfrom and $SN sendto/sendmsg calls for $n requests (all threads)"
}

for proto in udp tcp; do
	P=$(free_port)
	refserver_up --pin "rs$proto" "$P" --proto "$proto"
	# two slots in one thread: the loop waits, one epoll_wait per reply
	waits "$proto" "$proto-c2" 2
	[ "$EW" -ge 1500 ] || fail "$proto -c 2: only $EW waits for 3000 replies: strace missed some"
	[ "$EW" -le 3400 ] || fail "$proto -c 2: $EW epoll_wait calls for 3000 replies: more than one per reply"
	[ "$RV" -le 10 ] || fail "$proto -c 2: $RV blocking reads with two slots"
	[ "$proto" = udp ] || [ "$SN" -le 10 ] || fail "$proto -c 2: $SN sends of a held socket with two slots"
	# one slot: the socket's own blocking read, one per reply; the loop only at the start, the
	# connect, the sweep, the end and on the main thread: a few dozen
	waits "$proto" "$proto-c1" 1
	[ "$RV" -ge 2700 ] || fail "$proto -c 1: $RV blocking reads for 3000 replies"
	[ "$RV" -le 3400 ] || fail "$proto -c 1: $RV blocking reads for 3000 replies: more than one per reply"
	[ "$EW" -le 100 ] || fail "$proto -c 1: $EW epoll_wait calls for 3000 replies: the loop still waits"
	# (udp: libuv sends with sendmsg too, so only tcp tells the two apart)
	if [ "$proto" = tcp ]; then
		[ "$SN" -ge 2700 ] || fail "tcp -c 1: $SN sendto/sendmsg for 3000 requests: sent through libuv"
		[ "$SN" -le 3000 ] || fail "tcp -c 1: $SN sendto/sendmsg for 3000 requests: more than one each"
	fi
	stop "rs$proto"
done
pass "one wait per reply, udp and tcp: epoll_wait with two slots, the socket's recv() and send() with one"

# Open loop: one sleep per paced request, udp, tcp and http. The waker reads the replies already
# in after each send (and, for streams, at each wake-up), timed by the kernel's receive stamp, so
# a reply does not wake the thread a second time; before, each paced request slept twice (its
# send, its reply): 1.98 sleeps per request at 2k/s (udp).
for proto in udp tcp http; do
	P=$(free_port)
	refserver_up --pin "rs$proto" "$P" --proto "$proto"
	driver "paced$proto" "$proto://127.0.0.1:$P/" -c 8 --rate 2k -n 4000 --timeout 2s -q
	stop "rs$proto"
	j=$LL_TMP/paced$proto.json
	n=$(jget "$j" .requests)
	sl=$(jget "$j" .driver.sleeps)
	[ "$n" = 4000 ] || fail "paced $proto: $n requests of 4000"
	echo "paced $proto at 2k/s: $sl sleeps of the worker for $n requests"
	[ "$sl" -ge $((n / 2)) ] || fail "paced $proto: $sl sleeps for $n paced requests: not counted?"
	[ "$sl" -le $((n + n / 4)) ] ||
		fail "paced $proto: $sl sleeps for $n requests: replies still wake the thread"
	pass "open loop, $proto: $sl sleeps for $n paced requests (one per send, none per reply)"
done

# A reply read at a wake-up is timed by the kernel's receive stamp, turned to the run's clock:
# against a server that sleeps 2 ms per request, no answer may take less than 2 ms from its send
# (a stamp on the wrong clock or offset would), and the median stays near it, not at the time of
# the read (the next send, 5 ms later at 200/s over 4 slots). Uncorrected: from the actual send.
for proto in udp tcp; do
	P=$(free_port)
	refserver_up --pin "rsslow$proto" "$P" --proto "$proto" --service-time 2ms --service-mode sleep
	driver "stamped$proto" "$proto://127.0.0.1:$P" -c 4 --rate 200 -n 400 --timeout 1s -q
	stop "rsslow$proto"
	j=$LL_TMP/stamped$proto.json
	[ "$(jget "$j" .requests)" = 400 ] || fail "stamped $proto: $(jget "$j" .requests) of 400"
	min=$(jget "$j" .latency_uncorrected.min)
	p50=$(jget "$j" .latency_uncorrected.p50)
	echo "2 ms server, $proto, open loop: latency from the send min $min ns, p50 $p50 ns"
	[ "$min" -ge 2000000 ] || fail "stamped $proto: an answer in $min ns from a 2 ms server"
	[ "$p50" -lt 3000000 ] || fail "stamped $proto: p50 $p50 ns, over 1 ms past the server's 2 ms"
	pass "open loop, $proto, kernel-stamped replies: min $min ns >= 2 ms, p50 $p50 ns"
done

# A server that closes idle connections (nginx, keepalive_timeout 400ms; two slots, each sending
# every 500 ms, 250 ms apart): each connection's end arrives after the other slot's send and
# before its own next one, so only the read of the connection just before that send sees it; the
# slot then reconnects quietly, as when replies woke the thread: no error, a connection per
# request. (Without that read, 3-6 of 12 requests went out on a closed connection and failed.)
if command -v nginx >/dev/null; then
	NP=$(free_port) SP=$(free_port)
	nginx_up ngidle "$SP" "server { listen 127.0.0.1:$NP; keepalive_timeout 400ms;
		location / { return 200 \"ok\\n\"; } }"
	driver idle "http://127.0.0.1:$NP/" -c 2 --rate 4 -n 20 --timeout 2s -q
	stop ngidle
	j=$LL_TMP/idle.json
	[ "$(jget "$j" .requests)" = 20 ] && [ "$(jget "$j" .errors_total)" = 0 ] ||
		fail "idle close: $(jq -c '{requests, errors}' "$j")"
	c=$(jget "$j" .connections)
	[ "$c" -ge 19 ] || fail "idle close: $c connections for 20 requests: nginx did not close them?"
	pass "open loop, nginx closing idle connections: 20 ok, 0 errors, $c connections"
else
	echo "nginx not installed: idle-close case not run"
fi
