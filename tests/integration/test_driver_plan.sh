#!/usr/bin/env bash
# --print-plan: what a command line resolves to, as one JSON object, for a closed loop,
# an open loop with a paced start and an old-style udp shard; a refused command line still exits 64
# in one line with nothing on stdout; the plan opens no socket and no output file (strace).
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver
command -v jq >/dev/null || skip "jq is not installed"
D="$LOADLENS_BIN/loadlens-driver"

plan() { # NAME ARGS...: the plan into $LL_TMP/NAME.json, exit 0 and nothing on stderr
	local name=$1 rc=0
	shift
	"$D" --print-plan "$@" >"$LL_TMP/$name.json" 2>"$LL_TMP/$name.err" || rc=$?
	[ "$rc" = 0 ] || fail "$name: --print-plan $* exited $rc: $(cat "$LL_TMP/$name.err")"
	[ ! -s "$LL_TMP/$name.err" ] || fail "$name: said something: $(cat "$LL_TMP/$name.err")"
	[ "$(jq -s length "$LL_TMP/$name.json")" = 1 ] || fail "$name: not one JSON object"
}

# 1. a closed loop: the defaults filled in
plan closed tcp://127.0.0.1:7000 -n 1000
J=$LL_TMP/closed.json
expect_json "closed: loop" "$J" .loop closed
expect_json "closed: rate" "$J" '.rate == null' true
expect_json "closed: duration" "$J" '.duration_s == null' true
expect_json "closed: requests" "$J" .requests 1000
expect_json "closed: connections (default)" "$J" .connections 1
expect_json "closed: timeout (default)" "$J" .timeout_s 5
expect_json "closed: interval (default)" "$J" .interval_s 1
expect_json "closed: model" "$J" .conn_model keep-alive
expect_json "closed: response" "$J" .response.rule refserver
expect_json "closed: target" "$J" '.target | "\(.scheme) \(.host) \(.port) \(.address)"' \
	"tcp 127.0.0.1 7000 127.0.0.1:7000"

# 2. an open loop, suffixes and durations resolved, the start paced
plan open http://127.0.0.1:8080/api -c 10k -t 4 -d 2m --rate 50k --connect-rate 500 \
	--reconnect-every 100 --timeout 250ms --warmup 5s -m POST --body '{"a":1}' \
	--json "$LL_TMP/never.json" --hdr-log "$LL_TMP/never.hlog" -p 1
J=$LL_TMP/open.json
expect_json "open: loop" "$J" .loop open
expect_json "open: rate" "$J" .rate 50000
expect_json "open: connect rate" "$J" .connect_rate 500
expect_json "open: connections" "$J" .connections 10000
expect_json "open: threads" "$J" .threads 4
expect_json "open: duration" "$J" .duration_s 120
expect_json "open: warm-up" "$J" .warmup_s 5
expect_json "open: timeout" "$J" .timeout_s 0.25
expect_json "open: model" "$J" '"\(.conn_model) \(.reconnect_every)"' "reconnect-every 100"
expect_json "open: method and body" "$J" '"\(.method) \(.body_bytes)"' "POST 7"
expect_json "open: path" "$J" .target.path /api
expect_json "open: loopback" "$J" .target.loopback true
expect_json "open: --json named" "$J" .json "$LL_TMP/never.json"
[ ! -e "$LL_TMP/never.json" ] && [ ! -e "$LL_TMP/never.hlog" ] ||
	fail "--print-plan created an output file"
# every option the driver takes has its key, and each key is in the plan
n=$(jq '.option_keys | length' "$J")
[ "$n" -ge 47 ] || fail "only $n options in option_keys"
missing=$(jq -r '. as $p | .option_keys | to_entries[] | select($p | has(.value) | not) | .key' "$J")
[ -z "$missing" ] || fail "options whose key is not in the plan: $missing"
for opt in $("$D" --help | grep -oE '^ +(-[a-zA-Z], )?--[a-z0-9-]+' | grep -oE -- '--[a-z0-9-]+' |
	sort -u | grep -vE -- '^--(help|version|print-plan)$'); do
	jq -e --arg o "$opt" '.option_keys | has($o)' "$J" >/dev/null ||
		fail "--help lists $opt, the plan has no key for it"
done

# 3. udp, a shard of three, two source addresses
plan udp udp://127.0.0.1:5353 -c 8 -d 1s --shard 2/3 --source-addr 127.0.0.2,127.0.0.3 \
	--rcvbuf 65536
J=$LL_TMP/udp.json
expect_json "udp: scheme" "$J" .target.scheme udp
expect_json "udp: shard" "$J" '"\(.shard.index)/\(.shard.count)"' 2/3
expect_json "udp: sources" "$J" '.source_addrs | join(",")' 127.0.0.2,127.0.0.3
expect_json "udp: rcvbuf" "$J" .rcvbuf 65536

# 4. refused as for a run: exit 64, one line, nothing on stdout
while read -r args; do
	rc=0
	# shellcheck disable=SC2086
	"$D" --print-plan $args >"$LL_TMP/bad.out" 2>"$LL_TMP/bad.err" || rc=$?
	[ "$rc" = 64 ] || fail "'$args' exited $rc, expected 64"
	[ "$(wc -l <"$LL_TMP/bad.err")" = 1 ] || fail "'$args': not one line: $(cat "$LL_TMP/bad.err")"
	[ ! -s "$LL_TMP/bad.out" ] || fail "'$args' printed a plan"
done <<'ARGS'
tcp://127.0.0.1:7000 -d 1s --connect-rate 0
tcp://127.0.0.1:7000 -d 1s -c 0
tcp://127.0.0.1:7000 -d 1s --no-such-option
udp://127.0.0.1:9 -d 1s --new-conn
tcp://127.0.0.1:7000
ARGS
grep -q -- '-n REQUESTS or -d DURATION' "$LL_TMP/bad.err" || fail "no reason: $(cat "$LL_TMP/bad.err")"

# 5. no socket: the plan is parse and print only
command -v strace >/dev/null || skip "strace is not installed (the plan's JSON checked; not its syscalls)"
strace -f -qq -e trace=socket,connect,sendto -o "$LL_TMP/strace" "$D" --print-plan \
	http://127.0.0.1:8080/ -c 100 -d 10s --rate 1k >/dev/null || fail "--print-plan under strace"
if grep -E 'socket\(|connect\(|sendto\(' "$LL_TMP/strace"; then
	fail "--print-plan opened a socket or sent"
fi
strace -f -qq -e trace=socket -o "$LL_TMP/strace_run" "$D" tcp://127.0.0.1:"$(free_port)" -n 1 \
	-q >/dev/null 2>&1 || true
grep -q 'socket(' "$LL_TMP/strace_run" || fail "strace saw no socket of a real run: the check is blind"
pass "--print-plan resolves closed, open and udp plans, refuses bad input in one line, opens nothing"
