#!/usr/bin/env bash
# --proto ldap never counts a reply whose inside does not hold: against ldap_stub.py, an entry
# whose objectName claims 200 bytes inside a 10-byte entry, an attribute's values longer than the
# attribute, a Done whose operation is longer than its message, a Done of a resultCode alone, a
# stray byte after a Done: each search is an ldap_malformed error with its hint, its entry not
# counted, no search done. And the searches that found no entry are counted: a healthy stub that
# answers every other search with an entry, 10 of 20 empty (slapd's own count: test_driver_ldap).
. "$(dirname "$0")/lib.sh"
require_bin loadlens-driver
command -v jq >/dev/null || skip "jq is not installed"
PY=/usr/bin/python3

stub() {
	local mode=$1 name=stub_${1//-/_}
	SP=$(free_port)
	start "$name" $PY "$LL_HERE/ldap_stub.py" "$SP" "$mode"
	wait_for "$name" listening
}

# healthy: 20 searches ok, 10 entries, 10 found none, in the JSON and the summary
stub half-empty
driver half "tcp://127.0.0.1:$SP" --proto ldap -c 1 -n 20 --timeout 2s
expect_json "half-empty: searches ok" "$LL_TMP/half.json" .requests 20
expect_json "half-empty: errors" "$LL_TMP/half.json" .errors_total 0
expect_json "half-empty: entries" "$LL_TMP/half.json" .ldap.entries 10
expect_json "half-empty: searches with no entry" "$LL_TMP/half.json" .ldap.empty 10
grep -q "20 searches done, 10 entries (0.50 per search), 0 references, 10 found no entry" \
	"$LL_TMP/half.out" || { cat "$LL_TMP/half.out"; fail "half-empty: no 'found no entry' in the summary"; }
# the count goes through the JSON: two worker processes' results merged, and a merge of runs
driver procs "tcp://127.0.0.1:$SP" --proto ldap -p 2 -c 2 -n 20 --timeout 2s -q
expect_json "-p 2: searches with no entry" "$LL_TMP/procs.json" .ldap.empty 10
"$LOADLENS_BIN/loadlens-driver" merge "$LL_TMP/half.json" "$LL_TMP/procs.json" \
	--json "$LL_TMP/merged.json" >"$LL_TMP/merged.out" || fail "merge failed"
expect_json "merge: searches with no entry" "$LL_TMP/merged.json" .ldap.empty 20
pass "well formed: 20 searches ok, 10 entries, 10 counted as finding no entry (also -p 2, merge)"

for mode in name-past-entry value-past-attr op-past-message short-result junk-after-op; do
	stub "$mode"
	n=m_${mode//-/_}
	DRIVER_RC=1 driver "$n" "tcp://127.0.0.1:$SP" --proto ldap -c 1 -n 5 --timeout 2s
	expect_json "$mode: searches ok" "$LL_TMP/$n.json" .requests 0
	expect_json "$mode: ldap_malformed" "$LL_TMP/$n.json" .errors.ldap_malformed 5
	expect_json "$mode: errors_total" "$LL_TMP/$n.json" .errors_total 5
	expect_json "$mode: entries counted" "$LL_TMP/$n.json" .ldap.entries 0
	expect_json "$mode: searches done" "$LL_TMP/$n.json" .ldap.searches 0
	grep -q "^hint: ldap_malformed: " "$LL_TMP/$n.out" ||
		{ cat "$LL_TMP/$n.out"; fail "$mode: no ldap_malformed hint"; }
	echo "ok: $mode: 5 searches, all ldap_malformed, with the hint"
done
pass "5 replies whose inner lengths or fields do not hold: each search ldap_malformed, none ok"
