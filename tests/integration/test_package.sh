#!/bin/bash
# The Debian package: cpack builds loadlens_<version>_<arch>.deb from this build tree;
# it holds the three binaries, their man pages, the docs, the systemd unit, the ARGS file (a
# conffile) and bash completion; its dependencies come from dpkg-shlibdeps. Then it is tried:
#  - by default, extracted (dpkg-deb -x) into a temp dir, so the machine is left as it was: the
#    binaries run from there (--help, --version, a short observer run), the man pages render;
#  - with CI=true or LOADLENS_TEST_DPKG=install, installed for real (dpkg -i, as on a fresh
#    Debian 12): `man` finds the pages, the observer runs from /usr/sbin as the loadlens user,
#    then the package is purged (and the loadlens user removed if this test made it).
. "$(dirname "$0")/lib.sh"
require_bpf
for c in cpack dpkg-deb dpkg-shlibdeps man; do
	command -v "$c" >/dev/null || skip "$c is not installed"
done
build=$(cd "$LOADLENS_BIN/.." && pwd)
[ -f "$build/CPackConfig.cmake" ] || fail "no CPackConfig.cmake in $build"
[ -f "$build/man/loadlens-observer.8.gz" ] || skip "no man pages were built (help2man missing)"
port=$(free_port)

(cd "$build" && cpack --config CPackConfig.cmake -B "$LL_TMP/pkg") >"$LL_TMP/cpack.log" 2>&1 ||
	{ tail -20 "$LL_TMP/cpack.log"; fail "cpack failed"; }
deb=$(ls "$LL_TMP"/pkg/loadlens_*.deb 2>/dev/null | head -1)
[ -n "$deb" ] || fail "cpack made no .deb"
echo "built $(basename "$deb"), $(stat -c %s "$deb") bytes"
dpkg-deb -f "$deb" Package Version Depends >"$LL_TMP/control"
cat "$LL_TMP/control"
for dep in adduser libbpf1 libuv1 libjansson4 libcurl4 libmnl0 zlib1g libhttp-parser libprotobuf32; do
	grep -q "$dep" "$LL_TMP/control" || fail "Depends lacks $dep"
done
# lintian (Debian's package checker): no error and no warning (I: hints are allowed)
if command -v lintian >/dev/null; then
	lintian --tag-display-limit 0 "$deb" >"$LL_TMP/lintian.log" 2>&1 || true
	grep -v 'running with root privileges' "$LL_TMP/lintian.log" | grep -E '^[EW]: ' &&
		fail "lintian reports errors or warnings (above)"
	echo "lintian: no error, no warning"
elif [ "${CI:-}" = true ]; then
	fail "lintian is not installed (tools/loadlens setup installs it)"
fi
# the agent's unit is sandboxed: systemd-analyze security rates it OK (<= 3.0), not UNSAFE
if command -v systemd-analyze >/dev/null; then
	systemd-analyze security --offline=true "$LOADLENS_SRC/packaging/loadlens-observer.service" \
		>"$LL_TMP/security.log" 2>&1 || true
	score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p' "$LL_TMP/security.log")
	[ -n "$score" ] || { cat "$LL_TMP/security.log"; fail "no exposure level from systemd-analyze"; }
	awk -v s="$score" 'BEGIN { exit !(s <= 3.0) }' ||
		{ grep '✗' "$LL_TMP/security.log"; fail "the unit's exposure level is $score, above 3.0"; }
	echo "systemd-analyze security: the unit's exposure level is $score (OK)"
fi
dpkg-deb -c "$deb" | awk '{ print $6 }' | sed 's|^\./|/|' >"$LL_TMP/contents"
for f in /usr/bin/loadlens-driver /usr/bin/loadlens-refserver /usr/sbin/loadlens-observer \
	/usr/share/man/man1/loadlens-driver.1.gz /usr/share/man/man1/loadlens-refserver.1.gz \
	/usr/share/man/man8/loadlens-observer.8.gz /usr/share/doc/loadlens/observer.md \
	/usr/share/doc/loadlens/observer/findings.md /usr/share/doc/loadlens/driver/protocols.md \
	/usr/share/doc/loadlens/packaging.md /usr/share/doc/loadlens/copyright \
	/usr/share/doc/loadlens/changelog.gz /usr/lib/systemd/system/loadlens-observer.service \
	/etc/default/loadlens-observer /usr/share/bash-completion/completions/loadlens-observer \
	/usr/share/bash-completion/completions/loadlens-driver \
	/usr/share/bash-completion/completions/loadlens-refserver; do
	grep -qx "$f" "$LL_TMP/contents" || fail "the package lacks $f"
done
dpkg-deb --ctrl-tarfile "$deb" | tar -t | grep -q conffiles || fail "no conffiles"
echo "contents: $(wc -l <"$LL_TMP/contents") entries, every expected file present"

# run_from PREFIX: the installed layout works from PREFIX
run_from() {
	local p=$1 rc=0
	"$p/usr/sbin/loadlens-observer" --help | grep -q "^Usage: loadlens-observer" ||
		fail "$p: observer --help"
	"$p/usr/bin/loadlens-driver" --version | grep -q "^loadlens-driver " ||
		fail "$p: driver --version"
	"$p/usr/bin/loadlens-refserver" --version | grep -q "^loadlens-refserver " ||
		fail "$p: refserver --version"
	timeout 60 "$p/usr/sbin/loadlens-observer" --port "$port" --duration 1500ms --interval 0 \
		--json "$LL_TMP/run.json" >"$LL_TMP/run.out" 2>"$LL_TMP/run.err" || rc=$?
	[ "$rc" = 0 ] || { cat "$LL_TMP/run.err"; fail "$p: a short observer run exited $rc"; }
	jq -e .duration_s "$LL_TMP/run.json" >/dev/null || fail "$p: the run wrote no summary"
	# bash completion offers the observer's options
	# shellcheck disable=SC1090,SC1091
	(. "$p/usr/share/bash-completion/completions/loadlens-observer"
	 PATH="$p/usr/sbin:$PATH"
	 COMP_WORDS=(loadlens-observer --nd); COMP_CWORD=1
	 _loadlens loadlens-observer --nd loadlens-observer
	 [ "${COMPREPLY[*]}" = --ndjson ]) || fail "$p: bash completion of --nd"
	echo "${p:-/}: --help, --version, a 1.5 s run and completion work"
}

if [ "${CI:-}" = true ] || [ "${LOADLENS_TEST_DPKG:-}" = install ]; then
	if dpkg-query -W -f='${Status}' loadlens 2>/dev/null | grep -q installed; then
		fail "a loadlens package is installed already; this test will not replace it"
	fi
	had_user=$(getent passwd loadlens || true)
	ll_on_exit 'dpkg -P loadlens >/dev/null 2>&1; [ -n "$had_user" ] || deluser --system --quiet loadlens 2>/dev/null'
	DEBIAN_FRONTEND=noninteractive dpkg -i "$deb" >"$LL_TMP/dpkg.log" 2>&1 ||
		{ cat "$LL_TMP/dpkg.log"; fail "dpkg -i failed"; }
	getent passwd loadlens >/dev/null || fail "the package made no loadlens user"
	[ "$(man -w 8 loadlens-observer)" = /usr/share/man/man8/loadlens-observer.8.gz ] ||
		fail "man does not find loadlens-observer(8): $(man -w 8 loadlens-observer 2>&1)"
	man 1 loadlens-driver 2>/dev/null | grep -q "honest latency" || fail "man loadlens-driver"
	man 8 loadlens-observer 2>/dev/null | grep -q "PRIVILEGE AND FILES" ||
		fail "man loadlens-observer has no PRIVILEGE AND FILES"
	if command -v systemd-analyze >/dev/null; then
		systemd-analyze verify /usr/lib/systemd/system/loadlens-observer.service \
			>"$LL_TMP/verify.log" 2>&1 || { cat "$LL_TMP/verify.log"; fail "unit"; }
	fi
	start inst /usr/sbin/loadlens-observer --port "$port" --interval 0
	wait_for inst observing 60
	sleep 0.5
	u=$(awk '$1 == "Uid:" { print $2 }' "/proc/$PID_inst/status")
	[ "$u" = "$(id -u loadlens)" ] || fail "the installed observer runs as uid $u, not loadlens"
	stop inst
	run_from ""
	dpkg -r loadlens >"$LL_TMP/dpkg.log" 2>&1 || { cat "$LL_TMP/dpkg.log"; fail "dpkg -r"; }
	[ ! -e /usr/sbin/loadlens-observer ] || fail "dpkg -r left /usr/sbin/loadlens-observer"
	[ -e /etc/default/loadlens-observer ] || fail "dpkg -r removed the conffile"
	dpkg -P loadlens >/dev/null 2>&1 || fail "dpkg -P"
	[ ! -e /etc/default/loadlens-observer ] || fail "dpkg -P left the conffile"
	echo "installed with dpkg -i as uid loadlens ($(id -u loadlens)), removed, purged"
else
	dpkg-deb -x "$deb" "$LL_TMP/root"
	run_from "$LL_TMP/root"
	man -l "$LL_TMP/root/usr/share/man/man8/loadlens-observer.8.gz" 2>/dev/null |
		grep -q "PRIVILEGE AND FILES" || fail "the observer's man page does not render"
	echo "(set LOADLENS_TEST_DPKG=install to install it with dpkg -i, as CI does)"
fi
pass "the .deb builds, holds the layout, and runs"
