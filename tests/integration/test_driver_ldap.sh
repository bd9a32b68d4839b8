#!/usr/bin/env bash
# --proto ldap against Debian's slapd, started here on a loopback port with an mdb
# database of 10,000 entries (uid=user0..user9999) and its stats log on stderr (-d 256). The
# driver's searches and entries must equal slapd's own log: `SRCH base=` lines and the nentries=
# of its `SEARCH RESULT` lines, run by run, and so must the searches that found no entry (its
# SEARCH RESULT lines with err=0 nentries=0). Then the sick cases, each a counted cause: a size
# limit (sizeLimitExceeded, counted apart with its entries), a wrong password (invalidCredentials,
# ldap_bind), and a stub server (ldap_stub.py) that closes after the bind, answers busy, answers
# another messageID, sends a Notice of Disconnection, or never answers the bind.
# LL_LDAP_SEARCHES (default 50000) sets the count of the main run.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver
command -v jq >/dev/null || skip "jq is not installed"
require_slapd
PY=/usr/bin/python3
N=${LL_LDAP_SEARCHES:-50000}
BASE=ou=people,dc=example,dc=com
ADMIN=cn=admin,dc=example,dc=com

# --- slapd with 10,000 entries ---
slapd_db "$LL_TMP" stats "sizelimit 500" ||
	{ cat "$LL_TMP/slapadd.out"; fail "slapadd of 10,000 entries failed"; }
P=$(free_port)
start slapd "$SLAPD" -h "ldap://127.0.0.1:$P/" -f "$LL_TMP/slapd.conf" -d 256
wait_for slapd "slapd starting" 30
printf 'secret\n' >"$LL_TMP/pw"
printf 'wrong\n' >"$LL_TMP/badpw"


# --- healthy: anonymous bind, 16 connections, a templated filter matching one entry ---
ldap_run anon 0 "tcp://127.0.0.1:$P" --proto ldap --base "$BASE" \
	--filter '(uid=user{{rand:0-9999}})' -c 16 -n "$N" --timeout 60s
expect_json "anon: searches ok" "$LL_TMP/anon.json" .requests "$N"
expect_json "anon: errors" "$LL_TMP/anon.json" .errors_total 0
expect_json "anon: ldap searches" "$LL_TMP/anon.json" .ldap.searches "$N"
expect_json "anon: entries (each uid once)" "$LL_TMP/anon.json" .ldap.entries "$N"
expect_json "anon: anonymous binds" "$LL_TMP/anon.json" .ldap.bind.success 16
expect_json "anon: searches that found no entry" "$LL_TMP/anon.json" .ldap.empty 0
same anon searches "$(j anon .ldap.searches)" SRCH
same anon entries "$(j anon .ldap.entries)" NENTRIES
same anon binds 16 BIND
grep -q 'ldap result  success: ' "$LL_TMP/anon.out" || fail "no 'ldap result' line in the summary"
pass "anonymous: $N searches and entries equal slapd's stats log"

# --- 256 connections, simple bind from a password file, three entries per search ---
F3='(|(uid=user{{rand:0-3332}})(uid=user{{rand:3333-6665}})(uid=user{{rand:6666-9999}}))'
ldap_run three 0 "tcp://127.0.0.1:$P" --proto ldap --base "$BASE" --scope one --filter "$F3" \
	--attrs cn,sn -c 256 -n 2560 --timeout 60s --bind-dn "$ADMIN" --bind-password-file "$LL_TMP/pw"
expect_json "three: searches ok" "$LL_TMP/three.json" .requests 2560
expect_json "three: entries = 3 x searches" "$LL_TMP/three.json" .ldap.entries 7680
expect_json "three: simple binds" "$LL_TMP/three.json" .ldap.bind.success 256
same three searches "$(j three .ldap.searches)" SRCH
same three entries "$(j three .ldap.entries)" NENTRIES
n=$(tail -n +"$LOGAT" "$LL_TMP/slapd.err" | grep -c "BIND dn=\"$ADMIN\" method=128")
[ "$n" = 256 ] || fail "three: slapd saw $n simple binds as $ADMIN, expected 256"
pass "256 connections, simple bind: 2560 searches, 7680 entries, as slapd counts them"

# --- an ldap:// URL with its parts; open loop (-n, so that nothing is cancelled at the end) ---
ldap_run url 0 "ldap://127.0.0.1:$P/$BASE?uid?one?(uid=user7)" -c 4 -n 200 --rate 100 \
	--timeout 60s
expect_json "url: searches ok" "$LL_TMP/url.json" .requests 200
expect_json "url: entries" "$LL_TMP/url.json" .ldap.entries 200
same url searches "$(j url .ldap.searches)" SRCH
same url entries "$(j url .ldap.entries)" NENTRIES
pass "ldap:// URL, open loop at 100/s: 200 searches and entries on both sides"

# --- half the uids asked for do not exist: the searches that found none, as slapd counts them ---
ldap_run miss 0 "tcp://127.0.0.1:$P" --proto ldap --base "$BASE" \
	--filter '(uid=user{{rand:0-19999}})' -c 4 -n 2000 --timeout 60s
expect_json "miss: searches ok" "$LL_TMP/miss.json" .requests 2000
e=$(j miss .ldap.entries) z=$(j miss .ldap.empty)
[ "$e" -gt 0 ] && [ "$z" -gt 0 ] && [ $((e + z)) = 2000 ] ||
	fail "miss: $e entries and $z searches without one, expected both > 0 and 2000 in all"
same miss "searches with no entry" "$z" EMPTY
same miss entries "$e" NENTRIES
grep -q "found no entry" "$LL_TMP/miss.out" || fail "miss: no 'found no entry' in the summary"
pass "uids half missing: $e searches found an entry, $z none, as slapd's log counts them"

# --- sick: the size limit (500) stops each search; counted apart, with its 500 entries ---
ldap_run size 1 "tcp://127.0.0.1:$P" --proto ldap --base "$BASE" --filter '(uid=user1*)' \
	-c 4 -n 200 --timeout 60s
expect_json "size: ldap_result errors" "$LL_TMP/size.json" .errors.ldap_result 200
expect_json "size: sizeLimitExceeded" "$LL_TMP/size.json" .ldap.result.sizeLimitExceeded 200
expect_json "size: entries" "$LL_TMP/size.json" .ldap.entries 100000
same size sizeLimitExceeded 200 ERR=4
same size entries "$(j size .ldap.entries)" NENTRIES
grep -q "hint: ldap sizeLimitExceeded: .*counted apart" "$LL_TMP/size.out" ||
	{ cat "$LL_TMP/size.out"; fail "size: no sizeLimitExceeded hint"; }
pass "sizeLimitExceeded: 200 searches under their code, 100000 entries, as slapd counts"

# --- sick: a wrong password fails the bind; the connection is dropped and backs off ---
ldap_run badpw 1 "tcp://127.0.0.1:$P" --proto ldap --base "$BASE" --bind-dn "$ADMIN" \
	--bind-password-file "$LL_TMP/badpw" -c 2 -n 10
expect_json "badpw: ldap_bind errors" "$LL_TMP/badpw.json" .errors.ldap_bind 10
expect_json "badpw: invalidCredentials" "$LL_TMP/badpw.json" .ldap.bind.invalidCredentials 10
expect_json "badpw: searches" "$LL_TMP/badpw.json" .ldap.searches 0
same badpw invalidCredentials 10 BIND49
same badpw searches 0 SRCH
grep -q "hint: ldap_bind: " "$LL_TMP/badpw.out" || fail "badpw: no ldap_bind hint"
pass "wrong password: 10 binds refused (invalidCredentials) on both sides, no search sent"

# --- --help shows the protocol and its options, with an example ---
"$LOADLENS_BIN/loadlens-driver" --help >"$LL_TMP/help" || fail "--help failed"
for w in "--proto ldap" ldap:// --base --scope --filter --attrs --bind-dn --bind-password-file \
	ldap_result ldap_bind "tcp://127.0.0.1:389 --proto ldap"; do
	grep -q -- "$w" "$LL_TMP/help" || fail "--help does not mention $w"
done

# --- bad input: one line, exit 64 ---
bad() {
	local rc=0 want=$1
	shift
	"$LOADLENS_BIN/loadlens-driver" "$@" >"$LL_TMP/bad.out" 2>"$LL_TMP/bad.err" || rc=$?
	[ "$rc" = 64 ] && [ "$(wc -l <"$LL_TMP/bad.err")" = 1 ] && grep -q -- "$want" "$LL_TMP/bad.err" ||
		{ cat "$LL_TMP/bad.err"; fail "$*: exit $rc, expected 64 and one line with '$want'"; }
	echo "ok: exit 64: $(cat "$LL_TMP/bad.err")"
}
bad "no closing ')'" "tcp://127.0.0.1:$P" --proto ldap --filter '(uid=a' -n 1
bad "never taken on the command line" "tcp://127.0.0.1:$P" --proto ldap --bind-dn "$ADMIN" -n 1
bad "out of order" "tcp://127.0.0.1:$P" --proto ldap -P 8 -n 1
bad "expected base, one or sub" "ldap://127.0.0.1:$P/$BASE??deep" -n 1

# --- sick servers (ldap_stub.py): each a counted cause, never a hang ---
stub() {
	local mode=$1 name=stub_${1//-/_}
	SP=$(free_port)
	start "$name" $PY "$(dirname "$0")/ldap_stub.py" "$SP" "$mode"
	wait_for "$name" listening
}
stub close-after-bind
DRIVER_RC=1 driver closed "tcp://127.0.0.1:$SP" --proto ldap -c 2 -n 20 --timeout 2s -q
expect_json "closed: searches ok" "$LL_TMP/closed.json" .requests 0
expect_json "closed: errors" "$LL_TMP/closed.json" .errors_total 20
n=$(jq '.errors.short_response + .errors.ECONNRESET' "$LL_TMP/closed.json")
[ "$n" = 20 ] || fail "closed: $n short_response + ECONNRESET, expected 20 ($(jq -c .errors "$LL_TMP/closed.json"))"
expect_json "closed: binds" "$LL_TMP/closed.json" .ldap.bind.success 20
pass "a server that closes after the bind: 20 searches counted short (or reset), no hang"

stub busy
DRIVER_RC=1 driver busy "tcp://127.0.0.1:$SP" --proto ldap -c 2 -n 30 -q
expect_json "busy: busy" "$LL_TMP/busy.json" .ldap.result.busy 30
expect_json "busy: ldap_result" "$LL_TMP/busy.json" .errors.ldap_result 30
grep -q "hint: ldap busy: " "$LL_TMP/busy.out" || fail "busy: no hint for busy"

stub wrong-id
DRIVER_RC=1 driver wrongid "tcp://127.0.0.1:$SP" --proto ldap -c 1 -n 5 -q
expect_json "wrong-id: malformed" "$LL_TMP/wrongid.json" .errors.short_response 5
expect_json "wrong-id: searches done" "$LL_TMP/wrongid.json" .ldap.searches 0

stub notice
DRIVER_RC=1 driver notice "tcp://127.0.0.1:$SP" --proto ldap -c 1 -n 5 -q
expect_json "notice: unavailable" "$LL_TMP/notice.json" .ldap.result.unavailable 5
expect_json "notice: connections (each notice closes one)" "$LL_TMP/notice.json" .connections 5

stub no-bind
DRIVER_RC=1 driver nobind "tcp://127.0.0.1:$SP" --proto ldap -c 1 -n 3 --timeout 300ms -q
expect_json "no-bind: timed out" "$LL_TMP/nobind.json" .errors.ETIMEDOUT 3
expect_json "no-bind: binds answered" "$LL_TMP/nobind.json" '.ldap.bind | length' 0
pass "sick servers: busy, another messageID, a notice, an unanswered bind: each counted"
