#!/usr/bin/env bash
# Started as root, the driver runs as SUDO_UID/SUDO_GID or nobody,
# with no capability in any set (bounding and ambient included) and no_new_privs, on every
# thread, before any connection; it says so in one line; --source-addr needs nothing more.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
[ "$(id -u)" = 0 ] || skip "needs root: the test starts the driver as root"
D="$LOADLENS_BIN/loadlens-driver"
P=$(free_port)
refserver_up srv "$P" --proto tcp
nobody_uid=$(id -u nobody 2>/dev/null || echo 65534)
nobody_gid=$(id -g nobody 2>/dev/null || echo 65534)

# field FILE NAME: the value of "NAME:" in a /proc status file, tabs squeezed
field() { awk -v k="$2:" '$1 == k { $1 = ""; sub(/^ /, ""); print; exit }' "$1"; }

# check_proc PID UID GID: every thread of PID runs as UID/GID with nothing held
check_proc() {
	local pid=$1 uid=$2 gid=$3 st n=0
	for st in /proc/"$pid"/task/*/status; do
		[ -r "$st" ] || continue
		n=$((n + 1))
		[ "$(field "$st" Uid)" = "$uid $uid $uid $uid" ] || fail "$st: Uid $(field "$st" Uid)"
		[ "$(field "$st" Gid)" = "$gid $gid $gid $gid" ] || fail "$st: Gid $(field "$st" Gid)"
		[ "$(field "$st" Groups)" = "$gid" ] || fail "$st: Groups '$(field "$st" Groups)'"
		for c in CapInh CapPrm CapEff CapBnd CapAmb; do
			[ "$(field "$st" $c)" = 0000000000000000 ] ||
				fail "$st: $c $(field "$st" $c)"
		done
		[ "$(field "$st" NoNewPrivs)" = 1 ] || fail "$st: NoNewPrivs $(field "$st" NoNewPrivs)"
	done
	# the main thread and at least one worker (-t 2: two)
	[ "$n" -ge 3 ] || fail "pid $pid: only $n threads seen"
	echo "ok: pid $pid, $n threads: uid $uid gid $gid, no capabilities, no_new_privs"
}

# run_checked NAME UID GID ARGS...: a 3 s run in the background, checked in /proc mid-run
run_checked() {
	local name=$1 uid=$2 gid=$3 pid i
	shift 3
	start "$name" "$D" "tcp://127.0.0.1:$P" -c 4 -t 2 -d 3s --interval 200ms \
		--json "$LL_TMP/$name.json" "$@"
	pid=$(eval echo "\$PID_$name")
	# mid-run: once the first live line is out, the workers are sending
	for i in $(seq 1 50); do
		grep -q responses "$LL_TMP/$name.err" && break
		sleep 0.1
	done
	grep -q responses "$LL_TMP/$name.err" || fail "$name: no live line after 5 s"
	check_proc "$pid" "$uid" "$gid"
	wait "$pid" || fail "$name: exit $?: $(cat "$LL_TMP/$name.err")"
	[ "$(jget "$LL_TMP/$name.json" .errors_total)" = 0 ] || fail "$name: errors"
	[ "$(jget "$LL_TMP/$name.json" .requests)" -gt 100 ] || fail "$name: too few requests"
	[ "$(grep -c 'started as root' "$LL_TMP/$name.err")" = 1 ] ||
		fail "$name: not one line about the drop: $(cat "$LL_TMP/$name.err")"
}

# plain root: nobody
run_checked plain "$nobody_uid" "$nobody_gid"
grep -q "running as uid $nobody_uid gid $nobody_gid (nobody), no capabilities" \
	"$LL_TMP/plain.err" || fail "plain: the line does not say where it went"

# under sudo: the user behind it, who also owns the results file
SUDO_UID=4242 SUDO_GID=4343 run_checked sudo 4242 4343
[ "$(stat -c %u:%g "$LL_TMP/sudo.json")" = 4242:4343 ] ||
	fail "sudo: results owned by $(stat -c %u:%g "$LL_TMP/sudo.json"), not 4242:4343"

# SUDO_UID=0 (sudo from root) is no reason to stay root
SUDO_UID=0 SUDO_GID=0 run_checked sudo0 "$nobody_uid" "$nobody_gid"

# --source-addr binds a local address with port 0: no privilege needed
run_checked src "$nobody_uid" "$nobody_gid" --source-addr 127.0.0.1
[ "$(jget "$LL_TMP/src.json" .config.source_addrs)" = 1 ] || fail "src: --source-addr not used"
pass "a root-started driver runs as nobody or SUDO_UID with no capabilities and no_new_privs"
