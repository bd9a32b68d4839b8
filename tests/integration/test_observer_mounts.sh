#!/bin/bash
# Mounts the observer makes are undone at exit, and said once. The test runs in a
# private mount namespace of its own (unshare -m), so the host's tracefs, which other tests use
# at the same time, is never touched. There tracefs is unmounted; the observer must mount it (its
# classic tracepoints need it: --syscalls on), say so in one line, and leave no tracefs behind.
# Healthy case: with tracefs mounted, the observer says nothing about mounts and leaves it.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-observer
command -v unshare >/dev/null || skip "unshare (util-linux) is missing"
unshare -m --propagation private true 2>/dev/null || skip "cannot create a mount namespace"
port=$(free_port)
obs="$LOADLENS_BIN/loadlens-observer"

cat >"$LL_TMP/inner.sh" <<'INNER'
# in the test's own mount namespace: no tracefs anywhere, then the observer
set -u
for i in 1 2 3 4; do
	grep -q " - tracefs " /proc/self/mountinfo || break
	umount "$(awk '$(NF-2) == "tracefs" { print $5; exit }' /proc/self/mountinfo)" || exit 3
done
grep -q " - tracefs " /proc/self/mountinfo && exit 3
"$1" --port "$2" --duration 2s --interval 0 --syscalls on >"$3.out" 2>"$3.err"
echo "rc=$?" >"$3.rc"
grep " - tracefs " /proc/self/mountinfo >"$3.after"
exit 0
INNER
unshare -m --propagation private bash "$LL_TMP/inner.sh" "$obs" "$port" "$LL_TMP/nomount"
rc=$?
[ "$rc" = 3 ] && fail "cannot unmount tracefs inside the test's mount namespace"
[ "$rc" = 0 ] || fail "the test's mount namespace script exited $rc"
cat "$LL_TMP/nomount.err"
[ "$(cat "$LL_TMP/nomount.rc")" = rc=0 ] || fail "the observer without tracefs: $(cat "$LL_TMP/nomount.rc")"
n=$(grep -c "tracefs was not mounted; mounted it at /sys/kernel/tracing" "$LL_TMP/nomount.err")
[ "$n" = 1 ] || fail "the mount is said $n times, expected once"
grep -q "syscall tier on" "$LL_TMP/nomount.err" || fail "the syscall tracepoints were not attached"
[ ! -s "$LL_TMP/nomount.after" ] || fail "tracefs left mounted: $(cat "$LL_TMP/nomount.after")"
echo "after the observer: no tracefs in the mount table it ran in"

# Healthy case, in a mount namespace of its own as well (tracefs is not mounted at boot on every
# host, so the host's own table cannot be relied on): tracefs mounted there before the observer
# starts; nothing is said about mounts and it is still mounted after.
cat >"$LL_TMP/present.sh" <<'INNER'
set -u
grep -q " - tracefs " /proc/self/mountinfo || mount -t tracefs nodev /sys/kernel/tracing || exit 3
before=$(grep -c " - tracefs " /proc/self/mountinfo)
"$1" --port "$2" --duration 1s --interval 0 --syscalls on >"$3.out" 2>"$3.err"
echo "rc=$?" >"$3.rc"
[ "$(grep -c " - tracefs " /proc/self/mountinfo)" = "$before" ] || exit 4
exit 0
INNER
host_before=$(grep -c " - tracefs " /proc/self/mountinfo)
unshare -m --propagation private bash "$LL_TMP/present.sh" "$obs" "$port" "$LL_TMP/present"
rc=$?
[ "$rc" = 3 ] && fail "cannot mount tracefs inside the test's mount namespace"
[ "$rc" = 4 ] && fail "the observer changed the tracefs mounts it found"
[ "$rc" = 0 ] || fail "the healthy mount namespace script exited $rc"
[ "$(cat "$LL_TMP/present.rc")" = rc=0 ] ||
	fail "the observer with tracefs mounted: $(cat "$LL_TMP/present.rc") ($(tail -2 "$LL_TMP/present.err"))"
grep -q "mounted it" "$LL_TMP/present.err" && fail "a mount is said though none was made"
grep -q "syscall tier on" "$LL_TMP/present.err" || fail "tracefs present: the syscall tracepoints were not attached"
[ "$(grep -c " - tracefs " /proc/self/mountinfo)" = "$host_before" ] ||
	fail "the host's tracefs mounts changed"
echo "with tracefs mounted: nothing said about mounts, still mounted after"
pass "tracefs mounted for the run only, said once, gone at exit; nothing said when present"
