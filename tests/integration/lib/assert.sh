# shellcheck shell=bash
# Assertions on what a test measured: JSON reads that fail the test when a field is missing, and
# comparisons within a tolerance that print what they compared.

# jget FILE JQ-EXPR: the value, or the test fails
jget() {
	jq -er "$2" "$1" || fail "$1 has no $2"
}

# expect_json WHAT FILE JQ-EXPR WANT: the value in FILE is WANT, else the test fails; prints it
expect_json() {
	local what=$1 v
	v=$(jget "$2" "$3")
	[ "$v" = "$4" ] || fail "$what: $v, expected $4"
	echo "ok: $what: $v"
}

# within_pct VALUE REF PCT: |VALUE - REF| <= PCT% of REF
within_pct() {
	awk -v v="$1" -v r="$2" -v p="$3" 'BEGIN { d = v - r; if (d < 0) d = -d; exit !(d <= r * p / 100) }'
}

# check_within WHAT VALUE REF PCT: fail unless within_pct, else print the comparison
check_within() {
	local what=$1 v=$2 r=$3 p=$4 pct
	pct=$(awk -v v="$v" -v r="$r" 'BEGIN { printf "%+.2f", (v - r) * 100 / r }')
	within_pct "$v" "$r" "$p" || fail "$what: $v vs $r ($pct%, limit ±$p%)"
	echo "ok: $what $v vs $r ($pct%, limit ±$p%)"
}

# residence_within WHAT RESIDENCE CLIENT PCT: a server holds a request no longer than its client
# waits for it: the observer's RESIDENCE (ns, > 0) <= the client's own latency CLIENT + PCT%, else
# the test fails; prints the ratio
residence_within() {
	echo "$1: residence $2 ns, client $3 ns ($(awk -v a="$2" -v b="$3" 'BEGIN { printf "%.3f", a / b }')x)"
	awk -v a="$2" -v b="$3" -v p="$4" 'BEGIN { exit !(a > 0 && a <= b * (1 + p / 100)) }' ||
		fail "$1: the server held requests longer than the client waited ($2 > $3 ns + $4%)"
}
