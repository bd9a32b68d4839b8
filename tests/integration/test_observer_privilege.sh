#!/bin/bash
# Least privilege once attached. The observer runs as an unprivileged uid (loadlens or
# nobody) with no capability, an empty bounding set and no-new-privs; its helpers (the syscall
# tier's, the lean hooks') run as that uid too, with CAP_BPF and CAP_PERFMON only. fds are counted by a BPF task_file iterator made before the
# drop, so the counts of root-owned targets still equal /proc/PID/fd; the owners of a listener
# (port mode) are found by it too. Where the iterator is missing (forced here with
# LOADLENS_OBSERVER_NO_FDITER) the observer keeps CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH only.
# Every thread is checked (capabilities are per thread): --trace starts a writer thread.
. "$(dirname "$0")/lib.sh"
require_bpf loadlens-refserver loadlens-observer
port=$(free_port)

status() { awk -v k="$2:" '$1 == k { print $2 }' "/proc/$1/status"; }
uids() { awk '$1 == "Uid:" { print $2, $3, $4, $5 }' "/proc/$1/status"; }

# a root-owned server that leaks one fd per connection, and a root-owned process holding 333
refserver_up --pin srv "$port" --proto tcp --leak-fds 1
/usr/bin/python3 -c 'import sys, time
fs = [open("/dev/null") for _ in range(333)]
print("holding", flush=True)
time.sleep(120)' >"$LL_TMP/holder.out" 2>&1 &
holder=$!
ll_track "$holder"
for _ in $(seq 50); do grep -q holding "$LL_TMP/holder.out" && break; sleep 0.1; done
for _ in $(seq 37); do
	{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null && exec 3>&-
done

# check_helpers NAME MIN MAX: observer NAME runs MIN to MAX helpers (the syscall tier's with
# --syscalls auto; the lean hooks', where they can run), each keeping CAP_BPF and CAP_PERFMON only
check_helpers() {
	local name=$1 helper n=0
	for helper in $(pgrep -P "$(eval echo "\$PID_$name")"); do
		n=$((n + 1))
		echo "$name helper $n: Uid $(uids "$helper"), CapEff $(status "$helper" CapEff)," \
			"CapBnd $(status "$helper" CapBnd), NoNewPrivs $(status "$helper" NoNewPrivs)"
		case "$(uids "$helper")" in 0\ * | *\ 0\ * | *\ 0) fail "$name helper: a uid is 0" ;; esac
		[ "$(status "$helper" CapEff)" = 000000c000000000 ] ||
			fail "$name helper: CapEff $(status "$helper" CapEff), expected CAP_BPF|CAP_PERFMON"
		[ "$(status "$helper" CapBnd)" = 0000000000000000 ] ||
			fail "$name helper: CapBnd not empty"
		[ "$(status "$helper" NoNewPrivs)" = 1 ] || fail "$name helper: NoNewPrivs is not set"
	done
	[ "$n" -ge "$2" ] && [ "$n" -le "$3" ] || fail "$name: $n helpers, expected $2 to $3"
}

# check_run NAME MODE: the observer's status while it runs, then fds against /proc at the end.
# With --pid the syscall tier stays attached (accepts are counted at the targets' accept()):
# attached before the drop, it needs no helper; the lean hooks' may run.
check_run() {
	local name=$1 mode=$2 u want_eff p n_proc n_obs
	sleep 2
	u=$(uids "$(eval echo "\$PID_$name")")
	pid=$(eval echo "\$PID_$name")
	echo "$name: Uid $u, CapEff $(status "$pid" CapEff), CapPrm $(status "$pid" CapPrm)," \
		"CapBnd $(status "$pid" CapBnd), NoNewPrivs $(status "$pid" NoNewPrivs)"
	case "$u" in 0\ * | *\ 0\ * | *\ 0) fail "$name: a uid is still 0 ($u)" ;; esac
	[ "$(status "$pid" Gid | cut -c1)" != "" ] || fail "$name: no Gid"
	[ "$(awk '$1 == "Gid:" { print $2 }' "/proc/$pid/status")" != 0 ] || fail "$name: gid 0"
	want_eff=0000000000000000
	[ "$mode" = proc ] && want_eff=0000000000080004
	[ "$(status "$pid" CapEff)" = "$want_eff" ] ||
		fail "$name: CapEff $(status "$pid" CapEff), expected $want_eff"
	[ "$(status "$pid" CapPrm)" = "$want_eff" ] ||
		fail "$name: CapPrm $(status "$pid" CapPrm), expected $want_eff"
	[ "$(status "$pid" CapBnd)" = 0000000000000000 ] ||
		fail "$name: CapBnd $(status "$pid" CapBnd), expected empty"
	[ "$(status "$pid" NoNewPrivs)" = 1 ] || fail "$name: NoNewPrivs is not set"
	# every thread (the --trace writer, the census' namespace thread): capabilities are per
	# thread; none may hold one the main thread has dropped (a helper thread may hold fewer)
	nt=0
	for t in /proc/"$pid"/task/*; do
		nt=$((nt + 1))
		for k in CapEff CapPrm CapBnd; do
			tv=$(awk -v k="$k:" '$1 == k { print $2 }' "$t/status")
			[ $((0x$tv & ~0x$(status "$pid" "$k"))) = 0 ] ||
				fail "$name: thread ${t##*/} has $k $tv, the process $(status "$pid" "$k")"
		done
		[ "$(awk '$1 == "NoNewPrivs:" { print $2 }' "$t/status")" = 1 ] ||
			fail "$name: thread ${t##*/}: NoNewPrivs is not set"
		case "$(awk '$1 == "Uid:" { print $2, $3, $4, $5 }' "$t/status")" in
		0\ * | *\ 0\ * | *\ 0) fail "$name: thread ${t##*/} has uid 0" ;;
		esac
	done
	echo "$name: $nt threads, none with a capability the process dropped"
	[ "$nt" -ge 2 ] || fail "$name: $nt thread(s); the --trace writer thread is missing"
	check_helpers "$name" 0 1
	# fds, now still: the final read against /proc, read as root just before the stop
	for p in "$PID_srv" "$holder"; do
		eval "n_$p=$(find "/proc/$p/fd" -mindepth 1 -maxdepth 1 | wc -l)"
	done
	stop "$name"
	for p in "$PID_srv" "$holder"; do
		n_proc=$(eval echo "\$n_$p")
		n_obs=$(jq -r --argjson p "$p" '.forensics.fds[] | select(.pid == $p) | .open' \
			"$LL_TMP/$name.json")
		echo "$name: pid $p: /proc/$p/fd has $n_proc, the observer counted $n_obs"
		[ "$n_obs" = "$n_proc" ] || fail "$name: pid $p: observer $n_obs fds, /proc $n_proc"
	done
}

start_observer it "$port" --pid "$PID_srv" --pid "$holder" --trace "$LL_TMP/it.trace"
grep -q "no BPF task iterator" "$LL_TMP/it.err" && fail "the task iterator did not load"
check_run it iter
start observer_fallback env LOADLENS_OBSERVER_NO_FDITER=1 "$LOADLENS_BIN/loadlens-observer" \
	--port "$port" \
	--pid "$PID_srv" --pid "$holder" --interval 1s --json "$LL_TMP/observer_fallback.json" \
	--trace "$LL_TMP/fallback.trace"
wait_for observer_fallback observing 60
grep -q "keeps CAP_SYS_PTRACE" "$LL_TMP/observer_fallback.err" || fail "fallback not said"
check_run observer_fallback proc

# port mode: the listener's owner is found by the iterator and its fds watched
start_observer ports "$port" --interval 500ms
sleep 7
check_helpers ports 1 2
stop ports
n=$(jq -r --argjson p "$PID_srv" '.forensics.fds[] | select(.pid == $p) | .open' \
	"$LL_TMP/ports.json")
echo "port mode: the listener's owner pid $PID_srv found, $n fds"
[ -n "$n" ] && [ "$n" -gt 37 ] || fail "port mode: the listener's owner was not found"
pass "unprivileged uid, no capability, empty bounding set, no-new-privs; fds equal /proc"
