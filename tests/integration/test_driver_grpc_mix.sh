#!/usr/bin/env bash
# gRPC calls built from tests/data/kv.proto and JSON against the refserver's gRPC
# (--proto grpc, which counts every call per method path): a Put:Get 1:9 --requests-file mix is
# counted per method by the driver exactly as the server counts it (round-robin: 1,000 and 9,000
# of 10,000; with --seed: equal to the server's, the Put share within 5 sd of 10%); one templated
# method with --message: every call on that path; with every 10th call answered
# RESOURCE_EXHAUSTED the per-method counts still match and the failed calls are the server's.
# Bad messages and protos are refused at start (integration/bad_input; unit/driver_grpc_msg).
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"
"$LOADLENS_BIN/loadlens-refserver" --help 2>&1 | grep -q grpc ||
	skip "this refserver has no --proto grpc (the refserver's gRPC is not built in)"
KV="$LOADLENS_SRC/tests/data/kv.proto"
cat >"$LL_TMP/kv.txt" <<'EOT'
# Put:Get 1:9
weight=1 /kv.Store/Put {"key":"k{{seq}}","value":"dmFs"}
weight=9 /kv.Store/Get {"key":"k{{rand:0-99999}}"}
EOT

P=$(free_port)
refserver_up rs "$P" --proto grpc
rc=0
"$LOADLENS_BIN/loadlens-driver" "grpc://127.0.0.1:$P/kv.Store/Put" --proto-file "$KV" -n 1 -q \
	>"$LL_TMP/probe.out" 2>&1 || rc=$?
grep -q "Protocol not supported" "$LL_TMP/probe.out" &&
	skip "this driver cannot make gRPC calls (its HTTP/2 engine is not built in)"
[ "$rc" = 0 ] || fail "one call: exit $rc: $(cat "$LL_TMP/probe.out")"
stop rs

# per_method FILE: the server's {"/kv.Store/Get": N, "/kv.Store/Put": M}
per_method() { jq -c '.grpc_methods | with_entries(select(.key | startswith("/kv.")))' "$1"; }
# records FILE: the driver's, keyed by method: requests + errors of each record
records() {
	jq -c '[.records[] | {key: (.record | split(" ")[0]), value: (.requests + .errors)}] |
		from_entries' "$1"
}
same() { # same WHAT EXPECTED MEASURED
	echo "$1: expected $2, measured $3"
	[ "$2" = "$3" ] || fail "$1: expected $2, measured $3"
}

# round-robin: exactly 1 Put then 9 Gets, over and over
P=$(free_port)
refserver_up rs_rr "$P" --proto grpc
driver rr "grpc://127.0.0.1:$P" --proto-file "$KV" --requests-file "$LL_TMP/kv.txt" -c 4 -n 10000
stop rs_rr
same "round-robin, the server's calls per method" '{"/kv.Store/Get":9000,"/kv.Store/Put":1000}' \
	"$(per_method "$LL_TMP/rs_rr.json" | jq -cS .)"
same "round-robin, the driver's per record" '{"/kv.Store/Get":9000,"/kv.Store/Put":1000}' \
	"$(records "$LL_TMP/rr.json" | jq -cS .)"
grep -q "records      2 (round-robin)" "$LL_TMP/rr.out" || fail "no per-record table"
pass "Put:Get 1:9 round-robin: 1000 and 9000, the driver's per record equal to the server's"

# weighted at random
P=$(free_port)
refserver_up rs_sd "$P" --proto grpc
driver sd "grpc://127.0.0.1:$P" --proto-file "$KV" --requests-file "$LL_TMP/kv.txt" -c 4 -t 2 \
	-n 10000 --seed 7
stop rs_sd
srv=$(per_method "$LL_TMP/rs_sd.json" | jq -cS .)
same "--seed 7, per method: the driver's and the server's" "$srv" \
	"$(records "$LL_TMP/sd.json" | jq -cS .)"
put=$(jq '.["/kv.Store/Put"]' <<<"$srv")
echo "--seed 7: $put Puts of 10000 (expected 1000 +- 150, 5 sd)"
[ "$put" -gt 850 ] && [ "$put" -lt 1150 ] || fail "$put Puts of 10000 with weights 1:9"
pass "Put:Get 1:9 weighted at random: $srv, the driver's per record the same"

# one templated method: every call on its path
P=$(free_port)
refserver_up rs_one "$P" --proto grpc
driver one "grpc://127.0.0.1:$P/kv.Store/Put" --proto-file "$KV" \
	--message '{"key":"k{{seq}}","value":"dmFs"}' -c 2 -n 500
stop rs_one
same "--message, the server's calls per method" '{"/kv.Store/Put":500}' \
	"$(per_method "$LL_TMP/rs_one.json" | jq -cS .)"
pass "one templated Put: 500 calls on /kv.Store/Put"

# sick: every 10th call RESOURCE_EXHAUSTED; the counts per method still those of the server
P=$(free_port)
refserver_up rs_ex "$P" --proto grpc --grpc-status RESOURCE_EXHAUSTED:10
driver ex "grpc://127.0.0.1:$P" --proto-file "$KV" --requests-file "$LL_TMP/kv.txt" -c 4 -n 5000
stop rs_ex
same "RESOURCE_EXHAUSTED every 10th, per method: the server's and the driver's" \
	"$(per_method "$LL_TMP/rs_ex.json" | jq -cS .)" "$(records "$LL_TMP/ex.json" | jq -cS .)"
srv_ex=$(jq '[.. | objects | to_entries[] | select(.key == "RESOURCE_EXHAUSTED" or .key == "8")
	| .value | numbers] | first // 0' "$LL_TMP/rs_ex.json")
drv_err=$(jq '[.records[].errors] | add' "$LL_TMP/ex.json")
same "calls answered RESOURCE_EXHAUSTED: the server's, the driver's failed" "$srv_ex" "$drv_err"
[ "$drv_err" -gt 0 ] || fail "no call failed"
pass "RESOURCE_EXHAUSTED every 10th: $drv_err failed calls, per method equal to the server's"
