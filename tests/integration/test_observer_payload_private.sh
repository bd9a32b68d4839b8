#!/bin/bash
# Payload sampling reads the bytes a server just read (pipelining in one write), so those
# bytes must not leave the kernel: while redis-benchmark -P 16 runs, the pipelining note fires
# (sampling worked), the observer's own descriptor of the scratch map pl_buf is write-only
# (O_WRONLY in /proc/PID/fdinfo), and the buffer reads back all zeros (cleared after each count).
# Bad values of the environment's switches exit 64.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer
for c in redis-server redis-benchmark bpftool jq; do
	command -v "$c" >/dev/null || skip "needs $c"
done
[ "$(uname -m)" = x86_64 ] || skip "payload sampling is x86-64 only"

# its switches: a bad value is one line and exit 64, not ignored
for e in LOADLENS_OBSERVER_PAYLOAD=no LOADLENS_OBSERVER_PAYLOAD_PERIOD_US=5ms \
	LOADLENS_OBSERVER_MAX_TARGETS=0 LOADLENS_OBSERVER_H2_FRAMES=5000; do
	env "$e" "$LOADLENS_BIN/loadlens-observer" --port 1 -d 1s >/dev/null 2>"$LL_TMP/env.err"
	rc=$?
	[ "$rc" = 64 ] && [ "$(wc -l <"$LL_TMP/env.err")" = 1 ] && grep -q "invalid ${e%%=*}" "$LL_TMP/env.err" ||
		fail "$e: exit $rc, '$(head -c 200 "$LL_TMP/env.err")'"
done
p=$(free_port)
start redis redis-server --port "$p" --bind 127.0.0.1 --save '' --appendonly no
for _ in $(seq 1 50); do redis-cli -p "$p" ping 2>/dev/null | grep -q PONG && break; sleep 0.1; done
start_observer obs "$p"
timeout 60 redis-benchmark -p "$p" -c 4 -n 100000 -t set,get -P 16 -q >"$LL_TMP/rb.out" 2>&1 ||
	fail "redis-benchmark failed: $(tail -2 "$LL_TMP/rb.out")"
sleep 1.5 # an interval ends after the load: the finding is judged then

# the observer's pl_buf: the map id its fds name, then that fd's open flags
pid=$PID_obs
id=
for f in /proc/"$pid"/fdinfo/*; do
	m=$(awk '/^map_id:/ {print $2}' "$f" 2>/dev/null)
	[ -n "$m" ] || continue
	if bpftool -j map show id "$m" 2>/dev/null | jq -e '.name == "pl_buf"' >/dev/null; then
		id=$m
		flags=$(awk '/^flags:/ {print $2}' "$f")
		break
	fi
done
[ -n "$id" ] || fail "no pl_buf map among the observer's descriptors"
# octal open flags: the access mode is the low 2 bits; 1 = O_WRONLY
[ $((8#$flags & 3)) = 1 ] || fail "the observer's pl_buf descriptor is not write-only (flags $flags)"
nz=$(bpftool -j map lookup id "$id" key 0 0 0 0 |
	jq '[.values[].value[] | select(. != "0x00")] | length')
[ "$nz" = 0 ] || fail "pl_buf holds $nz non-zero payload bytes after the samples"

stop obs
kill "$PID_redis" 2>/dev/null
n=$(jget "$LL_TMP/obs.json" '[.request_timing.slots[] | select(.proto == "tcp") | .payload.sampled_reads] | add')
grep -q "sampled reads held several requests" "$LL_TMP/obs.err" ||
	fail "no pipelining note from the samples ($n samples)"
pass "pl_buf: the observer's descriptor is write-only (flags $flags), 0 payload bytes left after $n samples, and the pipelining note fired"
