#!/bin/bash
# Bad input is refused before any work: each case below exits 64 with one line on
# stderr naming the problem, within seconds (the driver cases would run 30 s against a live
# server, so a refusal after the work times out), with no traceback and nothing written: no
# output file, no output directory (TMPDIR is a scratch directory that must stay empty).
# Inputs that used to hang or fill memory: a FIFO or /dev/zero as --payload, --requests-file,
# a merge input, a report input or --observer-json; /dev/full as --json; a sweep whose rates
# could never reach the last one.
source "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
[ "$(id -u)" = 0 ] || skip "needs root (loadlens run checks its options as root, before the observer)"
LL="$LOADLENS_SRC/tools/loadlens"
D="$LOADLENS_BIN/loadlens-driver"
P=$(free_port)
refserver_up srv "$P" --proto http
U="http://127.0.0.1:$P/"
W=$LL_TMP/work
mkdir -p "$W/tmp"
mkfifo "$W/fifo"
echo 'not json' >"$W/notjson"
printf '{"tool": "loadlens-observer", "x": "\xff\xfe"}' >"$W/latin1.json"
touch "$W/afile"
# gRPC: a .proto with a syntax error on line 3, one with streaming methods, a message file that
# names a field its type lacks
printf 'syntax = "proto3";\npackage b;\nmessage M { string s = 1 }\n' >"$W/bad.proto"
printf 'syntax = "proto3";\npackage s;\nmessage M {}\nservice W { rpc Watch(M) returns %s; }\n' \
	'(stream M)' >"$W/stream.proto"
printf '{"key": "a", "vlaue": "dmFs"}\n' >"$W/put.json"
KV="$LOADLENS_SRC/tests/data/kv.proto"
G="grpc://127.0.0.1:$P"
before=$(cd "$W" && find . | sort)

n=0
# refused EXPECTED CMD ARGS...: exit 64 at once, one line containing EXPECTED, nothing written
refused() {
	local want=$1 rc=0 t0 ms
	shift
	n=$((n + 1))
	t0=$(date +%s%N)
	(cd "$W" && TMPDIR="$W/tmp" timeout 10 "$@" </dev/null >"$LL_TMP/out" 2>"$LL_TMP/err") ||
		rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	local what="case $n ($(printf '%q ' "${@:2}"))"
	[ "$rc" = 64 ] || fail "$what: exit $rc, not 64: $(head -c 400 "$LL_TMP/err")"
	[ "$ms" -lt 8000 ] || fail "$what: took $ms ms: not refused before the work"
	[ "$(wc -l <"$LL_TMP/err")" = 1 ] || fail "$what: not one line: $(head -c 600 "$LL_TMP/err")"
	grep -qF -- "$want" "$LL_TMP/err" || fail "$what: '$want' not in: $(cat "$LL_TMP/err")"
	grep -qE 'Traceback|internal error' "$LL_TMP/err" && fail "$what: $(cat "$LL_TMP/err")"
	[ "$(cd "$W" && find . | sort)" = "$before" ] ||
		fail "$what: wrote files: $(cd "$W" && find . | sort | comm -13 <(echo "$before") -)"
	echo "ok $what: $(cat "$LL_TMP/err")"
}

# the driver: inputs that are not regular files, outputs that are not either
refused "not a regular file" "$D" "tcp://127.0.0.1:$P" -d 30s --response resp \
	--requests-file /dev/zero
refused "not a regular file" "$D" "$U" -d 30s --requests-file fifo
refused "not a regular file" "$D" "$U" -d 30s -m POST --payload fifo
refused "not a regular file" "$D" "$U" -d 30s -m POST --payload /dev/zero
refused "not a regular file" "$D" "$U" -d 30s --json /dev/full
refused "not a regular file" "$D" merge fifo
refused "not a regular file" "$D" merge /dev/zero
refused "expected" "$D" merge notjson --json merged.json
# the driver's gRPC messages: the .proto parsed, the method found and unary, the JSON encoded,
# all at start (a refserver on the port: no call is ever made)
refused 'bad.proto:3:26: Expected ";".' "$D" "$G/b.S/M" -d 30s --proto-file bad.proto
refused "--proto-file nope.proto: No such file or directory" "$D" "$G/kv.Store/Put" -d 30s \
	--proto-file nope.proto
refused "not a regular file" "$D" "$G/kv.Store/Put" -d 30s --proto-file fifo
refused "no service kv.Stor in" "$D" "$G/kv.Stor/Put" -d 30s --proto-file "$KV"
refused "no method Pt in service kv.Store (it has Put, Get)" "$D" "$G/kv.Store/Pt" -d 30s \
	--proto-file "$KV"
refused "/s.W/Watch is a server-streaming method" "$D" "$G/s.W/Watch" -d 30s \
	--proto-file stream.proto
refused "kv.PutRequest from --message: kee: Cannot find field." "$D" "$G/kv.Store/Put" -d 30s \
	--proto-file "$KV" --message '{"kee": "a"}'
refused "vlaue: Cannot find field." "$D" "$G/kv.Store/Put" -d 30s --proto-file "$KV" \
	--message-file put.json
refused "(key): invalid value 7 for type TYPE_STRING" "$D" "$G/kv.Store/Put" -d 30s \
	--proto-file "$KV" --message '{"key": 7}'
refused "--message-file nope.json: " "$D" "$G/kv.Store/Put" -d 30s --proto-file "$KV" \
	--message-file nope.json
refused "not a regular file" "$D" "$G/kv.Store/Put" -d 30s --proto-file "$KV" \
	--message-file /dev/zero
refused "are for grpc:// and grpcs:// targets" "$D" "$U" -d 30s --proto-file "$KV"
# more bad lines: two bodies, an empty -c, a port nobody is told of, a kernel file as
# output, a target longer than the driver takes
O="$LOADLENS_BIN/loadlens-observer"
refused "give one" "$D" "$U" -d 30s -m POST --body a --body-file afile
refused "give one" "$D" "$U" -d 30s -m POST --body-file afile --body a
# (loadlens reads its values through the driver: the driver's own line)
refused "-c : not a number" "$LL" run "$U" -c ""
refused "-c : not a number" "$LL" sweep "$U" -c ""
refused "port 0" "$O" --port "$P" -d 30s --metrics 0
refused "port 0" "$O" --port "$P" -d 30s --metrics 127.0.0.1:0
refused "a kernel file" "$O" --port "$P" -d 30s --ndjson /proc/self/status
refused "a kernel file" "$D" "$U" -d 30s --json /proc/self/status
refused "longer than the driver takes" "$LL" run "$U$(head -c 100000 /dev/zero | tr '\0' a)" -c 1
# a 100 KB value is named in a short line (its middle cut), the rest of the line whole
for bad in "--port" "--listen"; do
	bin=$O
	[ "$bad" = --listen ] && bin=$LOADLENS_BIN/loadlens-refserver
	refused "chars cut" "$bin" "$bad" "$(head -c 100000 /dev/zero | tr '\0' 1)"
	[ "$(wc -c <"$LL_TMP/err")" -lt 400 ] ||
		fail "$bad of 100 KB echoed in $(wc -c <"$LL_TMP/err") bytes"
done
# sweep: rate arithmetic that could never end (a rate is the driver's, 0.001 to 1e8/s: at most
# 37 doublings), or a sweep with no time
refused "--rate 0: expected requests/s in 0.001..1e8" "$LL" sweep "$U" --rate-start 0 --rate-max 10
refused "the first is above the last" "$LL" sweep "$U" --rate-start 1000 --rate-max 10
refused "--rate 0.0000000000001: expected" "$LL" sweep "$U" --rate-start 0.0000000000001 \
	--rate-max 100M
refused "--time-limit" "$LL" sweep "$U" --time-limit 0
refused "--max-c" "$LL" sweep "$U" --max-c 0
# doctor: every option checked, whether or not it makes a plan
refused "-c" "$LL" doctor -c -1
refused "-c" "$LL" doctor -c x
refused "unknown scheme 'gopher'" "$LL" doctor --target gopher://x
refused "--driver: an empty command line" "$LL" doctor --driver ''
# run: ranges, and the observer's JSON read at start
refused "-c 2000000: out of range, must be 1..1000000" "$LL" run "$U" -c 2000000
refused "-c 99999999999: out of range" "$LL" run "$U" -c 99999999999
refused "out of range" "$LL" run "$U" -d 0
refused "bad port '70000'" "$LL" run "$U" --port 70000
refused "not JSON" "$LL" run "$U" -c 1 --observer-json notjson
refused "not a regular file" "$LL" run "$U" -c 1 --observer-json fifo
refused "not a directory" "$LL" run "$U" --out afile
refused "not a regular file" "$LL" run "$U" --json /dev/null
# report: inputs read and checked before the page is written (no empty page left)
refused "not a regular file" "$LL" report fifo -o r.html
refused "not UTF-8" "$LL" report latin1.json -o r.html
refused "not JSON" "$LL" report notjson -o r.html
refused "not JSON" "$LL" report notjson
refused "not a regular file" "$LL" report /dev/zero -o r.html

# what loadlens run echoes is escaped and cut: an escape sequence and a 2,000-byte path in the
# target (a longer one is refused above); the driver's plan, checked before the run, refuses the
# target in its own words (exit 64), escaped and cut as well
echo '{"tool": "loadlens-observer"}' >"$LL_TMP/obs.json"
long=$(head -c 2000 /dev/zero | tr '\0' a)
rc=0
(cd "$W" && TMPDIR="$W/tmp" timeout 60 "$LL" run "$(printf 'http://127.0.0.1:%s/\033[2J\r%s' "$P" \
	"$long")" -c 1 -d 1s --observer-json "$LL_TMP/obs.json" --out "$LL_TMP/o" --no-report \
	>"$LL_TMP/banner.out" 2>"$LL_TMP/banner.err") || rc=$?
head -c 600 "$LL_TMP/banner.err"
echo
grep -q $'\033' "$LL_TMP/banner.err" "$LL_TMP/banner.out" && fail "an escape character echoed raw"
grep -q $'\r' "$LL_TMP/banner.err" && fail "a carriage return echoed raw"
grep -qF '\x1b[2J\r' "$LL_TMP/banner.err" || fail "the banner does not show the escapes"
[ "$rc" = 64 ] || fail "loadlens run with a control character in the target exited $rc, not 64"
grep -q 'chars cut' "$LL_TMP/banner.err" || fail "the 2,000-byte target is not cut"
[ "$(wc -c <"$LL_TMP/banner.err")" -lt 6000 ] ||
	fail "the 2,000-byte target echoed in $(wc -c <"$LL_TMP/banner.err") bytes"
pass "$n bad inputs refused at once: exit 64, one line, nothing written; the banner escaped and cut"
