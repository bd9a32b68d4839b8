#!/usr/bin/env bash
# --hdr-log writes the HdrHistogram interval log. An independent reader written from the
# format's specification (hdrlog_decode.py: base64, zlib, the V2 encoding) decodes it; its counts,
# bucket by bucket, and its percentiles equal the driver's JSON. A symbolic link or an unwritable
# path is refused at start with exit 64.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"
PY=/usr/bin/python3
DEC=$(dirname "$0")/hdrlog_decode.py

P=$(free_port)
refserver_up rs "$P" --proto tcp --service-time 300us --service-dist exp --service-mode sleep
driver h "tcp://127.0.0.1:$P" -c 8 -d 3s --rate 2000 --interval 500ms --hdr-log "$LL_TMP/h.hlog" -q
stop rs
head -5 "$LL_TMP/h.hlog"
$PY "$DEC" "$LL_TMP/h.hlog" >"$LL_TMP/dec.json" || fail "the decoder could not read the log"
jq -c '.params, [.intervals[] | .count]' "$LL_TMP/dec.json"
grep -q '^#\[StartTime: [0-9.]* (seconds since epoch)' "$LL_TMP/h.hlog" || fail "no #[StartTime:]"
grep -q '^#\[BaseTime: [0-9.]* (seconds since epoch)\]' "$LL_TMP/h.hlog" || fail "no #[BaseTime:]"
n=$(jget "$LL_TMP/dec.json" '.intervals | length')
[ "$n" -ge 6 ] && [ "$n" -le 9 ] || fail "$n interval lines for 3 s at 500 ms"
jc=$(jget "$LL_TMP/h.json" .latency.count)
dc=$(jget "$LL_TMP/dec.json" .total.count)
[ "$jc" -gt 4000 ] || fail "only $jc responses"
[ "$dc" = "$jc" ] || fail "the log holds $dc latencies, the JSON $jc"
# bucket for bucket: the conversion is exact
jq -S '[.latency.buckets[] | {key: (.[0] | tostring), value: .[1]}] | from_entries' \
	"$LL_TMP/h.json" >"$LL_TMP/jb.json"
jq -S '.total.buckets' "$LL_TMP/dec.json" >"$LL_TMP/db.json"
cmp -s "$LL_TMP/jb.json" "$LL_TMP/db.json" || fail "the log's buckets differ from the JSON's"
for p in p50 p90 p99 p999; do
	jv=$(jget "$LL_TMP/h.json" ".latency.$p")
	lo=$(jget "$LL_TMP/dec.json" ".total.$p[0]")
	hi=$(jget "$LL_TMP/dec.json" ".total.$p[1]")
	[ "$jv" -ge "$lo" ] && [ "$jv" -le "$hi" ] ||
		fail "$p: the JSON's $jv ns is outside the log's [$lo, $hi]"
	echo "ok: $p JSON $jv ns, log [$lo, $hi] ns"
done
# the interval max: the largest equals the JSON's max (to the log's microsecond)
mx=$(jget "$LL_TMP/dec.json" '[.intervals[].max_ms] | max')
jm=$(jget "$LL_TMP/h.json" .latency.max)
awk -v a="$mx" -v b="$jm" 'BEGIN { d = a * 1e6 - b; if (d < 0) d = -d; exit !(d <= 500) }' ||
	fail "interval max $mx ms, JSON max $jm ns"
pass "hdr log: $n intervals, $dc latencies = the JSON's, every bucket and percentile equal"

# at start: a symbolic link is not followed, a directory not written; exit 64
ln -s "$LL_TMP/h.json" "$LL_TMP/link"
DRIVER_RC=64 driver bad1 "tcp://127.0.0.1:$P" -n 1 --hdr-log "$LL_TMP/link" -q
grep -q "symbolic link" "$LL_TMP/bad1.err" || fail "no word on the symbolic link"
DRIVER_RC=64 driver bad2 "tcp://127.0.0.1:$P" -n 1 --hdr-log /proc/nonexistent/x -q
DRIVER_RC=64 driver bad3 "tcp://127.0.0.1:$P" -n 1 --hdr-log "$LL_TMP/x" --interval 0 -q
[ "$(wc -l <"$LL_TMP/bad2.err")" = 1 ] || fail "more than one line on stderr for a bad --hdr-log"
pass "--hdr-log: symbolic link, unwritable path, --interval 0 refused with exit 64"
