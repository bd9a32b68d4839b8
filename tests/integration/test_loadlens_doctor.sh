#!/bin/bash
# loadlens doctor: in a network namespace with a narrowed ephemeral port range and a
# child process with a lowered nofile limit, doctor reads both, flags the planned load that
# breaks them (and when), and prints the fix; a plan within the limits breaks nothing. Its list
# of tracepoints is the observer's own (loadlens-observer --check=json).
source "$(dirname "$0")/lib.sh"
require_bin loadlens-observer
[ "$(id -u)" = 0 ] || skip "needs root for a network namespace"
LL="$LOADLENS_SRC/tools/loadlens"
NS=lldoc$$
netns_create "$NS"
ip netns exec "$NS" sysctl -qw net.ipv4.ip_local_port_range="40000 40999" ||
	fail "cannot narrow the port range in $NS"
ip netns exec "$NS" sysctl -qw net.ipv4.tcp_tw_reuse=0 || fail "cannot set tcp_tw_reuse in $NS"

doctor() { # NAME ARGS...: doctor in the namespace, as a child with nofile 256
	local name=$1 rc=0
	shift
	ip netns exec "$NS" prlimit --nofile=256:256 "$LL" doctor "$@" >"$LL_TMP/$name.out" \
		2>"$LL_TMP/$name.err" || rc=$?
	echo "$rc" >"$LL_TMP/$name.rc"
}

# 1. the limits as read
doctor json --json --rate 100 --new-conn -c 500 --target tcp://10.9.0.1:7000
J=$LL_TMP/json.out
[ "$(jget "$J" '.host.port_range | join("-")')" = 40000-40999 ] ||
	fail "port range: $(jq -c .host.port_range "$J")"
[ "$(jget "$J" '.host.nofile | join(":")')" = 256:256 ] || fail "nofile: $(jq -c .host.nofile "$J")"
[ "$(jget "$J" .host.tw_reuse)" = 0 ] || fail "tcp_tw_reuse"
# 2. the planned load that breaks them: 500 fds at once against 256; 100 new conn/s x 60 s of
#    TIME_WAIT = 6,500 ports against 1,000, full after (1000 - 500) / 100 = 5 s
[ "$(cat "$LL_TMP/json.rc")" = 1 ] ||
	fail "doctor exited $(cat "$LL_TMP/json.rc") for a load that breaks"
[ "$(jget "$J" .breaks_first.limit)" = "open files, client (driver)" ] ||
	fail "breaks first: $(jq -c .breaks_first "$J")"
ports=$(jq -c '.checks[] | select(.limit == "ephemeral ports")' "$J")
[ "$(echo "$ports" | jq .breaks)" = true ] || fail "ports: $ports"
[ "$(echo "$ports" | jq .need)" = 6500 ] || fail "ports needed: $ports"
[ "$(echo "$ports" | jq .at_s)" = 5 ] || fail "ports break at: $ports"
doctor text --rate 100 --new-conn -c 500 --target tcp://10.9.0.1:7000
T=$LL_TMP/text.out
cat "$T"
grep -q 'ip_local_port_range    40000-40999 (1,000 ports per destination)' "$T" || fail "range line"
grep -q 'ulimit -n (nofile)     soft 256, hard 256' "$T" || fail "nofile line"
grep -q '^breaks first: open files, client (driver), at once' "$T" || fail "breaks-first line"
grep -q 'ephemeral ports .* BREAKS after 5 s' "$T" || fail "ports verdict"
grep -q 'sysctl -w net.ipv4.ip_local_port_range="1024 65535"' "$T" || fail "port range fix"
grep -q 'sysctl -w net.ipv4.tcp_tw_reuse=1' "$T" || fail "tw_reuse fix"
grep -q 'nofile  65536' "$T" || fail "limits.conf line"
grep -q 'reuse connections' "$T" || fail "application fix"
# the same load from a driver command line
doctor drv --driver "loadlens-driver tcp://10.9.0.1:7000 -c 500 --rate 100 --new-conn -d 1m"
grep -q '^breaks first: open files, client (driver), at once' "$LL_TMP/drv.out" || fail "--driver"

# 3. healthy: keep-alive, 100 connections: nothing breaks
doctor ok --rate 5000 -c 100 --target tcp://10.9.0.1:7000
grep -q '^breaks first: nothing' "$LL_TMP/ok.out" ||
	{ cat "$LL_TMP/ok.out"; fail "healthy plan flagged"; }

# 4. one source for the kernel features: doctor shows exactly the observer's list
"$LOADLENS_BIN/loadlens-observer" --check=json >"$LL_TMP/check.json" ||
	fail "loadlens-observer --check=json exited $?"
want=$(jq -r '.tracepoints[] | .tracepoint' "$LL_TMP/check.json" | sort | tr '\n' ' ')
got=$(jq -r '.observer.tracepoints[] | .tracepoint' "$J" | sort | tr '\n' ' ')
[ -n "$want" ] && [ "$want" = "$got" ] || fail "doctor's tracepoints '$got' != observer's '$want'"
echo "$want" | grep -q 'sock:sk_data_ready' || fail "no sock:sk_data_ready in --check"
rc=0
"$LL" doctor --rate x 2>"$LL_TMP/bad.err" || rc=$?
[ "$rc" = 64 ] || fail "bad --rate: exit $rc"
pass "doctor reads the namespace's port range and the child's nofile, and names what breaks first"
