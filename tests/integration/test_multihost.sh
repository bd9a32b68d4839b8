#!/bin/bash
# Several driver hosts started by an existing launcher (GNU parallel), one schedule (--start-at,
# --shard i/N), then an exact merge (docs/multihost.md). The hosts are network
# namespaces this test creates, each with its own address and ephemeral port range, bridged to a
# server namespace; parallel runs its jobs through `ip netns exec` where it would run ssh.
#  - each host used its own address and port range (its TIME_WAIT sockets, as the driver closes);
#  - the merged result equals one run's totals: requests, connections, errors, and the server's
#    own count.
source "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
[ "$(id -u)" = 0 ] || skip "needs root for network namespaces"
command -v parallel >/dev/null || skip "GNU parallel not installed (apt-get install parallel)"
S=llmhs$$
H=(llmh0$$ llmh1$$)
netns_create "$S"
ip -n "$S" link add br0 type bridge || skip "no bridge support"
ip -n "$S" addr add 10.77.0.1/24 dev br0
ip -n "$S" link set br0 up
for i in 0 1; do
	netns_create "${H[$i]}"
	ip link add "llv$i$$" netns "$S" type veth peer name eth0 netns "${H[$i]}" ||
		fail "cannot create a veth pair"
	ip -n "$S" link set "llv$i$$" master br0 up
	ip -n "${H[$i]}" addr add "10.77.0.$((2 + i))/24" dev eth0
	ip -n "${H[$i]}" link set eth0 up
	ip netns exec "${H[$i]}" sysctl -qw \
		net.ipv4.ip_local_port_range="$((41000 + 1000 * i)) $((41999 + 1000 * i))"
done
P=$(free_port)
refserver_up --netns "$S" rs "0.0.0.0:$P" --proto tcp
TARGET=tcp://10.77.0.1:$P
LOAD=(-c 4 -n 20000 --rate 10k --reconnect-every 100 -q)

# the launcher of docs/multihost.md, one job per host, shard i on host i, a green flag 3 s ahead:
# `ip netns exec {1}` where the document has `ssh {1}`
T=$(($(date +%s) + 3))
parallel --will-cite --link --tag --jobs 0 --halt now,fail=1 \
	ip netns exec {1} "$LOADLENS_BIN/loadlens-driver" "$TARGET" "${LOAD[@]}" \
	--shard {2}/2 --start-at "$T" --json "$LL_TMP/shard{2}.json" ::: "${H[@]}" ::: 0 1 \
	>"$LL_TMP/parallel.out" 2>&1 || { st=$?; cat "$LL_TMP/parallel.out"; fail "parallel exited $st"; }
"$LOADLENS_BIN/loadlens-driver" merge "$LL_TMP/shard0.json" "$LL_TMP/shard1.json" \
	--json "$LL_TMP/merged.json" -q || fail "merge exited $?"
for i in 0 1; do
	lo=$((41000 + 1000 * i))
	tw=$(ip netns exec "${H[$i]}" ss -Htan state time-wait)
	[ -n "$tw" ] || fail "host $i has no TIME_WAIT socket (the driver closes first)"
	bad=$(echo "$tw" | awk -v lo=$lo -v ip="10.77.0.$((2 + i))" '{ split($3, a, ":");
		if (a[1] != ip || a[2] < lo || a[2] > lo + 999) print }')
	[ -z "$bad" ] || fail "host $i used another address or range: $bad"
	echo "ok: host $i: $(echo "$tw" | wc -l) TIME_WAIT sockets," \
		"all from 10.77.0.$((2 + i)):$lo-$((lo + 999))"
done

# one run of the same load from one host, for the totals
ip netns exec "${H[0]}" "$LOADLENS_BIN/loadlens-driver" "$TARGET" "${LOAD[@]}" \
	--json "$LL_TMP/one.json" >"$LL_TMP/one.out" || fail "the single run exited $?"
stop rs
M=$LL_TMP/merged.json
O=$LL_TMP/one.json
for k in requests connections errors_total cancelled; do
	m=$(jget "$M" ".$k")
	o=$(jget "$O" ".$k")
	[ "$m" = "$o" ] || fail "merged $k $m != one run's $o"
	echo "ok: $k merged $m = one run $o"
done
[ "$(jget "$M" .merged_from)" = 2 ] || fail "merged_from"
[ "$(jget "$M" .latency.count)" = "$(jget "$M" .requests)" ] || fail "merged histogram count"
srv=$(jget "$LL_TMP/rs.json" .requests)
[ "$srv" = $(($(jget "$M" .requests) + $(jget "$O" .requests))) ] ||
	fail "the server answered $srv," \
		"the drivers completed $(jget "$M" .requests) + $(jget "$O" .requests)"
pass "two namespace hosts started by GNU parallel merge to one run's totals ($srv requests served)"
