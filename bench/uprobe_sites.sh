#!/bin/bash
# What a uprobe costs a call on this host, by the instruction it sits on: stepped out of line
# (a second trap) or emulated by the kernel. Why the observer's TLS probes sit where they do
# (observer/kernel/ssl_sites.h). bench/event_cost/uprobe_sites.c does the work; this builds it
# beside the no-op programs and runs it ROUNDS times (default 3). Needs root, clang, libbpf.
#
#   bench/uprobe_sites.sh          CALLS=200000 ROUNDS=3
set -u
. "$(dirname "$0")/common.sh"
bench_root
bench_numbers CALLS=200000 ROUNDS=3
T=$(mktemp -d /tmp/loadlens-usites.XXXXXX)
trap 'rm -rf "$T"' EXIT
here=$(cd "$(dirname "$0")" && pwd)
bench_noop_build "$T" && cc -O2 -Wall -Wextra -o "$T/uprobe_sites" "$here/event_cost/uprobe_sites.c" -lbpf ||
	{ echo "build failed"; exit 1; }
echo "uname -r: $(uname -r); $CALLS calls a cell"
for r in $(seq 1 "$ROUNDS"); do
	echo
	echo "round $r"
	echo
	"$T/uprobe_sites" "$T/noop.bpf.o" "$CALLS" || exit 1
done
