#!/usr/bin/env bash
# The driver against the real servers from Debian, each started here on a loopback port:
# redis-server (--response resp), memcached over TCP (--response memcache) and UDP
# (--proto memcache-udp, values of 4 datagrams), unbound with a local zone (--response dns over
# UDP and TCP). The driver's counts must equal the server's own; error replies land in their
# classes; a fake memcached that drops one datagram of some replies gives exactly that many
# `incomplete`.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver
command -v jq >/dev/null || skip "jq is not installed"
PY=/usr/bin/python3

# errs NAME CLASS: the count of an error class in a driver run
errs() {
	jget "$LL_TMP/$1.json" ".errors.$2"
}

# expect NAME OK ERRORS: requests and errors_total of a driver run
expect() {
	local ok err
	ok=$(jget "$LL_TMP/$1.json" .requests)
	err=$(jget "$LL_TMP/$1.json" .errors_total)
	[ "$ok" = "$2" ] && [ "$err" = "$3" ] ||
		fail "$1: $ok ok and $err errors, expected $2 and $3 ($(jq -c .errors "$LL_TMP/$1.json"))"
}

# framed NAME OK ERRORS DRIVER-ARGS...: a driver run (-q) that must end with OK requests and ERRORS
# errors; where nothing succeeded (OK 0) the driver exits 1
framed() {
	local name=$1 ok=$2 err=$3 rc=0
	shift 3
	[ "$ok" = 0 ] && rc=1
	DRIVER_RC=$rc driver "$name" "$@" -q
	expect "$name" "$ok" "$err"
}

# --- redis ---
if command -v redis-server >/dev/null && command -v redis-cli >/dev/null; then
	P=$(free_port)
	start redis redis-server --port "$P" --bind 127.0.0.1 --save '' --appendonly no
	for _ in $(seq 1 50); do redis-cli -p "$P" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
	printf '*1\r\n$4\r\nPING\r\n' >"$LL_TMP/ping"
	printf '*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$10\r\n0123\r\n5678\r\n' >"$LL_TMP/set"
	printf '*2\r\n$3\r\nGET\r\n$3\r\nkey\r\n' >"$LL_TMP/get"
	printf '*2\r\n$4\r\nINCR\r\n$3\r\nkey\r\n' >"$LL_TMP/incr" # not an integer: -ERR
	redis-cli -p "$P" config resetstat >/dev/null
	framed r_ping 3000 0 "tcp://127.0.0.1:$P" -c 4 -n 3000 --payload "$LL_TMP/ping" --response resp
	framed r_set 2000 0 "tcp://127.0.0.1:$P" -c 4 -n 2000 --payload "$LL_TMP/set" --response resp
	# the value holds a CRLF: 'delim:\r\n' could not frame it
	framed r_get 5000 0 "tcp://127.0.0.1:$P" -c 4 -t 2 -n 5000 --payload "$LL_TMP/get" \
		--response resp
	framed r_incr 0 700 "tcp://127.0.0.1:$P" -c 2 -n 700 --payload "$LL_TMP/incr" --response resp
	[ "$(errs r_incr resp_error)" = 700 ] || fail "redis -ERR replies not counted as resp_error"
	stats=$(redis-cli -p "$P" info commandstats | tr -d '\r')
	echo "$stats"
	for c in ping:3000 set:2000 get:5000; do
		n=$(echo "$stats" | sed -n "s/^cmdstat_${c%%:*}:calls=\([0-9]*\).*/\1/p")
		[ "$n" = "${c#*:}" ] || fail "redis counted $n ${c%%:*} calls, the driver ${c#*:}"
	done
	n=$(echo "$stats" | sed -n 's/^cmdstat_incr:.*failed_calls=\([0-9]*\).*/\1/p')
	[ "$n" = 700 ] || fail "redis counted $n failed INCR, the driver 700 resp_error"
	# pipelined: 16 in flight per connection, closed loop and open loop; counts still equal
	redis-cli -p "$P" config resetstat >/dev/null
	driver r_p16 "tcp://127.0.0.1:$P" -c 4 -n 40000 -P 16 --payload "$LL_TMP/get" --response resp -q
	driver r_p4r "tcp://127.0.0.1:$P" -c 2 -d 2s --rate 4000 -P 4 --payload "$LL_TMP/ping" \
		--response resp -q
	expect r_p16 40000 0
	[ "$(jget "$LL_TMP/r_p16.json" .pipeline)" = 16 ] || fail "JSON pipeline is not 16"
	[ "$(jget "$LL_TMP/r_p16.json" .latency.count)" = 40000 ] || fail "not one latency per request"
	stats=$(redis-cli -p "$P" info commandstats | tr -d '\r')
	n=$(echo "$stats" | sed -n 's/^cmdstat_get:calls=\([0-9]*\).*/\1/p')
	[ "$n" = 40000 ] || fail "redis counted $n pipelined GETs, the driver 40000"
	n=$(echo "$stats" | sed -n 's/^cmdstat_ping:calls=\([0-9]*\).*/\1/p')
	ok=$(jget "$LL_TMP/r_p4r.json" .requests)
	[ "$n" = "$ok" ] && [ "$ok" -ge 7600 ] && [ "$ok" -le 8100 ] ||
		fail "open loop -P 4 at 4000/s for 2 s: driver $ok, redis $n"
	pass "redis -P 16: 40000 GETs on both sides; -P 4 --rate 4000: $ok PINGs on both sides"
	# the old recipe, for the record: a bulk reply holding CRLF breaks delim framing
	DRIVER_RC=1 driver r_delim "tcp://127.0.0.1:$P" -c 1 -n 10 --payload "$LL_TMP/get" \
		--response 'delim:\r\n' --timeout 200ms -q
	[ "$(jget "$LL_TMP/r_delim.json" .requests)" = 0 ] || fail "delim framing of a bulk reply passed"
	pass "redis: PING, SET, GET counts equal INFO commandstats; 700 -ERR = 700 resp_error"
	# a request mix: SET/GET 1:9 over 100k keys, weighted at random; per record = per command
	printf '%s\n' '# SET/GET 1:9' 'weight=1 SET key:{{rand:1-100000}} v{{seq}}' \
		'weight=9 GET key:{{zipf:100000:0.99}}' >"$LL_TMP/mix.txt"
	redis-cli -p "$P" config resetstat >/dev/null
	driver r_mix "tcp://127.0.0.1:$P" -c 4 -n 20000 --requests-file "$LL_TMP/mix.txt" \
		--response resp --seed 42 -q
	expect r_mix 20000 0
	stats=$(redis-cli -p "$P" info commandstats | tr -d '\r')
	ns=$(echo "$stats" | sed -n 's/^cmdstat_set:calls=\([0-9]*\).*/\1/p')
	ng=$(echo "$stats" | sed -n 's/^cmdstat_get:calls=\([0-9]*\).*/\1/p')
	[ "$(jget "$LL_TMP/r_mix.json" '.records[0].requests')" = "$ns" ] || fail "SET record vs $ns"
	[ "$(jget "$LL_TMP/r_mix.json" '.records[1].requests')" = "$ng" ] || fail "GET record vs $ng"
	[ "$(jget "$LL_TMP/r_mix.json" '.records[1].latency.count')" = "$ng" ] || fail "GET latencies"
	[ "$ns" -gt 1700 ] && [ "$ns" -lt 2300 ] || fail "weight 1 of 10 gave $ns SETs of 20000"
	pass "redis mix: $ns SET + $ng GET, per record = INFO commandstats"
else
	echo "SKIP part: redis-server not installed (PACKAGES in tools/loadlens)"
	missing=1
fi

# --- memcached, TCP and UDP ---
command -v memcached >/dev/null || skip "needs memcached (PACKAGES in tools/loadlens)"
P=$(free_port)
start mc memcached -p "$P" -U "$P" -l 127.0.0.1 -t 2 -u root
mcstat() { # mcstat PORT NAME
	$PY - "$1" "$2" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
s.sendall(b"stats\r\n")
d = b""
while not d.endswith(b"END\r\n"):
	d += s.recv(65536)
for l in d.decode().split("\r\n"):
	f = l.split()
	if len(f) == 3 and f[1] == sys.argv[2]:
		print(f[2])
EOF
}
for _ in $(seq 1 50); do mcstat "$P" pid >/dev/null 2>&1 && break; sleep 0.1; done
printf 'set k 0 0 12\r\nhello\r\nworld\r\n' >"$LL_TMP/mset"
printf 'get k\r\n' >"$LL_TMP/mget"
printf 'get nokey k\r\n' >"$LL_TMP/mget2"
printf 'bogus command\r\n' >"$LL_TMP/mbad"
framed m_set 2000 0 "tcp://127.0.0.1:$P" -c 4 -n 2000 --payload "$LL_TMP/mset" --response memcache
framed m_get 4000 0 "tcp://127.0.0.1:$P" -c 4 -n 4000 --payload "$LL_TMP/mget" --response memcache
framed m_get2 1000 0 "tcp://127.0.0.1:$P" -c 4 -n 1000 --payload "$LL_TMP/mget2" --response memcache
framed m_bad 0 300 "tcp://127.0.0.1:$P" -c 2 -n 300 --payload "$LL_TMP/mbad" --response memcache
[ "$(errs m_bad memcache_client_error)" = 300 ] || fail "memcached ERROR not counted as client error"
[ "$(mcstat "$P" cmd_set)" = 2000 ] || fail "memcached counted $(mcstat "$P" cmd_set) sets, not 2000"
[ "$(mcstat "$P" get_hits)" = 5000 ] || fail "memcached counted $(mcstat "$P" get_hits) hits, not 5000"
[ "$(mcstat "$P" get_misses)" = 1000 ] || fail "memcached: $(mcstat "$P" get_misses) misses, not 1000"
pass "memcached TCP: 2000 sets, 5000 hits, 1000 misses on both sides; ERROR = client error"

# UDP: a 5,200-byte value comes back as 4 datagrams (memcached's UDP payload is 1,400 bytes)
$PY - "$P" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
v = b"v" * 5200
s.sendall(b"set big 0 0 %d\r\n" % len(v) + v + b"\r\n")
assert s.recv(100) == b"STORED\r\n"
EOF
printf 'get big\r\n' >"$LL_TMP/mbig"
# mu_big NAME DRIVER-ARGS...: 4000 gets of the big value; every reply reassembled, as memcached counts
mu_big() {
	local name=$1 j=$LL_TMP/$1.json gets0 gets ok att rx
	shift
	gets0=$(mcstat "$P" cmd_get)
	driver "$name" "udp://127.0.0.1:$P" --proto memcache-udp -c 8 -n 4000 \
		--payload "$LL_TMP/mbig" --timeout 2s --rcvbuf 4194304 -q "$@"
	gets=$(($(mcstat "$P" cmd_get) - gets0))
	ok=$(jget "$j" .requests)
	att=$(jget "$j" '.requests + .errors_total')
	rx=$(jget "$j" .bytes_received)
	echo "memcached UDP ($name): driver $ok ok of $att, memcached $gets gets, $rx bytes received"
	[ "$gets" = "$att" ] || fail "$name: memcached answered $gets gets, the driver sent $att"
	[ "$ok" = "$att" ] || fail "$name: $((att - ok)) of $att failed: $(jq -c .errors "$j")"
	[ "$rx" -ge $((ok * (4 * 8 + 5200))) ] || fail "$name: $rx bytes is under 4 datagrams a reply"
	pass "memcached UDP, 4-datagram values ($name): $ok replies reassembled = memcached's $gets gets"
}
mu_big mu_big
# open loop: the datagrams of a reply read at the waker's wake-ups, timed by the kernel
mu_big mu_big_open --rate 4k
# a mix over UDP (a hit of 4 datagrams, a miss) and pipelined TCP: counts still memcached's
printf '%s\n' 'get big\r\n' 'get missing:{{rand:1-9}}\r\n' >"$LL_TMP/mcmix.txt"
h0=$(mcstat "$P" get_hits)
m0=$(mcstat "$P" get_misses)
driver mu_mix "udp://127.0.0.1:$P" --proto memcache-udp -c 4 -n 2000 \
	--requests-file "$LL_TMP/mcmix.txt" --timeout 2s -q
driver m_p8 "tcp://127.0.0.1:$P" -c 4 -n 8000 -P 8 --payload "$LL_TMP/mget" --response memcache -q
expect mu_mix 2000 0
expect m_p8 8000 0
[ "$(jq -c '[.records[].requests]' "$LL_TMP/mu_mix.json")" = "[1000,1000]" ] || fail "mix 1:1"
[ $(($(mcstat "$P" get_hits) - h0)) = 9000 ] || fail "memcached: not 1000 + 8000 more hits"
[ $(($(mcstat "$P" get_misses) - m0)) = 1000 ] || fail "memcached: not 1000 more misses"
pass "memcached: a UDP mix (1000 hits of 4 datagrams, 1000 misses) and TCP -P 8 (8000 hits)"

# sick: a fake memcached that leaves out datagram 2 of every 5th reply
FP=$(free_port)
cat >"$LL_TMP/fakemc.py" <<'EOF'
import socket, sys, signal
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", int(sys.argv[1])))
n = cut = 0
def done(*_):
	open(sys.argv[2], "w").write("%d %d\n" % (n, cut))
	sys.exit(0)
signal.signal(signal.SIGTERM, done)
while True:
	d, a = s.recvfrom(2048)
	n += 1
	body = b"VALUE big 0 4000\r\n" + b"v" * 4000 + b"\r\nEND\r\n"
	parts = [body[i:i + 1392] for i in range(0, len(body), 1392)]
	for seq, p in enumerate(parts):
		if n % 5 == 0 and seq == 2:
			continue
		s.sendto(d[:2] + bytes([0, seq, 0, len(parts), 0, 0]) + p, a)
	cut += n % 5 == 0
EOF
start fakemc $PY "$LL_TMP/fakemc.py" "$FP" "$LL_TMP/fakemc.count"
sleep 0.5
driver mu_cut "udp://127.0.0.1:$FP" --proto memcache-udp -c 20 -n 1000 --payload "$LL_TMP/mbig" \
	--timeout 300ms -q
kill -TERM "$PID_fakemc"
wait "$PID_fakemc" 2>/dev/null
read -r fn fcut <"$LL_TMP/fakemc.count"
echo "fake memcached: $fn requests, $fcut replies cut; driver: $(jq -c '{requests, errors}' "$LL_TMP/mu_cut.json")"
[ "$fn" = 1000 ] || fail "the fake server saw $fn requests, not 1000"
[ "$(errs mu_cut incomplete)" = "$fcut" ] || fail "incomplete $(errs mu_cut incomplete), cut $fcut"
expect mu_cut $((1000 - fcut)) "$fcut"
pass "memcached UDP: $fcut replies missing a datagram = $fcut incomplete, none taken as answered"

# --- unbound: a local zone over UDP and TCP ---
command -v unbound >/dev/null && command -v unbound-control >/dev/null ||
	skip "needs unbound (PACKAGES in tools/loadlens); redis and memcached passed"
P=$(free_port)
unbound_conf "$LL_TMP/unbound.conf" "$P" loadlens.test. \
	'local-data: "a.loadlens.test. 60 IN A 10.0.0.1"' "verbosity: 0" \
	"extended-statistics: yes" "statistics-cumulative: yes" "incoming-num-tcp: 64" \
	remote-control: "control-enable: yes" "control-interface: $LL_TMP/unbound.ctl" \
	"control-use-cert: no"
start unbound unbound -d -c "$LL_TMP/unbound.conf"
ubc() { unbound-control -c "$LL_TMP/unbound.conf" "$@"; }
for _ in $(seq 1 50); do ubc status >/dev/null 2>&1 && break; sleep 0.1; done
ubc status >/dev/null 2>&1 || { cat "$LL_TMP/unbound.err"; fail "unbound did not start"; }
# query NAME FILE [tcp]: a DNS query for NAME/A (id 0: the driver stamps it over UDP)
query() {
	$PY - "$@" <<'EOF'
import struct, sys
name, path = sys.argv[1], sys.argv[2]
q = struct.pack(">HHHHHH", 0, 0x0100, 1, 0, 0, 0)
q += b"".join(bytes([len(l)]) + l.encode() for l in name.split(".")) + b"\0"
q += struct.pack(">HH", 1, 1)
if len(sys.argv) > 3:
	q = struct.pack(">H", len(q)) + q
open(path, "wb").write(q)
EOF
}
query a.loadlens.test "$LL_TMP/qa"
query nx.loadlens.test "$LL_TMP/qnx"
query a.loadlens.test "$LL_TMP/qa_tcp" tcp
query nx.loadlens.test "$LL_TMP/qnx_tcp" tcp
framed d_udp 6000 0 "udp://127.0.0.1:$P" -c 8 -n 6000 --payload "$LL_TMP/qa" --id 0:2 --response dns
framed d_udpnx 0 1500 "udp://127.0.0.1:$P" -c 8 -n 1500 --payload "$LL_TMP/qnx" --id 0:2 \
	--response dns
framed d_tcp 3000 0 "tcp://127.0.0.1:$P" -c 8 -n 3000 --payload "$LL_TMP/qa_tcp" --response dns
framed d_tcpnx 0 500 "tcp://127.0.0.1:$P" -c 4 -n 500 --payload "$LL_TMP/qnx_tcp" --response dns
[ "$(jget "$LL_TMP/d_udpnx.json" .dns_rcode.NXDOMAIN)" = 1500 ] || fail "UDP NXDOMAIN not counted by code"
[ "$(jget "$LL_TMP/d_tcpnx.json" .dns_rcode.NXDOMAIN)" = 500 ] || fail "TCP NXDOMAIN not counted by code"
[ "$(jget "$LL_TMP/d_udp.json" .dns_rcode.NOERROR)" = 6000 ] || fail "NOERROR not counted by code"
ubc stats_noreset >"$LL_TMP/ub.stats"
ub() { sed -n "s/^$1=//p" "$LL_TMP/ub.stats"; }
echo "unbound: queries $(ub total.num.queries), tcp $(ub num.query.tcp), NOERROR $(ub num.answer.rcode.NOERROR), NXDOMAIN $(ub num.answer.rcode.NXDOMAIN)"
[ "$(ub total.num.queries)" = 11000 ] || fail "unbound counted $(ub total.num.queries) queries, the driver 11000"
[ "$(ub num.query.tcp)" = 3500 ] || fail "unbound counted $(ub num.query.tcp) TCP queries, not 3500"
[ "$(ub num.answer.rcode.NOERROR)" = 9000 ] || fail "unbound: $(ub num.answer.rcode.NOERROR) NOERROR, not 9000"
[ "$(ub num.answer.rcode.NXDOMAIN)" = 2000 ] || fail "unbound: $(ub num.answer.rcode.NXDOMAIN) NXDOMAIN, not 2000"
pass "unbound: 11000 queries (3500 TCP), 9000 NOERROR, 2000 NXDOMAIN on both sides"
# a dnsperf-style query file, round-robin: 3 names of 4 exist
printf '%s\n' 'a.loadlens.test A' 'a.loadlens.test AAAA' 'b.loadlens.test A' 'a.loadlens.test MX' \
	>"$LL_TMP/queries.txt"
driver d_file "udp://127.0.0.1:$P" -c 4 -n 8000 --requests-file "$LL_TMP/queries.txt" --response dns -q
ubc stats_noreset >"$LL_TMP/ub2.stats"
ub2() { sed -n "s/^$1=//p" "$LL_TMP/ub2.stats"; }
[ "$(($(ub2 total.num.queries) - 11000))" = 8000 ] || fail "unbound: not 8000 more queries"
[ "$(($(ub2 num.answer.rcode.NXDOMAIN) - 2000))" = 2000 ] || fail "unbound: not 2000 more NXDOMAIN"
[ "$(jget "$LL_TMP/d_file.json" .dns_rcode.NXDOMAIN)" = 2000 ] || fail "query file: NXDOMAIN"
[ "$(jget "$LL_TMP/d_file.json" '.records[2].errors')" = 2000 ] || fail "query file: b.loadlens.test"
pass "unbound, a query file of 4 names: 8000 queries, 2000 NXDOMAIN on both sides, per record"
[ -z "${missing:-}" ] || skip "redis-server missing: memcached and unbound passed"
