#!/bin/bash
# The refserver's HTTP/2 (--proto h2) and gRPC (--proto grpc), checked with independent clients
# (Debian's h2load, nghttp and curl) against the refserver's own counts: every stream answered and
# counted, the service time per stream, and each misbehaviour switch seen by the clients exactly
# as often as it says. docs/refserver.md has the contract.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-refserver
for b in h2load nghttp curl jq protoc; do
	command -v "$b" >/dev/null ||
		skip "$b is not installed (Debian: nghttp2-client, curl, jq, protobuf-compiler)"
done
KV_PROTO_DIR=$(cd "$LL_HERE/../data" && pwd)
SRV=0

# up [--rt] ARGS...: a fresh refserver (one worker unless ARGS say otherwise) as $SRV_NAME on
# $URL; --rt: on CPU 0 at SCHED_FIFO where allowed (refserver_up), for timings
up() {
	local via=() port
	[ "$1" = --rt ] && via=(--rt) && shift
	SRV=$((SRV + 1))
	SRV_NAME=srv$SRV
	port=$(free_port)
	URL=http://127.0.0.1:$port
	refserver_up "${via[@]}" "$SRV_NAME" "$port" "$@"
}

# down: stop it; its results are then in $JSON
down() {
	stop "$SRV_NAME"
	JSON=$LL_TMP/$SRV_NAME.json
}

# h2 NAME ARGS...: h2load ARGS against the server (on CPU 1, as load_cpu), bounded in time;
# output in $LL_TMP/NAME.h2load
h2() {
	local name=$1
	shift
	load_cpu timeout 60 h2load "$@" >"$LL_TMP/$name.h2load" 2>&1 ||
		{ st=$?; cat "$LL_TMP/$name.h2load"; fail "h2load $* exited $st"; }
}

# h2count NAME WORD: h2load's count of WORD (succeeded, failed, errored, timeout) in its
# "requests:" line
h2count() {
	grep '^requests:' "$LL_TMP/$1.h2load" | grep -o "[0-9]* $2" | cut -d' ' -f1
}

# expect WHAT GOT WANT
expect() {
	[ "$2" = "$3" ] || fail "$1: $2, expected $3"
	echo "ok: $1: $2"
}

# call NAME PATH [CURL ARGS...]: curl POSTs put.grpc (a gRPC message) to $URL/PATH; the headers
# and trailers, without CRs, in NAME.hdr, the body in NAME.body
GRPC=(-H 'content-type: application/grpc' -H 'te: trailers')
call() {
	local name=$1 path=$2
	shift 2
	curl -s -m 5 --http2-prior-knowledge --data-binary @"$LL_TMP/put.grpc" \
		-D "$LL_TMP/$name.crlf" -o "$LL_TMP/$name.body" "$@" "$URL$path" ||
		fail "curl $name exited $?"
	tr -d '\r' <"$LL_TMP/$name.crlf" >"$LL_TMP/$name.hdr"
}

# recv_settings FILE: the entries of the SETTINGS frames nghttp -v received, one a line
recv_settings() {
	awk '/ (recv|send) / { r = / recv SETTINGS / } r && /\[SETTINGS_/ { print $1 }' "$1"
}

# --- h2: h2load -c 4 -m 10 -n 20000; both sides count every stream ---
up --proto h2
h2 many -c 4 -m 10 -n 20000 "$URL/"
down
expect "h2load succeeded" "$(h2count many succeeded)" 20000
expect "h2load failed" "$(h2count many failed)" 0
expect_json "refserver streams answered" "$JSON" '.streams_answered' 20000
expect_json "refserver requests" "$JSON" '.requests' 20000
expect_json "refserver status 200" "$JSON" '.http_status."200"' 20000
expect_json "service times recorded" "$JSON" '.service_time.count' 20000
expect_json "RST_STREAM sent" "$JSON" '.rst_sent' 0
expect_json "GOAWAY sent" "$JSON" '.goaway_sent' 0
expect_json "stalled" "$JSON" '.stalled' 0
expect_json "protocol errors" "$JSON" '.protocol_errors' 0

# --- service time: 10 streams of one connection queue at the server, each answered when done ---
# 20 ms each: had the answers waited for one another, the first would come after 200 ms; h2load
# reading late (a preemption on the loaded machine) adds tens of ms at most
svc=20000
up --rt --proto h2 --service-time 20ms
h2 queue -c 1 -m 10 -n 10 --log-file="$LL_TMP/queue.log" "$URL/"
h2 hist -c 2 -m 10 -n 40 "$URL/"
down
expect "h2load succeeded" "$(h2count queue succeeded)" 10
# the k-th response (by its time) took at least k service times, and the first came alone
sort -n -k3 "$LL_TMP/queue.log" | awk -v svc=$svc '{ k++
	printf "stream answered #%d after %.2f ms\n", k, $3 / 1000
	if ($3 < k * svc - 500) bad = bad " #" k " " $3 "us < " k * svc "us";
	if (k == 1 && $3 >= 5 * svc) bad = bad " the first waited for the others (" $3 "us)" }
	END { if (bad) { print "FAIL:" bad; exit 1 } }' ||
	fail "responses were not written one by one"
expect_json "service times recorded" "$JSON" '.service_time.count' 50
min=$(jget "$JSON" '.service_time.min')
[ "$min" -ge $((svc * 1000)) ] || fail "service time min ${min} ns < 20 ms"
echo "ok: service time min $min ns >= 20 ms"
check_within "service time p50 (ns)" "$(jget "$JSON" '.service_time.p50')" $((svc * 1000)) 5

# --- responses larger than the socket buffer and the flow-control windows: all delivered ---
up --proto h2 --response-size 1000000
h2 big -c 2 -m 10 -n 200 "$URL/"
h2 window -c 1 -m 5 -n 20 -w 16 -W 16 "$URL/" # windows of 64 KiB: WINDOW_UPDATEs pace us
down
expect "1 MB responses: h2load succeeded" "$(h2count big succeeded)" 200
expect "1 MB responses through 64 KiB windows: h2load succeeded" "$(h2count window succeeded)" 20
expect "bytes of data h2load received" \
	"$(grep -ho '([0-9]*) data' "$LL_TMP/big.h2load" "$LL_TMP/window.h2load" | tr -dc '0-9\n' |
	paste -sd+ | bc)" 220000000
expect_json "refserver streams answered" "$JSON" '.streams_answered' 220

# --- SETTINGS: no stream limit by default; --max-streams 1 sent, and h2load keeps to it ---
up --proto h2
nghttp -nv "$URL/" >"$LL_TMP/default.nghttp" 2>&1 || fail "nghttp against --proto h2 failed"
nghttp -nv -H ':method: HEAD' "$URL/" >"$LL_TMP/head.nghttp" 2>&1 || fail "nghttp HEAD failed"
down
# HEAD: the headers (content-length of the body) with END_STREAM, no DATA
grep -q 'recv (stream_id=[0-9]*) content-length: 16' "$LL_TMP/head.nghttp" &&
	grep -A1 'recv HEADERS frame' "$LL_TMP/head.nghttp" | grep -q 'END_STREAM' &&
	! grep -q 'recv DATA' "$LL_TMP/head.nghttp" ||
	{ cat "$LL_TMP/head.nghttp"; fail "HEAD: not the headers alone"; }
echo "ok: HEAD: content-length 16, END_STREAM on HEADERS, no DATA"
expect "SETTINGS entries received without --max-streams" \
	"$(recv_settings "$LL_TMP/default.nghttp" | tr '\n' ' ')" ""
up --proto h2 --max-streams 1
nghttp -nv "$URL/" >"$LL_TMP/max.nghttp" 2>&1 || fail "nghttp against --max-streams 1 failed"
h2 max -c 1 -m 10 -n 100 "$URL/"
down
expect "SETTINGS entries received with --max-streams 1" \
	"$(recv_settings "$LL_TMP/max.nghttp" | tr '\n' ' ')" \
	"[SETTINGS_MAX_CONCURRENT_STREAMS(0x03):1] "
# h2load may open 10 streams before our SETTINGS reach it: those over 1 are refused, as RFC 9113
# allows (REFUSED_STREAM), then it keeps to 1
ok=$(h2count max succeeded)
refused=$(jget "$JSON" '.rst_sent_codes.REFUSED_STREAM // 0')
expect "h2load failed = the refserver's REFUSED_STREAM" "$(h2count max failed)" "$refused"
expect "h2load succeeded + refused" $((ok + refused)) 100
expect_json "refserver streams answered" "$JSON" '.streams_answered' $((ok + 1))
[ "$refused" -le 9 ] || fail "$refused streams refused, more than the 9 sent before SETTINGS"

# --- --rst-every 10: every 10th stream is reset, the rest answered ---
up --proto h2 --rst-every 10
h2 rst -c 1 -m 10 -n 100 "$URL/"
down
expect "h2load succeeded" "$(h2count rst succeeded)" 90
expect "h2load errored (RST_STREAM)" "$(h2count rst errored)" 10
expect_json "refserver RST_STREAM sent" "$JSON" '.rst_sent' 10
expect_json "refserver RST_STREAM INTERNAL_ERROR" "$JSON" '.rst_sent_codes.INTERNAL_ERROR' 10
expect_json "refserver streams reset" "$JSON" '.streams_reset' 10
expect_json "service times (the reset streams were served)" "$JSON" '.service_time.count' 100
expect_json "refserver streams answered" "$JSON" '.streams_answered' 90
expect_json "refserver requests" "$JSON" '.requests' 100

# --- --goaway-after 5: GOAWAY names the 5th stream; 5 answered, the others not processed ---
up --proto h2 --goaway-after 5
urls=()
for i in 1 2 3 4 5 6 7 8; do urls+=("$URL/$i"); done
nghttp -nv "${urls[@]}" >"$LL_TMP/goaway.nghttp" 2>&1
h2 goaway -c 1 -m 10 -n 100 "$URL/"
down
fifth=$(grep -A1 'send HEADERS frame' "$LL_TMP/goaway.nghttp" | grep -o 'stream_id=[0-9]*' |
	sed -n 5p | cut -d= -f2)
last=$(grep -A1 'recv GOAWAY' "$LL_TMP/goaway.nghttp" | grep -o 'last_stream_id=[0-9]*' |
	cut -d= -f2)
expect "GOAWAY last_stream_id (the 5th request's stream)" "$last" "$fifth"
grep -q 'error_code=NO_ERROR' "$LL_TMP/goaway.nghttp" || fail "GOAWAY is not NO_ERROR"
expect "nghttp responses" \
	"$(grep -c 'recv (stream_id=[0-9]*) :status: 200' "$LL_TMP/goaway.nghttp")" 5
grep -q 'Some requests were not processed. total=8, processed=5' "$LL_TMP/goaway.nghttp" ||
	fail "nghttp does not say 5 of 8 processed"
expect "h2load succeeded" "$(h2count goaway succeeded)" 5
expect_json "refserver GOAWAY sent" "$JSON" '.goaway_sent' 2
expect_json "refserver streams answered" "$JSON" '.streams_answered' 10
expect_json "refserver streams opened" "$JSON" '.streams_opened' 10
expect_json "connections closed by the server" "$JSON" '.connections_closed' 2

# --- --stall-every 10: every 10th stream never answered, h2load times out on them ---
up --proto h2 --stall-every 10
h2 stall -c 1 -m 20 -n 100 -N 1 "$URL/"
down
expect "h2load succeeded" "$(h2count stall succeeded)" 90
expect "h2load timeout" "$(h2count stall timeout)" 10
expect_json "refserver stalled" "$JSON" '.stalled' 10
expect_json "refserver streams answered" "$JSON" '.streams_answered' 90

# --- a client that does not speak HTTP/2: a protocol error, closed ---
up --proto h2
curl -s -m 5 --http1.1 "$URL/" -o /dev/null
down
expect_json "HTTP/1.1 to --proto h2: protocol errors" "$JSON" '.protocol_errors' 1
expect_json "HTTP/1.1 to --proto h2: requests" "$JSON" '.requests' 0

# --- a malformed frame (SETTINGS of 5 bytes): GOAWAY FRAME_SIZE_ERROR, closed, counted ---
up --proto h2
exec 3<>"/dev/tcp/127.0.0.1/${URL##*:}"
# the preface, then a SETTINGS frame of 5 bytes (a multiple of 6 is required)
printf 'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' >&3
printf '\x00\x00\x05\x04\x00\x00\x00\x00\x00\x01\x02\x03\x04\x05' >&3
rc=0
timeout 5 od -An -v -tx1 <&3 >"$LL_TMP/malformed.od" || rc=$?
exec 3<&-
[ "$rc" = 0 ] || fail "after a malformed SETTINGS the connection was not closed (od exited $rc)"
reply=$(tr -d ' \n' <"$LL_TMP/malformed.od")
down
# our SETTINGS (empty), then GOAWAY: length 8, type 7, stream 0, last-stream-id, error code 6
echo "$reply" | grep -q '^000000040000000000000008070000000000[0-9a-f]\{8\}00000006$' ||
	fail "reply to a malformed SETTINGS: $reply, expected SETTINGS then GOAWAY FRAME_SIZE_ERROR"
echo "ok: a malformed SETTINGS gets GOAWAY FRAME_SIZE_ERROR and the connection closed: $reply"
expect_json "malformed frame: protocol errors" "$JSON" '.protocol_errors' 1
expect_json "malformed frame: GOAWAY sent" "$JSON" '.goaway_sent' 1

# --- gRPC: a call sees grpc-status in its trailers; the reply decodes as the method's type ---
printf 'key: "k1" value: "v1"' | protoc -I "$KV_PROTO_DIR" --encode=kv.PutRequest kv.proto \
	>"$LL_TMP/put.pb" || fail "protoc --encode"
# gRPC's message prefix: flag 0, the length as 4 bytes big-endian
/usr/bin/python3 -c 'import struct, sys; m = sys.stdin.buffer.read()
sys.stdout.buffer.write(b"\0" + struct.pack(">I", len(m)) + m)' \
	<"$LL_TMP/put.pb" >"$LL_TMP/put.grpc"
up --proto grpc --response-size 7
call ok /kv.Store/Get "${GRPC[@]}"
down
grep -q '^grpc-status: 0$' "$LL_TMP/ok.hdr" ||
	{ cat "$LL_TMP/ok.hdr"; fail "no grpc-status 0 trailer"; }
grep -q '^content-type: application/grpc$' "$LL_TMP/ok.hdr" || fail "reply is not application/grpc"
echo "ok: curl saw :status 200, content-type application/grpc, trailer grpc-status: 0"
expect "reply prefix (flag, length)" \
	"$(head -c 5 "$LL_TMP/ok.body" | od -An -tx1 | tr -d ' ')" 0000000009
tail -c +6 "$LL_TMP/ok.body" >"$LL_TMP/ok.pb"
expect "reply message, decoded raw" "$(protoc --decode_raw <"$LL_TMP/ok.pb")" '15: "xxxxxxx"'
protoc -I "$KV_PROTO_DIR" --decode=kv.GetReply kv.proto <"$LL_TMP/ok.pb" >/dev/null ||
	fail "the reply does not decode as kv.GetReply"
echo "ok: the reply decodes as kv.GetReply (field 15 skipped as unknown)"
expect_json "grpc_methods" "$JSON" '.grpc_methods | tojson' '{"/kv.Store/Get":1}'
expect_json "grpc messages received" "$JSON" '.grpc_messages' 1

# --- --grpc-status 8:10: exactly 1 call in 10 gets RESOURCE_EXHAUSTED, seen by the client ---
up --proto grpc --grpc-status RESOURCE_EXHAUSTED:10
# 30 calls, one connection each (Debian 12's curl 7.88 cannot reuse an h2c connection)
for i in $(seq 1 30); do
	call "status$i" /kv.Store/Put "${GRPC[@]}"
	cat "$LL_TMP/status$i.hdr"
done >"$LL_TMP/status.hdr"
h2 grpc -c 2 -m 10 -n 1000 -d "$LL_TMP/put.grpc" -H 'content-type: application/grpc' \
	-H 'te: trailers' "$URL/kv.Store/Get"
down
expect "curl: calls with grpc-status 8" "$(grep -c '^grpc-status: 8$' "$LL_TMP/status.hdr")" 3
expect "curl: calls with grpc-status 0" "$(grep -c '^grpc-status: 0$' "$LL_TMP/status.hdr")" 27
grep -q 'grpc-message: injected by --grpc-status RESOURCE_EXHAUSTED:10' "$LL_TMP/status.hdr" ||
	fail "no grpc-message with the injected status"
expect "h2load succeeded (HTTP 200)" "$(h2count grpc succeeded)" 1000
expect_json "refserver grpc_status RESOURCE_EXHAUSTED" "$JSON" '.grpc_status.RESOURCE_EXHAUSTED' 103
expect_json "refserver grpc_status OK" "$JSON" '.grpc_status.OK' 927
expect_json "refserver grpc_methods Put" "$JSON" '.grpc_methods."/kv.Store/Put"' 30
expect_json "refserver grpc_methods Get" "$JSON" '.grpc_methods."/kv.Store/Get"' 1000
expect_json "refserver grpc_methods, paths" "$JSON" '.grpc_methods | length' 2

# --- two workers: their method counts add up to the calls ---
up --proto grpc --workers 2
h2 workers -c 4 -m 10 -n 2000 -d "$LL_TMP/put.grpc" -H 'content-type: application/grpc' \
	"$URL/kv.Store/Put"
down
expect "h2load succeeded" "$(h2count workers succeeded)" 2000
expect_json "grpc_methods Put over 2 workers" "$JSON" '.grpc_methods."/kv.Store/Put"' 2000
expect_json "the workers' requests" "$JSON" '[.per_worker[].requests] | add' 2000

# --- what is not a gRPC call: 415, UNIMPLEMENTED, INTERNAL; counted apart, no service time ---
up --proto grpc --service-time 1ms
code=$(curl -s -m 5 --http2-prior-knowledge -o /dev/null -w '%{http_code}' "$URL/kv.Store/Get")
expect "GET without content-type: HTTP status" "$code" 415
curl -s -m 5 --http2-prior-knowledge -D "$LL_TMP/get.hdr" -o /dev/null "${GRPC[@]}" \
	"$URL/kv.Store/Get"
grep -q '^grpc-status: 12' "$LL_TMP/get.hdr" ||
	{ cat "$LL_TMP/get.hdr"; fail "GET: no grpc-status 12"; }
echo "ok: GET with application/grpc: grpc-status 12 (UNIMPLEMENTED)"
call path /kv.Store "${GRPC[@]}"
grep -q '^grpc-status: 12' "$LL_TMP/path.hdr" || fail "a path without a method: no grpc-status 12"
echo "ok: POST /kv.Store: grpc-status 12 (UNIMPLEMENTED)"
head -c 8 "$LL_TMP/put.grpc" >"$LL_TMP/cut.grpc"
curl -s -m 5 --http2-prior-knowledge --data-binary @"$LL_TMP/cut.grpc" -D "$LL_TMP/cut.hdr" \
	-o /dev/null "${GRPC[@]}" "$URL/kv.Store/Put"
grep -q '^grpc-status: 13' "$LL_TMP/cut.hdr" ||
	fail "a body cut inside a message: no grpc-status 13"
echo "ok: a body cut inside its message: grpc-status 13 (INTERNAL)"
call good /kv.Store/Put "${GRPC[@]}"
down
expect_json "rejected: content-type" "$JSON" '.grpc_rejected.content_type' 1
expect_json "rejected: method" "$JSON" '.grpc_rejected.method' 1
expect_json "rejected: path" "$JSON" '.grpc_rejected.path' 1
expect_json "rejected: message" "$JSON" '.grpc_rejected.message' 1
expect_json "grpc_status UNIMPLEMENTED" "$JSON" '.grpc_status.UNIMPLEMENTED' 2
expect_json "grpc_status INTERNAL" "$JSON" '.grpc_status.INTERNAL' 1
expect_json "grpc_methods (calls only)" "$JSON" '.grpc_methods | tojson' '{"/kv.Store/Put":1}'
expect_json "service times (calls only)" "$JSON" '.service_time.count' 1
expect_json "http_status" "$JSON" '.http_status | tojson' '{"200":4,"415":1}'

# --- bad flags: one line on stderr, exit 64 ---
for args in "--proto h2 --rst-every 0" "--proto grpc --grpc-status FOO:3" \
	"--proto h2 --max-streams x" "--proto http --rst-every 5" "--proto h2 --grpc-status 8:10" \
	"--proto grpc --goaway-after -1" "--proto h2 --stall-every 2x"; do
	rc=0
	# shellcheck disable=SC2086 # the flags are words
	"$LOADLENS_BIN/loadlens-refserver" $args --listen "127.0.0.1:$(free_port)" \
		>"$LL_TMP/bad.out" 2>"$LL_TMP/bad.err" || rc=$?
	lines=$(wc -l <"$LL_TMP/bad.err")
	if [ "$rc" != 64 ] || [ "$lines" != 1 ]; then
		cat "$LL_TMP/bad.err"
		fail "'$args': exit $rc and $lines lines on stderr, expected 64 and 1"
	fi
	echo "ok: '$args': exit 64: $(cat "$LL_TMP/bad.err")"
done
pass "h2 and gRPC: every stream counted on both sides; --max-streams, --rst-every," \
	"--goaway-after, --stall-every, --grpc-status seen by h2load, nghttp and curl"
