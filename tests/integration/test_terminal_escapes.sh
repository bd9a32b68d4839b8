#!/bin/bash
# Nothing from outside reaches a terminal raw: the observer's and the refserver's
# diagnostics pass one escaping function (lib/quote.c, ll_quote), so an argument with control
# characters is echoed escaped and a 100 KB one cut to one line that still says what was expected;
# and a process named "\x1b[2J\x1b[31mPWN\x07" that the observer watches exit is named escaped in
# its live finding on stderr and in its summary on stdout.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-observer loadlens-refserver
obs=$LOADLENS_BIN/loadlens-observer
rs=$LOADLENS_BIN/loadlens-refserver
esc=$'\x1b'
big=$(head -c 100000 /dev/zero | tr '\0' 9)

# raw BYTES FILE: fail when FILE holds any of the control characters (ESC, BEL, CR)
no_raw() {
	if LC_ALL=C grep -q $'[\x1b\x07\r]' "$1"; then
		fail "$2 printed a raw control character: $(cat -v "$1" | head -3)"
	fi
}
# usage CMD...: exit 64 with one line on stderr, nothing raw in it, under 2100 bytes
usage() {
	local rc=0
	"$@" >"$LL_TMP/u.out" 2>"$LL_TMP/u.err" || rc=$?
	[ "$rc" = 64 ] || fail "$(printf '%q ' "$@" | head -c 200) exited $rc, expected 64"
	[ "$(wc -l <"$LL_TMP/u.err")" = 1 ] || fail "not one line: $(cat -v "$LL_TMP/u.err" | head -c 300)"
	no_raw "$LL_TMP/u.err" "$(basename "$1")"
	[ "$(wc -c <"$LL_TMP/u.err")" -lt 2100 ] ||
		fail "$(basename "$1") echoed $(wc -c <"$LL_TMP/u.err") bytes for one argument"
}
usage "$obs" -p $'8\x1b[31m0'
grep -qF 'invalid --port '"'"'8\x1b[31m0'"'" "$LL_TMP/u.err" || fail "escaped form missing: $(cat "$LL_TMP/u.err")"
usage "$obs" --port 80 --metrics $'\x1b[2J:9435'
usage "$obs" --port 80 --interval $'1\x07s'
usage "$obs" -p "$big"
grep -q 'chars cut].*(expected 1-65535)' "$LL_TMP/u.err" || fail "a 100 KB --port: $(head -c 300 "$LL_TMP/u.err")"
usage "$rs" --listen $'127.0.0.1:8\x1b[31m0'
grep -qF '\x1b[31m' "$LL_TMP/u.err" || fail "refserver: escaped form missing: $(cat "$LL_TMP/u.err")"
usage "$rs" --listen "127.0.0.1:$big"
usage "$rs" --proto $'tcp\r\x1b[2K'
usage "$rs" --workers "$big"
echo "ok: control characters in arguments are escaped, a 100 KB argument is cut to one line"

require_bpf
command -v python3 >/dev/null || skip "no python3"
port=$(free_port)
# a listener named ESC[2J ESC[31m PWN BEL (13 bytes: a whole comm), which exits after 3 s
start evil python3 -c '
import ctypes, socket, sys, time
ctypes.CDLL(None).prctl(15, b"\x1b[2J\x1b[31mPWN\x07", 0, 0, 0)
s = socket.socket(); s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen()
print("ready", flush=True); time.sleep(3)' "$port"
for _ in $(seq 50); do grep -q ready "$LL_TMP/evil.out" && break; sleep 0.1; done
[ "$(cat "/proc/$PID_evil/comm")" = "${esc}[2J${esc}[31mPWN"$'\x07' ] || fail "cannot set the comm"
start obs "$obs" --pid "$PID_evil" --interval 500ms --duration 6s
wait "$PID_obs" || fail "the observer exited $?: $(cat "$LL_TMP/obs.err")"
grep -F 'PWN' "$LL_TMP/obs.err" | head -2
grep -qF 'targets: target pid '"$PID_evil"' (\x1b[2J\x1b[31mPWN\x07) exited' "$LL_TMP/obs.err" ||
	fail "the live finding does not name the process escaped: $(cat -v "$LL_TMP/obs.err")"
grep -qF '(\x1b[2J\x1b[31mPWN\x07) exited' "$LL_TMP/obs.out" ||
	fail "the summary does not name the process escaped: $(grep -a PWN "$LL_TMP/obs.out" | cat -v)"
no_raw "$LL_TMP/obs.err" "the observer (stderr)"
no_raw "$LL_TMP/obs.out" "the observer (stdout)"
pass "arguments and process names reach the terminal escaped"
