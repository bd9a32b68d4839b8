#!/bin/bash
# Bad values for the observer's and the refserver's flags are refused before any work:
# exit 64, one line, nothing loaded. `-i 1ns` used to run a busy loop (2 s of system CPU in 2 s):
# the interval is 100ms to 1h; a duration 100ms or more; path options are not empty; a refserver
# stall is at most a minute (it holds SIGTERM's exit). The healthy edges still run: -i 100ms for
# 1 s ticks ten times at a small CPU cost.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-observer loadlens-refserver
obs=$LOADLENS_BIN/loadlens-observer
rs=$LOADLENS_BIN/loadlens-refserver

refused() { # refused WHAT CMD...: exit 64 within 2 s, one line on stderr, nothing started
	local what=$1 rc=0
	shift
	timeout -k 1 2 "$@" >"$LL_TMP/r.out" 2>"$LL_TMP/r.err" || rc=$?
	[ "$rc" = 64 ] || fail "$what: exited $rc, expected 64: $(head -c 300 "$LL_TMP/r.err")"
	[ "$(wc -l <"$LL_TMP/r.err")" = 1 ] || fail "$what: not one line: $(head -c 400 "$LL_TMP/r.err")"
	grep -q "observing\|listening" "$LL_TMP/r.err" && fail "$what: started before refusing"
	echo "ok: $what: $(cat "$LL_TMP/r.err")"
}
refused "-i 1ns" "$obs" -p 1 -i 1ns
refused "-i 99ms" "$obs" -p 1 --interval 99ms
refused "-i 2h" "$obs" -p 1 -i 2h
refused "-d 1ns" "$obs" -p 1 -d 1ns
refused "-d 0" "$obs" -p 1 -d 0
for opt in --json --ndjson --trace --cgroup --netns; do
	refused "$opt ''" "$obs" -p 1 "$opt" ""
done
refused "LOADLENS_OBSERVER_DETACH=recv" env LOADLENS_OBSERVER_DETACH=recv "$obs" -p 1
refused "LOADLENS_OBSERVER_DETACH with --arrivals sampled" env LOADLENS_OBSERVER_DETACH=arrival \
	"$obs" -p 1 -i 1s --arrivals sampled
refused "refserver --stall 1s:2m" "$rs" --stall 1s:2m
refused "refserver --stall 2h:1s" "$rs" --stall 2h:1s
refused "refserver --trace ''" "$rs" --trace ""
ln -s "$LL_TMP/elsewhere.csv" "$LL_TMP/trace_link.csv"
refused "refserver --trace through a link" "$rs" --trace "$LL_TMP/trace_link.csv"
[ ! -e "$LL_TMP/elsewhere.csv" ] || fail "refserver --trace wrote through a link"

require_bpf
# the edge that is allowed runs, ticks, and costs little: its CPU beyond a 1 s interval's over
# the same second (both pay the start-up alike: loading and verifying the programs, which grow
# with the observer; 0.8-1.3 s here), well under the 1 s a busy loop took
port=$(free_port)
cpu_of() { # cpu_of INTERVAL: user+system seconds of a 1 s run
	/usr/bin/time -f "%U %S" -o "$LL_TMP/time" "$obs" -p "$port" -i "$1" -d 1s \
		--json "$LL_TMP/o$1.json" >"$LL_TMP/o$1.out" 2>"$LL_TMP/o$1.err" ||
		fail "-i $1 -d 1s exited $?: $(tail -3 "$LL_TMP/o$1.err")"
	awk '{print $1 + $2}' "$LL_TMP/time"
}
cpu=$(cpu_of 100ms)
base=$(cpu_of 1s)
echo "-i 100ms for 1 s: $(grep -c . "$LL_TMP/o100ms.out") lines of output, CPU ${cpu}s; -i 1s: ${base}s (user+system, start-up included)"
awk -v c="$cpu" -v b="$base" 'BEGIN { exit !(c - b < 0.5) }' ||
	fail "-i 100ms spent ${cpu}s of CPU in 1 s, ${base}s at -i 1s"
pass "bad flag values refused before any work; the 100ms edge runs"
