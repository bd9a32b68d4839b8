#!/usr/bin/env bash
# In a network namespace with a 1,000-port ephemeral range, a new connection per request
# runs out of ports. The driver names EADDRNOTAVAIL with a count and a hint, finishes with a clean
# summary and does not crash.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver loadlens-refserver
command -v jq >/dev/null || skip "jq is not installed"
[ "$(id -u)" = 0 ] || skip "needs root to create a network namespace (ip netns add)"
command -v ip >/dev/null || skip "iproute2 (ip) is not installed"

NS=llportex$$
netns_create "$NS"
ip netns exec "$NS" sysctl -qw net.ipv4.ip_local_port_range="50000 50999" ||
	fail "cannot set the port range in $NS"
# TIME_WAIT reuse would recycle ports on loopback and hide the exhaustion
ip netns exec "$NS" sysctl -qw net.ipv4.tcp_tw_reuse=0 || fail "cannot set tcp_tw_reuse in $NS"

P=7000
refserver_up --netns "$NS" rs "$P" --proto tcp
rc=0
timeout 60 ip netns exec "$NS" "$LOADLENS_BIN/loadlens-driver" "tcp://127.0.0.1:$P" -c 20 -d 4s \
	--new-conn --json "$LL_TMP/d.json" -q >"$LL_TMP/d.out" 2>"$LL_TMP/d.err" || rc=$?
cat "$LL_TMP/d.out"
[ "$rc" -lt 128 ] || fail "the driver died from signal $((rc - 128))"
[ "$rc" = 0 ] || fail "the driver exited $rc"
n=$(jget "$LL_TMP/d.json" .errors.EADDRNOTAVAIL)
ok=$(jget "$LL_TMP/d.json" .requests)
[ "$n" -gt 0 ] || fail "no EADDRNOTAVAIL counted"
[ "$ok" -ge 900 ] && [ "$ok" -le 1000 ] || fail "$ok requests succeeded; ~1000 ports were free"
grep -q '^  errors .*EADDRNOTAVAIL' "$LL_TMP/d.out" || fail "the summary does not name EADDRNOTAVAIL"
grep -q '^hint: EADDRNOTAVAIL: .*ip_local_port_range' "$LL_TMP/d.out" || fail "no hint"
[ "$(jget "$LL_TMP/d.json" .errors_total)" = "$n" ] || fail "errors other than EADDRNOTAVAIL"
stop rs
pass "port exhaustion: $ok requests, then $n x EADDRNOTAVAIL, clean summary"
