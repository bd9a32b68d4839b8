#!/usr/bin/env bash
# Bad input prints one line and exits 64; --help has EXAMPLES for every protocol and load
# model; a dead target is a counted, hinted error, never a crash.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver

D="$LOADLENS_BIN/loadlens-driver"
while read -r args; do
	rc=0
	# shellcheck disable=SC2086
	"$D" $args >"$LL_TMP/out" 2>"$LL_TMP/err" || rc=$?
	[ "$rc" = 64 ] || fail "'$args' exited $rc, expected 64"
	[ "$(wc -l <"$LL_TMP/err")" = 1 ] || fail "'$args' printed more than one line"
done <<'ARGS'
gopher://127.0.0.1:70 -n 1
tcp://no.such.host.invalid:7 -n 1
tcp://127.0.0.1:7 -c 0 -n 1
tcp://127.0.0.1:7 -d soon
tcp://127.0.0.1:7 -n 1 --rate -5
tcp://127.0.0.1:7
merge
ARGS
# refused WANT ARGS...: exit 64 within seconds (each line runs 30 s if taken: refused before any
# socket), exactly one line on stderr, holding WANT (ours), and nothing of a library's own
n=0
refused() {
	local want=$1 rc=0
	shift
	n=$((n + 1))
	(cd "$W" && timeout 10 "$D" "$@" </dev/null >"$LL_TMP/out" 2>"$LL_TMP/err") || rc=$?
	local what="case $n ($(printf '%q ' "$@"))"
	[ "$rc" = 64 ] || fail "$what: exit $rc, not 64: $(head -c 400 "$LL_TMP/err")"
	[ "$(wc -l <"$LL_TMP/err")" = 1 ] ||
		fail "$what: not one line: $(head -c 600 "$LL_TMP/err")"
	grep -qF -- "$want" "$LL_TMP/err" || fail "$what: '$want' not in: $(cat "$LL_TMP/err")"
	grep -qE '\[libprotobuf|WARNING' "$LL_TMP/err" && fail "$what: $(cat "$LL_TMP/err")"
	echo "ok $what: $(cat "$LL_TMP/err")"
}
W=$LL_TMP/work
mkdir -p "$W/protos/common" "$W/svc"
P=$(free_port)
G="grpc://127.0.0.1:$P"
printf 'syntax = "proto3";\npackage t;\nservice S { rpc M(Req) returns (Req); }\n%s\n' \
	'message Req { string key = 1; bool flag = 2; repeated int32 ids = 3; }' >"$W/t.proto"
# a .proto importing one from another folder (protoc's -I: --import-path)
printf 'syntax = "proto3";\npackage common;\nmessage Key { string k = 1; }\n' \
	>"$W/protos/common/key.proto"
printf 'syntax = "proto3";\npackage a;\nimport "common/key.proto";\n%s\n' \
	'service S { rpc M(common.Key) returns (common.Key); }' >"$W/svc/svc.proto"
: >"$W/empty.proto"
echo 'garbage here' >"$W/garbage.proto"
# 16,000 nested messages: libprotobuf's parser overflowed its stack (SIGSEGV)
{
	printf 'syntax = "proto3";\npackage t;\n'
	yes 'message A {' | head -n 16000
	yes '}' | head -n 16000 | tr -d '\n'
} >"$W/deep.proto"
echo secret >"$W/pw"

# ghz's and h2load's spellings: "did you mean" ours
refused "did you mean --proto-file kv.proto?" "$G/t.S/M" -d 30s --proto kv.proto
refused "did you mean grpc://HOST:PORT/kv.Store/Put?" "$G" -d 30s --call kv.Store.Put
refused "did you mean --message?" "$G/t.S/M" -d '{"key":"a"}'
refused "did you mean -d 3s?" "$G/t.S/M" -z 3s
refused "did you mean --streams 10?" "http://127.0.0.1:$P/" -d 30s -m 10
refused "did you mean -d 5?" "http://127.0.0.1:$P/" -D 5
refused "did you mean --import-path protos?" "$G/t.S/M" -d 30s -i protos
# ghz's --connections is ours: taken
"$D" "$G/t.S/M" -d 30s --connections 3 --print-plan >"$LL_TMP/plan" ||
	fail "--connections 3 refused"
grep -q '"connections": *3' "$LL_TMP/plan" || fail "--connections 3: $(cat "$LL_TMP/plan")"
# --import-path: the import found in another folder (with it), not found (without)
(cd "$W" && "$D" "$G/a.S/M" -d 30s --proto-file svc/svc.proto --import-path protos \
	--message '{"k":"x"}' --print-plan >/dev/null) || fail "--import-path: the import not found"
refused "common/key.proto: File not found." "$G/a.S/M" -d 30s --proto-file svc/svc.proto
refused "--import-path nope: No such file or directory" "$G/a.S/M" -d 30s \
	--proto-file svc/svc.proto --import-path nope
# message JSON, strictly (RFC 8259, protobuf's JSON mapping)
refused "from --message: not strict JSON (RFC 8259): string or '}' expected" "$G/t.S/M" -d 30s \
	--proto-file t.proto --message '{"key":"a",}'
refused "flag: a bool is true or false, not the string \"yes\"" "$G/t.S/M" -d 30s \
	--proto-file t.proto --message '{"flag":"yes"}'
refused "duplicate object key near '\"key\"'" "$G/t.S/M" -d 30s --proto-file t.proto \
	--message '{"key":"a","key":"b"}'
refused "ids: a repeated field takes a JSON array, not a number" "$G/t.S/M" -d 30s \
	--proto-file t.proto --message '{"ids":5}'
# bad command lines of issue 59
refused "-H 'X-A: a\x01b': a control byte (0x01)" "http://127.0.0.1:$P/" -d 30s \
	-H "$(printf 'X-A: a\001b')"
refused "--attrs '': no attribute named" "tcp://127.0.0.1:$P" --proto ldap -d 30s --attrs ""
refused "--bind-dn: an empty DN binds no one" "tcp://127.0.0.1:$P" --proto ldap -d 30s \
	--bind-dn "" --bind-password-file pw
refused "-c 1000001: out of range, must be 1..1000000" "tcp://127.0.0.1:$P" -d 30s -c 1000001
refused "deep.proto: nested more than 200 levels deep" "$G/t.S/M" -d 30s --proto-file deep.proto
refused "--proto-file garbage.proto: garbage.proto:1:1: Expected top-level statement" \
	"$G/t.S/M" -d 30s --proto-file garbage.proto
refused "/t.S/M: no service t.S in empty.proto (it has none)" "$G/t.S/M" -d 30s \
	--proto-file empty.proto

"$D" --help >"$LL_TMP/help" || fail "--help failed"
for w in EXAMPLES tcp:// udp:// http:// --rate --delay --new-conn --reconnect-every --warmup \
	--shard merge --payload --http-close --source-addr --import-path --streams; do
	grep -q -- "$w" "$LL_TMP/help" || fail "--help does not mention $w"
done
P=$(free_port)
DRIVER_RC=1 driver dead "tcp://127.0.0.1:$P" -c 2 -n 20 -q
[ "$(jget "$LL_TMP/dead.json" .errors.ECONNREFUSED)" = 20 ] || fail "not 20 ECONNREFUSED"
grep -q '^hint: ECONNREFUSED' "$LL_TMP/dead.out" || fail "no ECONNREFUSED hint"
DRIVER_RC=1 driver deadu "udp://127.0.0.1:$P" -c 2 -n 20 --timeout 100ms -q
[ "$(jget "$LL_TMP/deadu.json" .errors_total)" = 20 ] || fail "udp to nothing: not 20 errors"
pass "bad input exits 64 in one line ($n refusals naming ours); dead targets are counted, not fatal"
