#!/bin/bash
# Output files are never opened through a link: the symlink attack, reproduced. In a
# sticky world-writable directory, `nobody` plants a symlink named like the output the root user
# asked for, pointing at a root-owned 0600 file. The observer (--json, --ndjson, --trace) and the
# refserver (--json) must refuse it with one line on stderr and exit 64, and leave the target
# untouched. So must they refuse a FIFO (without blocking), and a file with another hard link.
# A healthy run creates a new file 0600, owned by the sudo user when SUDO_UID is set.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer
id nobody >/dev/null 2>&1 || skip "no user 'nobody' to plant the link"
command -v setpriv >/dev/null || skip "setpriv (util-linux) is missing"
port=$(free_port)

secret="$LL_TMP/secret"
printf 'root-only contents\n' >"$secret"
chmod 0600 "$secret"
sum0=$(sha256sum <"$secret")
shared="$LL_TMP/shared"
mkdir -m 1777 "$shared"
chmod 0755 "$LL_TMP"
echo "fs.protected_symlinks=$(cat /proc/sys/fs/protected_symlinks) (0 lets root follow the link)"

untouched() {
	[ "$(sha256sum <"$secret")" = "$sum0" ] || fail "$1: the root-owned target was written"
	[ "$(stat -c %a:%U "$secret")" = "600:root" ] || fail "$1: the target's mode/owner changed"
}

# refused CASE CMD...: exits 64 within 20 s, one line on stderr that says why
refused() {
	local what=$1 rc=0 lines
	shift
	timeout 20 "$@" >"$LL_TMP/ref.out" 2>"$LL_TMP/ref.err" || rc=$?
	lines=$(wc -l <"$LL_TMP/ref.err")
	echo "$what: exit $rc: $(cat "$LL_TMP/ref.err")"
	[ "$rc" = 64 ] || fail "$what: exit $rc, expected 64"
	[ "$lines" = 1 ] || fail "$what: $lines lines on stderr, expected 1"
	grep -q "refusing" "$LL_TMP/ref.err" || fail "$what: the refusal is not said"
}

obs=("$LOADLENS_BIN/loadlens-observer" --port "$port" --duration 1s --interval 0)
for opt in --json --ndjson --trace; do
	link="$shared/out$opt"
	setpriv --reuid nobody --regid nogroup --clear-groups ln -s "$secret" "$link" ||
		fail "nobody cannot make a symlink in the sticky directory"
	[ "$(stat -c %U "$link")" = nobody ] || fail "the link is not nobody's"
	refused "observer $opt symlink" "${obs[@]}" "$opt" "$link"
	grep -q "symbolic link" "$LL_TMP/ref.err" || fail "observer $opt: not said it is a link"
	untouched "observer $opt"
done
refused "refserver --json symlink" "$LOADLENS_BIN/loadlens-refserver" --proto tcp \
	--listen "127.0.0.1:$port" --json "$shared/out--json"
untouched "refserver --json"

# a dangling link (to a file that would be created) is refused too: never followed
setpriv --reuid nobody --regid nogroup --clear-groups ln -s "$LL_TMP/created" "$shared/dangling"
refused "observer dangling symlink" "${obs[@]}" --json "$shared/dangling"
[ ! -e "$LL_TMP/created" ] || fail "the dangling link was followed"

# a FIFO: refused without waiting for a reader; a hard link to the secret: refused
mkfifo "$shared/fifo"
refused "observer --ndjson FIFO" "${obs[@]}" --ndjson "$shared/fifo"
refused "refserver --json FIFO" "$LOADLENS_BIN/loadlens-refserver" --proto tcp \
	--listen "127.0.0.1:$port" --json "$shared/fifo"
ln "$secret" "$shared/hardlink"
refused "observer --json hard link" "${obs[@]}" --json "$shared/hardlink"
refused "refserver --json hard link" "$LOADLENS_BIN/loadlens-refserver" --proto tcp \
	--listen "127.0.0.1:$port" --json "$shared/hardlink"
untouched "hard link"

# healthy: a new file is 0600 and the sudo user's; an existing regular file is truncated
printf '%4096s\n' x >"$shared/old.json"
SUDO_UID=65534 SUDO_GID=65534 timeout 60 "${obs[@]}" --json "$shared/new.json" \
	--ndjson "$shared/old.json" >"$LL_TMP/ok.out" 2>"$LL_TMP/ok.err" ||
	{ cat "$LL_TMP/ok.err"; fail "a run with plain output files failed"; }
st=$(stat -c %a:%u:%g "$shared/new.json")
echo "new --json file: mode:uid:gid $st; reused --ndjson file: $(stat -c %s "$shared/old.json") bytes"
[ "$st" = "600:65534:65534" ] || fail "the new file is $st, expected 600:65534:65534"
jq -e .duration_s "$shared/new.json" >/dev/null || fail "the --json file is not the summary"
jq -e . "$shared/old.json" >/dev/null || fail "the reused --ndjson file was not truncated"
untouched "healthy run"
pass "symlinks, FIFOs and hard links refused with exit 64, targets untouched; new files 0600"
