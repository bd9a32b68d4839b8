#!/bin/bash
# HTTP/2 and gRPC with the programs this kernel takes (the kernel matrix runs it on each kernel;
# cheap enough for an emulated CPU): the refserver's gRPC (every 10th call RESOURCE_EXHAUSTED)
# under the driver's grpc://, 2 connections of 10 streams in flight, and its plain h2 the same
# way. Where the programs reach the task's user registers (bpf_task_pt_regs from 5.15; before it,
# on x86-64 and arm64, the registers saved on the task's kernel stack: 5.10), the frame walk
# runs: each stream is one request, exactly the refserver's responses, and the statuses read from
# the server's header blocks equal the refserver's own counts (gRPC by code, :status 200), none
# unread. Where they do not, the observer says in one line that HTTP/2 streams are counted by
# turns, and its JSON says no status was read: the test checks that it says so.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-refserver loadlens-driver

N=${LL_H2_N:-400}
G=$(free_port)
H=$(free_port)
refserver_up rs_grpc "$G" --proto grpc --workers 2 --grpc-status RESOURCE_EXHAUSTED:10
refserver_up rs_h2 "$H" --proto h2 --workers 2
start_observer obs "$G" --port "$H"
for p in "$G" "$H"; do
	if [ "$p" = "$G" ]; then
		args=("grpc://127.0.0.1:$G/kv.Store/Get" --proto-file "$LOADLENS_SRC/tests/data/kv.proto"
			--message '{"key":"k{{seq}}"}')
	else
		args=(--http2 "http://127.0.0.1:$H/")
	fi
	"$LOADLENS_BIN/loadlens-driver" "${args[@]}" -c 2 --streams 10 -n "$N" -q \
		>"$LL_TMP/drv_$p.out" 2>&1 || [ $? = 1 ] ||
		fail "the driver exited $? against port $p ($(tail -2 "$LL_TMP/drv_$p.out"))"
done
sleep 0.3
stop obs
stop rs_grpc
stop rs_h2
j=$LL_TMP/obs.json
# (jq -r, not jget: jget fails on a false or null value, which are the answers looked for here)
if [ "$(jq -r .request_timing.features.h2_headers "$j")" != true ]; then
	grep -q "no bpf_task_pt_regs here (5.15).*HTTP/2 streams" "$LL_TMP/obs.err" ||
		fail "statuses not read, and no line says why: $(grep -c . "$LL_TMP/obs.err") lines"
	for p in "$G" "$H"; do
		[ "$(jq -r "$(tcp_slot "$p") | .requests" "$j")" -gt 0 ] ||
			fail "port $p: no request counted"
		[ "$(jq -r "$(tcp_slot "$p") | .h2_statuses" "$j")" = null ] ||
			fail "port $p: statuses claimed where none were read ($(jq -c "$(tcp_slot "$p") | .h2_statuses" "$j"))"
	done
	echo "ok: this kernel ($(uname -r)) has no user registers for the programs: HTTP/2 streams are counted by turns and no status is read, as the observer says"
	pass "HTTP/2 and gRPC: what this kernel cannot have is said"
	exit 0
fi

for p in "$G" "$H"; do
	name=$([ "$p" = "$G" ] && echo grpc || echo h2)
	s=$(tcp_slot "$p")
	[ "$(jget "$j" "$s | .requests")" = "$(jget "$LL_TMP/rs_$name.json" .responses)" ] ||
		fail "$name: observer $(jget "$j" "$s | .requests") requests, refserver $(jget "$LL_TMP/rs_$name.json" .responses) ($(jq -c "$s | {h2_connections, h2_lost, h2_unmatched, h2_stream_drops}" "$j"))"
	[ "$(jget "$j" "$s | .h2_connections")" = 2 ] || fail "$name: HTTP/2 connections not 2"
	[ "$(jget "$j" "$s | .h2_statuses.status[\"200\"]")" = "$N" ] &&
		[ "$(jget "$j" "$s | .h2_statuses.ends_unread")" = 0 ] ||
		fail "$name: statuses read $(jq -c "$s | .h2_statuses" "$j"), $N of 200 expected"
	echo "ok: $name: observer $(jget "$j" "$s | .requests") requests = the refserver's responses; $N :status 200 read"
done
for code in OK RESOURCE_EXHAUSTED; do
	want=$(jget "$LL_TMP/rs_grpc.json" ".grpc_status.$code")
	[ "$(jget "$j" "$(tcp_slot "$G") | .h2_statuses.grpc_status.$code")" = "$want" ] ||
		fail "grpc: $(jq -c "$(tcp_slot "$G") | .h2_statuses.grpc_status" "$j") read, the refserver's $code $want"
done
echo "ok: grpc: by grpc-status $(jq -c "$(tcp_slot "$G") | .h2_statuses.grpc_status" "$j") = the refserver's"
pass "HTTP/2 and gRPC: streams and statuses exact on $(uname -r)"
