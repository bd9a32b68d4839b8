#!/bin/bash
# The census on a TCP iterator (bpf/census.bpf.c) counts exactly what sock_diag's census counts:
# census_time --compare takes both on the same held sockets (ESTABLISHED, accepted and
# never-accepted CLOSE_WAIT, full and TIME_WAIT-substate FIN_WAIT2, TIME_WAIT, two port groups;
# IPv4 and IPv6; more records to age than one read of the iterator holds) in a namespace of the
# test's own, and every field must be equal.
. "$(dirname "$0")/lib.sh"
require_bpf census_time
n=300
ns=llcen$$
netns_create "$ns"
start hold ip netns exec "$ns" python3 "$LOADLENS_SRC/tests/integration/census_hold.py" $n 120
wait_for hold '^ports ' 60
read -r _ p4 p6 < <(grep '^ports ' "$LL_TMP/hold.err")
ip netns exec "$ns" "$LOADLENS_BIN/census_time" --compare "$p4" "$p6" >"$LL_TMP/cmp.out" 2>&1
rc=$?
cat "$LL_TMP/cmp.out"
[ $rc = 77 ] && skip "the census' TCP iterator does not load on this kernel"
[ $rc = 0 ] || fail "the two censuses differ (census_time exit $rc)"
# and they counted what is held, as ss counts it: per family N of each kind (CLOSE_WAIT: accepted
# after a close, after a shutdown, never accepted; FIN_WAIT2: their clients; TIME_WAIT: N, fewer
# where the namespace's tcp_max_tw_buckets is smaller, as on a small guest)
line=$(grep '^bpf_iter' "$LL_TMP/cmp.out")
for st in ESTABLISHED:established:$((2 * 3 * n)) CLOSE_WAIT:close-wait:$((2 * 3 * n)) \
	FIN_WAIT2:fin-wait-2:$((2 * 3 * n)) TIME_WAIT:time-wait:$((2 * n)); do
	IFS=: read -r name ssname most <<<"$st"
	got=$(ip netns exec "$ns" ss -Htan state "$ssname" | wc -l)
	[ "$got" -gt $((most * 9 / 10)) ] && [ "$got" -le "$most" ] ||
		fail "ss shows $got $name sockets, $most held"
	echo "$line" | grep -q " $name $got\b" || fail "the census does not count $name $got (ss)"
done
echo "$line" | grep -q "; 3 groups;" || fail "the census does not find 3 port groups"
pass
