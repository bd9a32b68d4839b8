#!/bin/bash
# Symbolic and hard link attacks on the files root writes. `nobody` owns an output
# directory (not sticky, so fs.protected_symlinks does not help) and plants links where
# `loadlens run --out DIR`, `--json X`, `report -o X` and the driver's --json/--hdr-log write,
# pointing at a root-owned 0600 file. Unguarded, `run` would write its JSON and HTML through
# `run.json.tmp` and `report.html.tmp`, and the driver through a hard link. Now:
#  - planted temporaries (X.tmp) are never used: the run succeeds, the target is untouched, and a
#    dangling link creates nothing;
#  - an output that is itself a link, or (as root) a file with other hard links, is refused
#    before any work: exit 64, one line;
#  - a directory lltools makes inside --out that was planted as a link is refused, nothing
#    written through it;
#  - new files are regular, 0600.
source "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer loadlens-driver loadlens-refserver
[ -x /usr/bin/python3 ] || skip "no /usr/bin/python3"
id nobody >/dev/null 2>&1 || skip "no user 'nobody' to plant the links"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"
LL="$LOADLENS_SRC/tools/loadlens"
D="$LOADLENS_BIN/loadlens-driver"
P=$(free_port)
refserver_up srv "$P" --proto http
U="http://127.0.0.1:$P/"
echo "fs.protected_symlinks=$(cat /proc/sys/fs/protected_symlinks)" \
	"fs.protected_hardlinks=$(cat /proc/sys/fs/protected_hardlinks)"

chmod 0755 "$LL_TMP"
secret="$LL_TMP/secret"
printf 'root-only contents\n' >"$secret"
chmod 0600 "$secret"
sum0=$(sha256sum <"$secret")
untouched() {
	[ "$(sha256sum <"$secret")" = "$sum0" ] || fail "$1: the root-owned target was written"
	[ "$(stat -c %a:%U:%h "$secret")" = "600:root:$2" ] ||
		fail "$1: the target's mode/owner/links changed: $(stat -c %a:%U:%h "$secret")"
}
as_nobody() { setpriv --reuid nobody --regid nogroup --clear-groups "$@"; }
dir="$LL_TMP/nobodys"
mkdir -m 0755 "$dir"
chown nobody:nogroup "$dir"
plant() { # NAME TARGET: nobody's symlink DIR/NAME -> TARGET
	as_nobody ln -s "$2" "$dir/$1" || fail "nobody cannot plant $1"
}
# new FILE: a regular 0600 file, not a link
new() {
	[ -f "$1" ] && [ ! -L "$1" ] || fail "$1 is not a regular file"
	[ "$(stat -c %a "$1")" = 600 ] || fail "$1 has mode $(stat -c %a "$1"), not 600"
}
# refused WHAT CMD...: exit 64 within 10 s, one line
refused() {
	local what=$1 rc=0
	shift
	timeout 10 "$@" </dev/null >"$LL_TMP/r.out" 2>"$LL_TMP/r.err" || rc=$?
	echo "$what: exit $rc: $(cat "$LL_TMP/r.err")"
	[ "$rc" = 64 ] || fail "$what: exit $rc, expected 64"
	[ "$(wc -l <"$LL_TMP/r.err")" = 1 ] || fail "$what: not one line"
}
have_mpl=1
/usr/bin/python3 -c 'import matplotlib' 2>/dev/null || have_mpl=0

# 1. loadlens run --out DIR: every temporary and child output name planted
for f in run.json.tmp mine.json.tmp level1-observer.out level1-observer.err; do
	plant "$f" "$secret"
done
plant report.html.tmp "$LL_TMP/created" # dangling: must create nothing
rc=0
timeout 120 "$LL" run "$U" -c 1 -d 1s --out "$dir" --json "$dir/mine.json" \
	>"$LL_TMP/run.out" 2>"$LL_TMP/run.err" || rc=$?
[ "$rc" = 0 ] || { cat "$LL_TMP/run.err"; fail "loadlens run in nobody's directory exited $rc"; }
untouched "run --out" 1
[ ! -e "$LL_TMP/created" ] || fail "run --out: the dangling report.html.tmp was followed"
new "$dir/mine.json"
jq -e '.levels | length == 1' "$dir/mine.json" >/dev/null || fail "mine.json holds no level"
new "$dir/level1-observer.err"
for f in run.json.tmp mine.json.tmp report.html.tmp; do
	[ -L "$dir/$f" ] || fail "$f was replaced (it is nobody's; it should be ignored)"
done
if [ "$have_mpl" = 1 ]; then
	new "$dir/report.html"
	# 2. report -o X with X.tmp planted
	plant r.html.tmp "$secret"
	timeout 60 "$LL" report "$dir/mine.json" -o "$dir/r.html" >/dev/null 2>"$LL_TMP/rep.err" ||
		{ cat "$LL_TMP/rep.err"; fail "report -o with a planted r.html.tmp failed"; }
	untouched "report -o" 1
	new "$dir/r.html"
fi
echo "run --out, --json and report -o in nobody's directory: planted links ignored, files 0600"

# 3. outputs that are links or hard links: refused before any work
plant linked.json "$secret"
refused "run --json LINK" "$LL" run "$U" -c 1 -d 1s --out "$dir" --json "$dir/linked.json"
grep -q "symbolic link" "$LL_TMP/r.err" || fail "run --json LINK: not said it is a link"
refused "report -o LINK" "$LL" report "$dir/mine.json" -o "$dir/linked.json"
ln "$secret" "$LL_TMP/hard.json" # as root: a hard link whatever fs.protected_hardlinks says
refused "run --json HARDLINK" "$LL" run "$U" -c 1 --json "$LL_TMP/hard.json"
grep -q "hard links" "$LL_TMP/r.err" || fail "run --json HARDLINK: not said why"
refused "report -o HARDLINK" "$LL" report "$dir/mine.json" -o "$LL_TMP/hard.json"
refused "driver --json HARDLINK" "$D" "$U" -d 30s --json "$LL_TMP/hard.json"
grep -q "hard links" "$LL_TMP/r.err" || fail "driver --json HARDLINK: not said why"
refused "driver --hdr-log HARDLINK" "$D" "$U" -d 30s --interval 1s --hdr-log "$LL_TMP/hard.json"
plant d.json "$secret"
refused "driver --json LINK" "$D" "$U" -d 30s --json "$dir/d.json"
untouched "links refused" 2
rm "$LL_TMP/hard.json"

# 4. the driver's new files: 0600 (they hold the server's answers' figures)
"$D" "$U" -n 20 -q --json "$LL_TMP/drv.json" --interval 1s --hdr-log "$LL_TMP/drv.hlog" \
	>/dev/null 2>&1 || fail "a healthy driver run failed"
new "$LL_TMP/drv.json"
new "$LL_TMP/drv.hlog"

# 5. a directory run makes inside --out, planted as a link to a directory: refused, nothing
#    written through it
dir2="$LL_TMP/nobodys2"
mkdir -m 0755 "$dir2" "$LL_TMP/elsewhere"
chown nobody:nogroup "$dir2"
as_nobody ln -s "$LL_TMP/elsewhere" "$dir2/driver"
rc=0
timeout 120 "$LL" run "$U" -c 1 -d 1s --out "$dir2" --no-report >"$LL_TMP/run2.out" \
	2>"$LL_TMP/run2.err" || rc=$?
[ "$rc" != 0 ] || fail "run with a planted driver/ link exited 0"
grep -q "symbolic link" "$LL_TMP/run2.err" || fail "the planted driver/ link is not named: $(cat "$LL_TMP/run2.err")"
[ -z "$(ls -A "$LL_TMP/elsewhere")" ] || fail "run wrote through the planted driver/ link"
pgrep -f -- "--json $dir2/" >/dev/null && fail "an observer was left running after the refusal"
pass "planted links and hard links never written through; refused before work; new files 0600"
