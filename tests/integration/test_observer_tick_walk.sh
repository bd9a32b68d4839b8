#!/bin/bash
# One tick of the observer walks its folders once, and reads the kernel's state (bpf, /proc,
# netlink) in its read phase only: loadlens-observer-walk (the observer built with
# -finstrument-functions, observer/CMakeLists.txt) runs under strace for 4 ticks of 1 s on a
# refserver that HTTP traffic goes to, with --ndjson and --metrics so that every phase has work;
# tools/tick_walk.py prints each tick's phases with the main thread's reads in each, and fails on
# a folder entered twice in a tick or a read after the read phase (sources/).
. "$(dirname "$0")/lib.sh"
LOADLENS_SRC=${LOADLENS_SRC:-$(cd "$(dirname "$0")/../.." && pwd)}
require_bpf loadlens-refserver loadlens-driver loadlens-observer-walk
require_cmd strace strace addr2line binutils nm binutils jq jq
free_ports port mport

refserver_up srv "$port" --proto http
# traffic all through the run, which loads its BPF objects slowly under strace
start load "$LOADLENS_BIN/loadlens-driver" "http://127.0.0.1:$port/" -c 4 --rate 200 -d 300s -q

rc=0
/usr/bin/python3 "$LOADLENS_SRC/tools/tick_walk.py" --ticks 4 --log "$LL_TMP/walk.strace" \
	--binary "$LOADLENS_BIN/loadlens-observer-walk" -- --port "$port" --interval 1s \
	--duration 4500ms --ndjson "$LL_TMP/obs.ndjson" --metrics "127.0.0.1:$mport" || rc=$?
kill -0 "$PID_load" 2>/dev/null || fail "the driver stopped before the run ended"
iv=$(jq -c 'select(.type == "interval")' "$LL_TMP/obs.ndjson" 2>/dev/null | wc -l)
echo "$iv interval records written"
[ "$rc" = 0 ] || fail "tools/tick_walk.py exited $rc: a tick walks a folder twice or reads" \
	"after its read phase (above)"
[ "$iv" -ge 4 ] || fail "only $iv interval records in the NDJSON"
pass "each tick enters each folder once and reads in sources/ only"
