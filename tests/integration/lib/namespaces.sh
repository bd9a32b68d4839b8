# shellcheck shell=bash
# Network namespaces and cgroups a test creates; each is removed at exit, after the test's
# processes are stopped (core.sh's cleanup registry).

# netns_create NAME: a network namespace with loopback up. Skips where ip netns add is refused.
netns_create() {
	local ns=$1
	ip netns add "$ns" 2>/dev/null || skip "cannot create network namespaces (ip netns add)"
	ll_on_exit "ip netns del '$ns' 2>/dev/null"
	ip -n "$ns" link set lo up || fail "cannot bring lo up in $ns"
}

# cgroup_create NAME: a cgroup v2 directory NAME under the cgroup2 mount; sets LL_CGROUP to its
# path. Skips without cgroup v2.
cgroup_create() {
	local mnt
	mnt=$(awk '$3 == "cgroup2" {print $2; exit}' /proc/mounts)
	[ -n "$mnt" ] || skip "no cgroup v2 mount (mount -t cgroup2 none /sys/fs/cgroup)"
	LL_CGROUP="$mnt/$1"
	mkdir "$LL_CGROUP" || skip "cannot create cgroup $LL_CGROUP"
	ll_on_exit "rmdir '$LL_CGROUP' 2>/dev/null"
}
