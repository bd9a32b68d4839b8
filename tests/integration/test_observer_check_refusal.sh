#!/bin/bash
# --check fails when the kernel refuses the observer's programs: it loads what a run
# loads, so a refusal is a MISS line and exit 1, never "ok"; doctor says the observer cannot run
# and why; a run stops with one line. No libbpf dump in any of them (-v shows it). The refusal
# is made by refuse_bpf.py (a seccomp filter on bpf(BPF_PROG_LOAD) for that command only).
source "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer
/usr/bin/python3 -c 'import seccomp' 2>/dev/null || skip "needs python3-seccomp (Debian)"
OBS="$LOADLENS_BIN/loadlens-observer"
REFUSE="/usr/bin/python3 $(dirname "$0")/refuse_bpf.py --"

# healthy: the same checks pass here
"$OBS" --check >"$LL_TMP/ok.out" 2>"$LL_TMP/ok.err" || { cat "$LL_TMP/ok.out"; fail "--check failed on the healthy host"; }
grep -q '^ok    the observer.s BPF programs load and verify on this kernel: [0-9]* programs' \
	"$LL_TMP/ok.out" || fail "healthy --check: no load line"

# refused: text
rc=0
$REFUSE "$OBS" --check >"$LL_TMP/no.out" 2>"$LL_TMP/no.err" || rc=$?
cat "$LL_TMP/no.out" "$LL_TMP/no.err"
[ "$rc" = 1 ] || fail "--check exited $rc where every program was refused"
grep -q '^MISS  the observer.s BPF programs load and verify on this kernel: the kernel refused to load them: Permission denied' \
	"$LL_TMP/no.out" || fail "no MISS line for the refusal"
grep -q '^off   every feature: the programs did not load' "$LL_TMP/no.out" ||
	fail "features table claims something ran"
grep -q '^ok    accepted connections' "$LL_TMP/no.out" && fail "a feature reads ok"
grep -q '^libbpf: ' "$LL_TMP/no.err" && fail "libbpf's log without -v"
# refused: JSON says the same
rc=0
$REFUSE "$OBS" --check=json >"$LL_TMP/no.json" 2>/dev/null || rc=$?
[ "$rc" = 1 ] || fail "--check=json exited $rc"
[ "$(jget "$LL_TMP/no.json" '[.checks[] | select(.required and (.ok | not))] | length')" = 1 ] ||
	fail "JSON: $(jq -c .checks "$LL_TMP/no.json")"
[ "$(jget "$LL_TMP/no.json" '.features | length')" = 0 ] || fail "JSON lists features"
# -v shows libbpf's log
$REFUSE "$OBS" --check -v >/dev/null 2>"$LL_TMP/v.err" || true
grep -q '^libbpf: ' "$LL_TMP/v.err" || fail "-v: no libbpf log"

# doctor: cannot run, with the reason
rc=0
$REFUSE "$LOADLENS_SRC/tools/loadlens" doctor >"$LL_TMP/doc.out" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$LL_TMP/doc.out"; fail "doctor exited $rc"; }
grep -q '^the observer cannot run here: .*the kernel refused to load them' "$LL_TMP/doc.out" ||
	{ tail -3 "$LL_TMP/doc.out"; fail "doctor: no reason"; }

# a run: one line, exit 1, no dump
rc=0
$REFUSE "$OBS" --port 1 --duration 2 >"$LL_TMP/run.out" 2>"$LL_TMP/run.err" || rc=$?
cat "$LL_TMP/run.err"
[ "$rc" = 1 ] || fail "the run exited $rc"
# notes may come first (tracefs mounted; before 6.3, request timing off: its probe was refused too)
[ "$(grep -vc '^loadlens-observer: note: ' "$LL_TMP/run.err")" = 1 ] || fail "more than one error line"
grep -q '^loadlens-observer: cannot load BPF programs: Permission denied' "$LL_TMP/run.err" ||
	fail "the run's line"
pass "--check, doctor and a run refuse cleanly when the kernel refuses the programs"
