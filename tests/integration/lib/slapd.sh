# shellcheck shell=bash
# Debian's slapd for the LDAP tests: require_slapd, and its stats log (-d 256) counted against the
# driver's figures, run by run (mark, ldap_run, settle, slapd_count, same). Its database:
# servers.sh's slapd_db. Part of the harness (tests/integration/lib.sh).

# require_slapd: slapd, slapadd, the schema and the mdb backend, or skip; sets SLAPD
require_slapd() {
	SLAPD=$(command -v slapd || echo /usr/sbin/slapd)
	[ -x "$SLAPD" ] && [ -x "$(command -v slapadd || echo /usr/sbin/slapadd)" ] ||
		skip "needs slapd (PACKAGES in tools/loadlens)"
	[ -r /etc/ldap/schema/inetorgperson.schema ] || skip "needs slapd's schema in /etc/ldap/schema"
	[ -e /usr/lib/ldap/back_mdb.so ] || [ -e /usr/lib/ldap/back_mdb.la ] ||
		skip "needs slapd's mdb backend (/usr/lib/ldap/back_mdb)"
}

# The stats log is $LL_TMP/slapd.err (start slapd ... -d 256); counts run from the last mark.
LOGAT=1
mark() {
	LOGAT=$(($(wc -l <"$LL_TMP/slapd.err") + 1))
}
# until the stats log stops growing (slapd logs after it answers), 10 s at most
settle() {
	local a b
	b=$(wc -l <"$LL_TMP/slapd.err")
	for _ in $(seq 1 50); do
		sleep 0.2
		a=$b
		b=$(wc -l <"$LL_TMP/slapd.err")
		[ "$a" = "$b" ] && break
	done
}
# slapd_count WHAT: in the log since the last mark, SRCH (searches received), NENTRIES (the
# entries its SEARCH RESULT lines sent), EMPTY (search results with err=0 and nentries=0), ERR=n
# (search results with err=n), BIND (simple binds), BIND49 (binds refused: invalidCredentials),
# STARTTLS (StartTLS requests), STARTTLS0 (StartTLS answered with success)
slapd_count() {
	tail -n +"$LOGAT" "$LL_TMP/slapd.err" | awk -v what="$1" '
		what == "SRCH" && / SRCH base=/ { n++ }
		what == "NENTRIES" && / SEARCH RESULT / {
			for (i = 1; i <= NF; i++) if ($i ~ /^nentries=/) { sub("nentries=", "", $i); n += $i } }
		what == "EMPTY" && / SEARCH RESULT / && / err=0 / && / nentries=0 / { n++ }
		what ~ /^ERR=/ && / SEARCH RESULT / && index($0, " err=" substr(what, 5) " ") { n++ }
		what == "BIND" && / BIND dn=.* method=128/ { n++ }
		what == "BIND49" && / RESULT tag=97 err=49 / { n++ }
		what == "STARTTLS" && / EXT oid=1.3.6.1.4.1.1466.20037/ { n++ }
		what == "STARTTLS0" && / RESULT oid= err=0 / { n++ }
		END { print n + 0 }'
}
# ldap_run NAME RC DRIVER-ARGS...: a driver run against slapd (-q, its JSON in $LL_TMP/NAME.json,
# at most LDAP_RUN_TIMEOUT s, default 500) that must exit RC; then the log settles
ldap_run() {
	local name=$1 rc=$2 got=0
	shift 2
	mark
	timeout "${LDAP_RUN_TIMEOUT:-500}" "$LOADLENS_BIN/loadlens-driver" "$@" -q \
		--json "$LL_TMP/$name.json" >"$LL_TMP/$name.out" 2>"$LL_TMP/$name.err" || got=$?
	[ "$got" = "$rc" ] || { cat "$LL_TMP/$name.out" "$LL_TMP/$name.err"; fail "$name: driver exited $got, expected $rc"; }
	settle
}
# same NAME WHAT DRIVER-VALUE SLAPD-WHAT: the driver's figure equals slapd's
same() {
	local s
	s=$(slapd_count "$4")
	[ "$3" = "$s" ] || fail "$1: driver $2 $3, slapd's stats log $s"
	echo "ok: $1: $2 $3 = slapd's $s"
}
# j NAME FILTER: a value of run NAME's JSON
j() {
	jget "$LL_TMP/$1.json" "$2"
}
