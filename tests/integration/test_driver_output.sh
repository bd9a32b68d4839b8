#!/usr/bin/env bash
# --json is opened before the run (exit 64 at once when it cannot be
# written, never through a symbolic link); no bottleneck verdict on a tiny run; durations like
# 1.00s; control characters escaped and long arguments cut in error lines and the banner.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
D="$LOADLENS_BIN/loadlens-driver"
P=$(free_port)
refserver_up srv "$P" --proto tcp

# --json that cannot be written: one line, exit 64, before any connection (a 30 s run)
for bad in /nonexistent/dir/x.json "$LL_TMP/link.json"; do
	ln -sf "$LL_TMP/victim.json" "$LL_TMP/link.json"
	rc=0
	t0=$(date +%s%N)
	timeout 20 "$D" "tcp://127.0.0.1:$P" -d 30s -q --json "$bad" >"$LL_TMP/j.out" 2>"$LL_TMP/j.err" ||
		rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	[ "$rc" = 64 ] || fail "--json $bad: exit $rc, expected 64"
	[ "$ms" -lt 5000 ] || fail "--json $bad: took $ms ms, the run must not start"
	[ "$(wc -l <"$LL_TMP/j.err")" = 1 ] || fail "--json $bad: not one line: $(cat "$LL_TMP/j.err")"
	grep -q -- "--json" "$LL_TMP/j.err" || fail "--json $bad: the line does not name --json"
done
grep -q "symbolic link" "$LL_TMP/j.err" || fail "symlink refusal does not say why"
[ -e "$LL_TMP/victim.json" ] && fail "--json followed a symbolic link"
# an existing regular file is replaced by the results
echo stale >"$LL_TMP/ok.json"
driver ok "tcp://127.0.0.1:$P" -n 10 -q
[ "$(jget "$LL_TMP/ok.json" .requests)" = 10 ] || fail "--json did not hold the results"

# a one-request run (its one thread is busy all of its few microseconds): no verdict
driver one "tcp://127.0.0.1:$P" -n 1 -q
grep -q '^warning:' "$LL_TMP/one.out" && fail "1 request: $(grep '^warning' "$LL_TMP/one.out")"
[ "$(jq -r .driver.bottleneck "$LL_TMP/one.json")" = null ] ||
	fail "1 request: JSON has a bottleneck verdict"

# a 1 s run: "duration 1.00s" (not 1e+03ms)
driver sec "tcp://127.0.0.1:$P" -d 1s -q
# (counted from the worker's start, it is 995ms-1.0xs: three digits, no exponent either way;
# the 999.5 ms boundary itself is unit/driver_report's)
grep -Eq '^  duration +([0-9]{3}ms|[1-9]\.[0-9]{2}s)$' "$LL_TMP/sec.out" ||
	fail "1 s run: $(grep duration "$LL_TMP/sec.out")"
grep -q 'e+0' "$LL_TMP/sec.out" && fail "an exponent in the summary: $(grep 'e+0' "$LL_TMP/sec.out")"

# control characters are escaped, a 100 KB URL is cut
rc=0
"$D" "$(printf 'tcp://127.0.0.1:%s\033[2J\r' "$P")" -n 1 >"$LL_TMP/c.out" 2>"$LL_TMP/c.err" || rc=$?
[ "$rc" = 64 ] || fail "URL with control characters: exit $rc"
grep -q $'\033' "$LL_TMP/c.err" && fail "an escape character echoed raw"
grep -q $'\r' "$LL_TMP/c.err" && fail "a carriage return echoed raw"
grep -qF '\x1b[2J\r' "$LL_TMP/c.err" || fail "control characters not shown escaped: $(cat "$LL_TMP/c.err")"
long="http://127.0.0.1:$P/$(head -c 100000 /dev/zero | tr '\0' a)"
rc=0
"$D" "gopher${long#http}" -n 1 >"$LL_TMP/l.out" 2>"$LL_TMP/l.err" || rc=$?
[ "$rc" = 64 ] || fail "100 KB URL: exit $rc"
[ "$(wc -c <"$LL_TMP/l.err")" -lt 1024 ] || fail "100 KB URL echoed in $(wc -c <"$LL_TMP/l.err") bytes"
grep -q 'chars cut' "$LL_TMP/l.err" || fail "100 KB URL: the cut is not said"
grep -q 'expected tcp://' "$LL_TMP/l.err" || fail "100 KB URL: the explanation was cut away"
pass "--json checked at start, no verdict on tiny runs, 1.00s, escaped and cut arguments"
