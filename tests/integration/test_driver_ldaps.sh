#!/usr/bin/env bash
# LDAP over TLS against Debian's slapd, started here with the mdb database of 10,000 entries
# (slapd_db), a self-signed certificate for CN=localhost (tls_cert), and two listeners:
# ldap:// (for --starttls) and ldaps://. The driver's searches and entries must equal slapd's
# stats log (-d 256), run by run: ldaps:// with --cacert and with --insecure, --starttls on the
# ldap:// port (slapd logs the StartTLS as an EXT oid=1.3.6.1.4.1.1466.20037), and a plain
# ldap:// run on the same server. An untrusted certificate (no --cacert) stops the run at once
# with OpenSSL's reason, exit 1; --starttls on an ldaps:// or non-LDAP target exits 64.
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver
command -v jq >/dev/null || skip "jq is not installed"
command -v openssl >/dev/null || skip "needs openssl to make a certificate"
require_slapd
N=${LL_LDAPS_SEARCHES:-5000}
BASE=ou=people,dc=example,dc=com
ADMIN=cn=admin,dc=example,dc=com
D=$LOADLENS_BIN/loadlens-driver
LDAP_RUN_TIMEOUT=300

# --- slapd: ldap:// on P, ldaps:// on Q, the test's certificate ---
tls_cert "$LL_TMP/pki"
CA=$LL_TMP/pki/cert.pem
slapd_db "$LL_TMP" stats "TLSCertificateFile $LL_TMP/pki/cert.pem" \
	"TLSCertificateKeyFile $LL_TMP/pki/key.pem" ||
	{ cat "$LL_TMP/slapadd.out"; fail "slapadd of 10,000 entries failed"; }
P=$(free_port)
Q=$(free_port)
[ "$P" != "$Q" ] || Q=$(free_port)
start slapd "$SLAPD" -h "ldap://127.0.0.1:$P/ ldaps://127.0.0.1:$Q/" -f "$LL_TMP/slapd.conf" -d 256
wait_for slapd "slapd starting" 30
printf 'secret\n' >"$LL_TMP/pw"

# healthy NAME CONNS TLS: N searches, none failed, each equal to slapd's log
healthy() {
	local name=$1 conns=$2 tls=$3
	expect_json "$name: searches ok" "$LL_TMP/$name.json" .requests "$N"
	expect_json "$name: errors" "$LL_TMP/$name.json" .errors_total 0
	expect_json "$name: entries (each uid once)" "$LL_TMP/$name.json" .ldap.entries "$N"
	expect_json "$name: binds" "$LL_TMP/$name.json" ".ldap.bind.success" "$conns"
	expect_json "$name: config.ldap.tls" "$LL_TMP/$name.json" ".config.ldap.tls // \"null\"" "$tls"
	same "$name" searches "$(j "$name" .ldap.searches)" SRCH
	same "$name" entries "$(j "$name" .ldap.entries)" NENTRIES
	same "$name" binds "$conns" BIND
}
F='(uid=user{{rand:0-9999}})'

# --- ldaps:// verified with --cacert (the name is localhost) ---
ldap_run ldaps 0 "ldaps://localhost:$Q/$BASE???$F" -c 8 -n "$N" --timeout 60s --cacert "$CA"
healthy ldaps 8 ldaps
pass "ldaps:// with --cacert: $N searches and entries equal slapd's stats log"

# --- ldaps:// unverified (-k), bound as admin ---
ldap_run ldapsk 0 "ldaps://localhost:$Q/$BASE???$F" -c 4 -n "$N" --timeout 60s --insecure \
	--bind-dn "$ADMIN" --bind-password-file "$LL_TMP/pw"
healthy ldapsk 4 ldaps
pass "ldaps:// with --insecure and a simple bind: $N searches on both sides"

# --- --starttls on the ldap:// port: StartTLS (messageID 1), the handshake, the bind ---
ldap_run starttls 0 "ldap://localhost:$P/$BASE???$F" --starttls -c 8 -n "$N" --timeout 60s \
	--cacert "$CA"
healthy starttls 8 starttls
same starttls "StartTLS requests" 8 STARTTLS
same starttls "StartTLS successes" 8 STARTTLS0
pass "--starttls: 8 StartTLS, $N searches and entries equal slapd's stats log"

# --- tcp:// --proto ldap --starttls, open loop ---
ldap_run starttls_tcp 0 "tcp://127.0.0.1:$P" --proto ldap --base "$BASE" --filter "$F" \
	--starttls -k -c 4 -n 400 --rate 200 --timeout 60s
expect_json "starttls_tcp: searches ok" "$LL_TMP/starttls_tcp.json" .requests 400
same starttls_tcp searches "$(j starttls_tcp .ldap.searches)" SRCH
same starttls_tcp entries "$(j starttls_tcp .ldap.entries)" NENTRIES
pass "tcp:// --proto ldap --starttls, open loop at 200/s: 400 searches on both sides"

# --- plain ldap:// on the same server: unchanged ---
ldap_run plain 0 "ldap://127.0.0.1:$P/$BASE???$F" -c 8 -n "$N" --timeout 60s
healthy plain 8 null
[ "$(slapd_count STARTTLS)" = 0 ] || fail "plain: a StartTLS was sent"
pass "plain ldap:// unchanged: $N searches, no StartTLS"

# --- untrusted: no --cacert, the system's CAs do not know the certificate: stops at once ---
for how in ldaps starttls; do
	if [ $how = ldaps ]; then
		url="ldaps://localhost:$Q/$BASE"
		set -- "$url"
	else
		url="ldap://localhost:$P/$BASE"
		set -- "$url" --starttls
	fi
	t0=$(date +%s%N)
	ldap_run "untrusted_$how" 1 "$@" -c 4 -d 30s
	t1=$(date +%s%N)
	f=$LL_TMP/untrusted_$how.json
	echo "untrusted_$how: stopped after $(((t1 - t0) / 1000000)) ms: $(jq -c '[.stopped_by, .errors_total, .negotiation_failure]' "$f")"
	[ $((t1 - t0)) -lt 5000000000 ] || fail "untrusted_$how: took $(((t1 - t0) / 1000000)) ms"
	expect_json "untrusted_$how: stopped by" "$f" .stopped_by negotiation
	expect_json "untrusted_$how: the failure's class" "$f" .negotiation_failure.error tls
	jget "$f" .negotiation_failure.reason | grep -q "self-signed certificate" ||
		fail "untrusted_$how: the reason is not 'self-signed certificate'"
	[ "$(jget "$f" '.errors.tls >= 4 and .requests == 0')" = true ] ||
		fail "untrusted_$how: $(jq -c '{errors, requests}' "$f")"
	[ "$(slapd_count SRCH)" = 0 ] || fail "untrusted_$how: slapd saw a search"
done
pass "an untrusted certificate stops the run at once with OpenSSL's reason (ldaps, starttls)"

# --- usage errors: one line, exit 64 ---
usage() {
	local name=$1 want=$2 rc=0
	shift 2
	"$D" "$@" -n 1 >"$LL_TMP/$name.out" 2>"$LL_TMP/$name.err" || rc=$?
	[ "$rc" = 64 ] || fail "$name: exit $rc, expected 64"
	[ "$(wc -l <"$LL_TMP/$name.err")" = 1 ] && grep -q -- "$want" "$LL_TMP/$name.err" ||
		fail "$name: $(cat "$LL_TMP/$name.err")"
	echo "ok: $name: $(cat "$LL_TMP/$name.err")"
}
usage starttls_ldaps "--starttls with ldaps://" "ldaps://localhost:$Q/" --starttls
usage starttls_tcp_plain "--starttls is for ldap://" "tcp://127.0.0.1:$P" --starttls
usage starttls_http "--starttls is for ldap://" "http://127.0.0.1:$P/" --starttls
pass "--starttls with ldaps:// or a non-LDAP target: exit 64, one line"
