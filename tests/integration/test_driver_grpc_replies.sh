#!/usr/bin/env bash
# The driver's grpc:// never counts a malformed reply ok. A server (grpc_bad_server.py) answers
# every call on each of its ports with one fixed reply: well formed (ok; trailers-only
# RESOURCE_EXHAUSTED), or broken one way each: a length prefix of 100 with 3 bytes, of 1 with 6,
# a 2-byte prefix, 16 MiB and 4 GiB declared, the compressed flag with no grpc-encoding, two
# messages, none with OK, content-type text/html, trailers without grpc-status or with "OK",
# no trailers at all. Each is counted in its own error class with its hint, under no
# grpc-status, and the run exits 1; the healthy replies are counted ok (or by their status).
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver
command -v jq >/dev/null || skip "jq is not installed"
PY=/usr/bin/python3
N=20

# MODE:CLASS, the class its replies must be counted in
CASES="short:grpc_framing long:grpc_framing prefix2:grpc_framing huge:grpc_framing
	4gib:grpc_framing compressed:grpc_compressed two:grpc_messages none:grpc_messages
	html:grpc_content_type nostatus:grpc_trailers textstatus:grpc_trailers
	notrailers:grpc_trailers"
vars=(P_ok P_error)
for c in $CASES; do
	vars+=("P_${c%%:*}")
done
free_ports "${vars[@]}"
args=()
for v in "${vars[@]}"; do
	args+=("${!v}" "${v#P_}")
done
start grpc_bad $PY "$LL_HERE/grpc_bad_server.py" "${args[@]}"
wait_for grpc_bad listening

# healthy: every call ok, counted OK, no error; over one connection and over several streams
driver ok "grpc://127.0.0.1:$P_ok/bad.Svc/Call" -c 2 --streams 4 -n 200 --timeout 2s -q
expect_json "ok: requests" "$LL_TMP/ok.json" .requests 200
expect_json "ok: grpc OK" "$LL_TMP/ok.json" .grpc_status.OK 200
expect_json "ok: errors" "$LL_TMP/ok.json" .errors_total 0
# healthy error: trailers-only RESOURCE_EXHAUSTED is well formed, counted by its code
DRIVER_RC=1 driver error "grpc://127.0.0.1:$P_error/bad.Svc/Call" -c 1 -n "$N" --timeout 2s -q
expect_json "error: grpc_status errors" "$LL_TMP/error.json" .errors.grpc_status "$N"
expect_json "error: RESOURCE_EXHAUSTED" "$LL_TMP/error.json" .grpc_status.RESOURCE_EXHAUSTED "$N"
pass "well formed: 200 calls OK counted ok; trailers-only RESOURCE_EXHAUSTED counted by its code"

for c in $CASES; do
	mode=${c%%:*} class=${c#*:} v=P_${c%%:*}
	DRIVER_RC=1 driver "m_$mode" "grpc://127.0.0.1:${!v}/bad.Svc/Call" -c 1 --streams 2 \
		-n "$N" --timeout 2s
	j=$LL_TMP/m_$mode.json
	expect_json "$mode: requests ok" "$j" .requests 0
	expect_json "$mode: errors.$class" "$j" ".errors.$class" "$N"
	expect_json "$mode: errors_total" "$j" .errors_total "$N"
	# under no grpc-status: a malformed reply's status is not the call's
	expect_json "$mode: grpc_status counted" "$j" '[.grpc_status[]] | add // 0' 0
	grep -q "^hint: $class: " "$LL_TMP/m_$mode.out" ||
		{ cat "$LL_TMP/m_$mode.out"; fail "$mode: no '$class' hint"; }
	echo "ok: $mode: $N calls, all $class, with the hint"
done
pass "12 malformed replies: each counted in its own class with its hint, none ok"
