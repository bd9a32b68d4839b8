#!/bin/bash
# What one attached tracepoint BPF program costs per event on this kernel, whatever the program
# does, and what loadlens-observer adds per request, from a deterministic loopback ping-pong.
#
#   bench/event_cost.sh [BUILD_BIN_DIR]        (as root; BUILD_BIN_DIR defaults to build/bin)
#
# The load is bench/event_cost/pingpong.c: one thread, pinned to CPU (default 1), owns both ends
# of one loopback TCP connection (TCP_NODELAY) and runs round trips: client writes 27 bytes,
# server reads, server writes 50 bytes, client reads. Nothing sleeps or wakes anyone, so the
# time per round trip is pure syscall + TCP + tracepoint work (~9-10 us) and, on a quiet machine,
# the median of a run repeats to about 1%, where a throughput test moves by several percent.
# Each round trip fires sock_send_length, sk_data_ready and sock_recv_length once at each end:
# 6 events.
#
# Settings (each run once per round; see "Rounds" below):
#   none            nothing attached by this script
#   noop3           no-op tp_btf programs (bench/event_cost/noop.bpf.c, body "return 0") on
#                   sk_data_ready, sock_recv_length and sock_send_length: 6 invocations/round trip
#   noop2           (not in the default SETTINGS) sock_recv_length + sock_send_length: 4
#   noop1           sock_send_length only: 2 invocations per round trip
#   observer        BUILD_BIN_DIR/loadlens-observer --port PORT --interval 0
#   observer-noreq  the same with --no-requests (no program on the three socket tracepoints)
#   observer-nouprobes  the observer with LOADLENS_OBSERVER_NO_UPROBES=1 (no TLS plaintext)
#   observer-noh2hb the observer with LOADLENS_OBSERVER_H2_HEADERS=off (HTTP/2 header blocks not
#                   copied for statuses): with PINGPONG_H2=1, the copy's cost against "observer"
#   noopssl         no-op uprobes on libssl's SSL_read and SSL_write, entry and return
#                   (attach.c's ssl_uprobes): the kernel's uprobe machinery alone
# PINGPONG_TLS=1: the ping-pong over TLS (pingpong.c; a self-signed certificate made here),
# one SSL_write and one SSL_read a message: 4 SSL calls a round trip, 8 uprobe hits where the
# observer's TLS plaintext (or noopssl) is attached. The observer finds no server at its start
# (the ping-pong starts after it) and attaches to the host's libssl, which the ping-pong maps.
#   VARIANTS        extra observers: space-separated NAME=BINDIR[:ARGS], ARGS with commas for
#                   spaces, each run as BINDIR/loadlens-observer --interval 0 ARGS --port PORT
#                   (ARGS may set --interval again).
#                   Example: VARIANTS="old=build-old/bin runq=build/bin:--runq"
# A run is one pingpong process: WARMUP round trips, then REPS reps of N round trips.
# Rounds: none, then each other setting followed by none again, so every setting run sits
# between two "none" runs about a second apart; the order reverses every other round. The
# machine's speed wanders by 2-5% over seconds (other tenants), comparable with what is measured
# (2 no-op invocations ~ 1.5% of a round trip), so each run is compared with its neighbours only.
#
# Reading the output (Markdown on stdout, progress on stderr):
#   - a run's value is the median of its REPS reps, its floor the fastest rep. "median" is the
#     median of a setting's run values, "min" its fastest rep of all rounds.
#   - "increase" subtracts from each run the mean of the two none runs around it (paired), then
#     takes the median (and range) over rounds: this cancels the drift of a shared machine (10%
#     between minutes), which pooled medians do not. It is given for run values and for run
#     floors: other tenants' bursts only ever add time, so floors are the less disturbed
#     estimate. When the two disagree by much, the machine was too busy: raise ROUNDS.
#   - ns per invocation = increase / invocations per round trip. For noop settings that is the
#     kernel's fixed glue per attached program per event (tracepoint call, bpf_trace_runN, RCU
#     read side), the floor any tp_btf program pays. For the observer the same division gives
#     its cost per event; "observer - noop3" per round is the observer's own work per request
#     (both increases from the same round).
#   - the last table (STATS=1) runs once per setting with kernel.bpf_stats_enabled=1 and shows
#     run_cnt and run_time_ns/run_cnt from bpftool, per program: runs per round trip (expect 2
#     each: one per end) and ns per run. That figure includes a fixed floor of the timing itself
#     (clock reads around an indirect call), which a no-op's figure measures; "above no-op" is
#     the body's own time. bpf_stats adds those clock reads to every run of every program, so
#     it stays 0 (and is checked) during the timed rounds and is restored on exit.
#   - programs other tenants attached to the same tracepoints (listed in the header) run in every
#     setting; they shift all settings alike, but each noop program attached on top of another
#     one costs what it costs in that company.
#
# Environment: ROUNDS (10), N round trips per rep (10000), REPS per run (7), WARMUP round
# trips per run (10000), CPU for the ping-pong (1), HELPER_CPU for attach/observer (0), PORT
# (18530), SETTINGS (default "none noop3 noop1 observer observer-noreq"; none is always run),
# VARIANTS (""), STATS (1; 0 skips the bpf_stats table). About 90 s with the defaults.
# Loopback only; every process is bounded (timeout, attach's and the observer's own time limit)
# and stopped on exit. Needs clang, cc, libbpf-dev, bpftool, python3 and kernel BTF.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
SRC=$HERE/event_cost
. "$HERE/common.sh"
bench_root
bench_bin "${1:-}"
bench_numbers ROUNDS=10 N=10000 REPS=7 WARMUP=10000 CPU=1 HELPER_CPU=0 PORT=18530 STATS=1
SETTINGS=${SETTINGS:-none noop3 noop1 observer observer-noreq}
VARIANTS=${VARIANTS:-}
[ "$ROUNDS" -ge 1 ] && [ "$ROUNDS" -le 200 ] ||
	{ echo "event_cost.sh: ROUNDS must be 1..200" >&2; exit 64; }
for b in clang cc python3 bpftool taskset timeout; do
	command -v $b >/dev/null || {
		echo "event_cost.sh: needs $b (apt-get install -y clang libbpf-dev bpftool python3)" >&2
		exit 1
	}
done
[ -r /sys/kernel/btf/vmlinux ] ||
	{ echo "event_cost.sh: no kernel BTF (/sys/kernel/btf/vmlinux)" >&2; exit 1; }

# a run's bound: 100 us per round trip is 10x slower than expected
RUN_TIMEOUT=$(((N * REPS + WARMUP) / 10000 + 30))
HELPER_LIFE=$((RUN_TIMEOUT + 60))
HPID=
RUNPID=
stop_all() {
	[ -n "$RUNPID" ] && kill -TERM "$RUNPID" 2>/dev/null && wait "$RUNPID" 2>/dev/null
	stop_helper
}
bench_bpf_stats loadlens-event-cost stop_all

echo "building helpers in $T" >&2
bench_noop_build "$T" || exit 1
cc -O2 -Wall -Wextra -o "$T/pingpong" "$SRC/pingpong.c" -lssl -lcrypto || exit 1
if [ "${PINGPONG_TLS:-}" = 1 ]; then
	mkdir -p "$T/pki"
	openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost \
		-keyout "$T/pki/key.pem" -out "$T/pki/cert.pem" >/dev/null 2>&1 || exit 1
	export PINGPONG_TLS=$T/pki
fi

# Settings that need an observer this build lacks are dropped, with a note in the output.
NOTES=()
have_obs=1
[ -x "$BIN/loadlens-observer" ] || have_obs=0
SET=()
for s in $SETTINGS; do
	case $s in
	none | noop1 | noop2 | noop3 | noopssl) SET+=("$s") ;;
	observer | observer-noreq | observer-nouprobes | observer-noh2hb)
		if [ $have_obs = 0 ]; then
			NOTES+=("$s skipped: no $BIN/loadlens-observer")
		elif [ $s = observer-noreq ] &&
			! "$BIN/loadlens-observer" --help | grep -q -- --no-requests; then
			NOTES+=("$s skipped: $BIN/loadlens-observer has no --no-requests")
		else
			SET+=("$s")
		fi
		;;
	*)
		echo "event_cost.sh: unknown setting '$s' in SETTINGS" >&2
		exit 64
		;;
	esac
done
for v in $VARIANTS; do
	d=${v#*=}
	d=${d%%:*}
	case $v in *=*) ;; *)
		echo "event_cost.sh: variant '$v' is not NAME=BINDIR[:ARGS]" >&2
		exit 64
		;;
	esac
	[ -x "$d/loadlens-observer" ] ||
		{ echo "event_cost.sh: variant $v: no $d/loadlens-observer" >&2; exit 1; }
	SET+=("$v")
done

# start_helper SETTING: attach the setting's programs (none: nothing); waits until attached
start_helper() {
	local s=$1 dir args
	: >"$T/helper.out"
	: >"$T/helper.err"
	case $s in
	none) return 0 ;;
	noop3) set -- "$T/attach" "$T/noop.bpf.o" all "$HELPER_LIFE" ;;
	noop2) set -- "$T/attach" "$T/noop.bpf.o" sock_recv_length,sock_send_length "$HELPER_LIFE" ;;
	noop1) set -- "$T/attach" "$T/noop.bpf.o" sock_send_length "$HELPER_LIFE" ;;
	noopssl) set -- "$T/attach" "$T/noop.bpf.o" ssl_uprobes "$HELPER_LIFE" ;;
	observer) set -- "$BIN/loadlens-observer" --interval 0 ;;
	observer-nouprobes)
		set -- env LOADLENS_OBSERVER_NO_UPROBES=1 "$BIN/loadlens-observer" --interval 0 ;;
	observer-noh2hb)
		set -- env LOADLENS_OBSERVER_H2_HEADERS=off "$BIN/loadlens-observer" --interval 0 ;;
	observer-noreq) set -- "$BIN/loadlens-observer" --interval 0 --no-requests ;;
	*=*)
		dir=${s#*=}
		args=
		case $dir in *:*) args=${dir#*:}; dir=${dir%%:*} ;; esac
		set -- "$dir/loadlens-observer" --interval 0 ${args//,/ }
		;;
	esac
	case $s in
	observer* | *=*) set -- "$@" --port "$PORT" --duration "${HELPER_LIFE}s" ;;
	esac
	taskset -c "$HELPER_CPU" "$@" >"$T/helper.out" 2>"$T/helper.err" &
	HPID=$!
	for _ in $(seq 150); do
		grep -qE '^attached|observing' "$T/helper.err" && return 0
		kill -0 "$HPID" 2>/dev/null || break
		sleep 0.1
	done
	echo "event_cost.sh: setting $s did not attach within 15 s:" >&2
	cat "$T/helper.err" >&2
	exit 1
}
# stop_helper: SIGINT, up to 10 s to detach and print its summary, then SIGKILL
stop_helper() {
	[ -n "$HPID" ] || return 0
	kill -INT "$HPID" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$HPID" 2>/dev/null || break
		sleep 0.1
	done
	kill -KILL "$HPID" 2>/dev/null
	wait "$HPID" 2>/dev/null
	HPID=
}
# pingpong N REPS > file: one run on CPU, bounded; in the background so that a signal to this
# script is handled at once (bash runs traps only between foreground commands)
pingpong() {
	local rc
	timeout "$RUN_TIMEOUT" taskset -c "$CPU" "$T/pingpong" "$PORT" "$1" "$2" "$WARMUP" &
	RUNPID=$!
	wait "$RUNPID"
	rc=$?
	RUNPID=
	[ $rc = 0 ] || { echo "event_cost.sh: pingpong failed (exit $rc)" >&2; exit 1; }
}

# Context for the reader: load, and BPF programs others attached (they run in every setting).
LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
OTHERS=$(bpftool -j prog show 2>/dev/null | python3 -c '
import collections, json, sys
kinds = ("tracing", "raw_tracepoint", "tracepoint", "kprobe")
names = collections.Counter(p.get("name", "?") for p in json.load(sys.stdin)
                            if p.get("type") in kinds)
print(", ".join(n + (" x%d" % c if c > 1 else "") for n, c in sorted(names.items())) or "none")')

echo "warm-up run" >&2
pingpong "$N" 1 >/dev/null
sysctl -qw kernel.bpf_stats_enabled=0
: >"$T/runs.tsv"
: >"$T/checks"
stats_on=0
seq_no=0
# run_one ROUND SETTING: one run, appended to runs.tsv as SEQ ROUND NAME REPS...
run_one() {
	local r=$1 s=$2 n
	start_helper "$s"
	[ "$(sysctl -n kernel.bpf_stats_enabled)" = 0 ] || stats_on=$((stats_on + 1))
	pingpong "$N" "$REPS" >"$T/run.out"
	stop_helper
	seq_no=$((seq_no + 1))
	printf '%s\t%s\t%s\t%s\n' "$seq_no" "$r" "${s%%=*}" "$(tr '\n' ' ' <"$T/run.out")" \
		>>"$T/runs.tsv"
	# the observer must have timed every request: WARMUP + N * REPS
	case $s in observer* | *=*)
		n=$(awk -v p="tcp/$PORT:" '$1 == p { print $2 }' "$T/helper.out")
		echo "${s%%=*} round $r: observer timed ${n:-no} requests of $((WARMUP + N * REPS))" \
			>>"$T/checks"
		;;
	esac
	echo "round $r/$ROUNDS: $s, median $(sort -n "$T/run.out" |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }') ns/round trip" >&2
}
# Each round: none, then each setting followed by none again, so every setting run sits between
# two "none" runs a second apart; the order of the settings reverses every other round.
OTHER=()
for s in "${SET[@]}"; do [ "$s" = none ] || OTHER+=("$s"); done
for r in $(seq "$ROUNDS"); do
	order=("${OTHER[@]}")
	if [ $((r % 2)) = 0 ]; then
		order=()
		for ((i = ${#OTHER[@]} - 1; i >= 0; i--)); do order+=("${OTHER[i]}"); done
	fi
	run_one "$r" none
	for s in "${order[@]}"; do
		run_one "$r" "$s"
		run_one "$r" none
	done
done

echo "## One tracepoint program's cost per event: loopback TCP ping-pong"
echo
echo "$(uname -r), $(nproc) CPUs, $(date -u '+%Y-%m-%d %H:%M UTC'); load average at start $LOAD0."
echo "pingpong on CPU $CPU (attach/observer on CPU $HELPER_CPU), port $PORT. $ROUNDS rounds; in"
echo "each, every setting runs once between two runs of none (order reversed every other round)."
echo "A run = $REPS reps of $N round trips after $WARMUP warm-up round trips."
echo "kernel.bpf_stats_enabled found on in $stats_on runs."
echo "Tracing BPF programs already loaded by others (they run in every setting): $OTHERS."
for n in "${NOTES[@]}"; do echo "Note: $n."; done
echo
python3 - "$T/runs.tsv" <<'EOF'
import statistics as st, sys
rows = []
for l in open(sys.argv[1]):
    q, r, s, v = l.rstrip("\n").split("\t")
    x = [float(y) for y in v.split()]
    rows.append((int(q), int(r), s, st.median(x), min(x), x))
rows.sort()
order = []
med, inc, finc, reps = {}, {}, {}, {}
for i, (q, r, s, m, f, x) in enumerate(rows):
    if s not in order:
        order.append(s)
    med.setdefault(s, {}).setdefault(r, []).append(m)
    reps.setdefault(s, []).extend(x)
    if s == "none":
        continue
    # reference: the none runs just before and after (a linear drift cancels)
    refs = [rows[j] for j in (i - 1, i + 1) if 0 <= j < len(rows) and rows[j][2] == "none"]
    inc.setdefault(s, {})[r] = m - st.mean(y[3] for y in refs)
    finc.setdefault(s, {})[r] = f - st.mean(y[4] for y in refs)
inv = {"noop3": 6, "noop2": 4, "noop1": 2, "observer": 6, "noopssl": 8}
print("| Setting | ns/round trip: median | min | increase over none, paired: median (min..max) "
      "| same, from run floors | invocations per round trip "
      "| ns per invocation: paired (from floors) |")
print("|---|---|---|---|---|---|---|")
for s in order:
    m = st.median(v for by in med[s].values() for v in by)
    mn = min(reps[s])
    if s == "none":
        print("| none | %.0f | %.0f | | | | |" % (m, mn))
        continue
    d, f = list(inc[s].values()), st.median(finc[s].values())
    k = inv.get(s)
    per = "%.1f (%.1f)" % (st.median(d) / k, f / k) if k else ""
    print("| %s | %.0f | %.0f | %+.0f (%+.0f..%+.0f) | %+.0f | %s | %s |" % (
        s, m, mn, st.median(d), min(d), max(d), f, k or "", per))
if "observer" in inc and "noop3" in inc:
    d = [inc["observer"][r] - inc["noop3"][r] for r in inc["observer"] if r in inc["noop3"]]
    f = [finc["observer"][r] - finc["noop3"][r] for r in finc["observer"] if r in finc["noop3"]]
    print()
    print("observer - noop3, per round: median %+.0f ns per round trip (%+.0f..%+.0f; from floors "
          "%+.0f): the observer's own work on the same 6 events (3 on the server's socket, 3 early "
          "exits on the client's), beyond the glue every attached program pays." %
          (st.median(d), min(d), max(d), st.median(f)))
w = max(len(s) for s in order) + 1
print()
print("Per round: run medians (none: median of the round's none runs), then each setting's")
print("increase over the none runs around it, ns per round trip:")
print()
print("```")
for s in order:
    print("%-*s %s" % (w, s, " ".join("%6.0f" % st.median(med[s][r]) for r in sorted(med[s]))))
for s in order[1:]:
    print("%-*s %s" % (w, "+" + s, " ".join("%+6.0f" % inc[s][r] for r in sorted(inc[s]))))
print("```")
EOF
if [ -s "$T/checks" ]; then
	echo
	echo "Observer request counts:"
	echo
	echo '```'
	cat "$T/checks"
	echo '```'
fi

[ "$STATS" = 1 ] || exit 0
echo
echo "## Inside the programs (kernel.bpf_stats_enabled=1, one run of $REPS x $N round trips each)"
echo
echo "run_cnt counts every run on the host (other sockets too); runs per round trip divides it by"
echo "the run's round trips, warm-up included. ns per run is run_time_ns / run_cnt: the kernel"
echo "reads sched_clock before and after the indirect call into the program (a retpoline where"
echo "Spectre v2 mitigations are on), so it holds the program plus a fixed floor of the timing"
echo "itself. A no-op's ns per run is that floor; \"above no-op\" subtracts the mean no-op figure:"
echo "the body's own time, averaged over both ends (the client's end is an early exit)."
echo
: >"$T/stats.tsv"
for s in "${SET[@]}"; do
	case $s in none | observer-noreq | observer-nouprobes) continue ;; esac
	sysctl -qw kernel.bpf_stats_enabled=1
	start_helper "$s"
	# only this helper's programs (fds of programs and of links both name a prog_id)
	ids=$(cat /proc/"$HPID"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -un)
	bpftool -j prog show >"$T/before.json"
	pingpong "$N" "$REPS" >"$T/run.out"
	bpftool -j prog show >"$T/after.json"
	stop_helper
	sysctl -qw kernel.bpf_stats_enabled=0
	python3 - "$T/before.json" "$T/after.json" "${s%%=*}" $ids >>"$T/stats.tsv" <<'EOF'
import json, sys
before = {p["id"]: p for p in json.load(open(sys.argv[1]))}
after = {p["id"]: p for p in json.load(open(sys.argv[2]))}
for i in map(int, sys.argv[4:]):
    a, b = after.get(i), before.get(i, {})
    if a:
        print("%s\t%s\t%d\t%d" % (sys.argv[3], a.get("name", "?"),
                                  a.get("run_cnt", 0) - b.get("run_cnt", 0),
                                  a.get("run_time_ns", 0) - b.get("run_time_ns", 0)))
EOF
done
python3 - "$T/stats.tsv" $((WARMUP + N * REPS)) <<'EOF'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
rts = int(sys.argv[2])
noop = [int(t) / int(n) for s, _, n, t in rows if s in ("noop1", "noop2", "noop3") and int(n)]
floor = sum(noop) / len(noop) if noop else None
print("| Setting | Program | run_cnt | runs per round trip | ns per run | above no-op |")
print("|---|---|---|---|---|---|")
for s, name, n, t in rows:
    n, t = int(n), int(t)
    if n < rts / 100: # per connection, not per round trip (accept, state changes)
        continue
    above = "%+.1f" % (t / n - floor) if floor is not None and not s.startswith("noop") else ""
    print("| %s | %s | %d | %.3f | %.1f | %s |" % (s, name, n, n / rts, t / n, above))
EOF
echo
echo "kernel.bpf_stats_enabled restored to $STATS0 on exit."
