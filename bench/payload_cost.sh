#!/bin/bash
# What payload sampling (bpf/payload.bpf.h) costs the sock_recv_length program, by bpf_stats,
# paired: the same observer with sampling off (LOADLENS_OBSERVER_PAYLOAD=off), on (the default
# period), and sampling every new request (LOADLENS_OBSERVER_PAYLOAD_PERIOD_US=0: one sample's
# own cost), alternated in each round (order reversed every other round).
#
#   bench/payload_cost.sh [BUILD_BIN_DIR]      (as root; BUILD_BIN_DIR defaults to build/bin)
#
# Loads: "pingpong" (bench/event_cost/pingpong.c: one thread, 27-byte requests, 6 events per
# round trip; PP_N round trips x PP_REPS) and "redis" (redis-server on CPU 0, redis-benchmark
# -P 16 on CPU 1: reads of 16 SET or GET commands, 500-700 bytes; REDIS_N commands per test).
# Output (Markdown): per load and setting, the median over rounds of run_time_ns / run_cnt of
# handle_sock_recv_length, and of handle_sock_send_length (untouched by sampling: the drift of
# the machine), the reads sampled, and per round the on - off and every - off differences.
# A sample's own cost = (every - off) x runs / samples of the "every" run.
# Environment: ROUNDS (5), PP_N (20000), PP_REPS (5), REDIS_N (200000), LOADS ("pingpong
# redis"). Loopback only; every process is bounded in time and stopped on exit.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/common.sh"
bench_root
bench_bin "${1:-}"
bench_numbers ROUNDS=5 PP_N=20000 PP_REPS=5 REDIS_N=200000
LOADS=${LOADS:-pingpong redis}
for b in cc bpftool python3 taskset timeout "$BIN/loadlens-observer"; do
	command -v "$b" >/dev/null || { echo "payload_cost.sh: needs $b" >&2; exit 64; }
done
OPID=
SPID=
stop_all() {
	[ -n "$OPID" ] && kill -INT "$OPID" 2>/dev/null && wait "$OPID" 2>/dev/null
	[ -n "$SPID" ] && kill "$SPID" 2>/dev/null && wait "$SPID" 2>/dev/null
}
bench_bpf_stats loadlens-payload-cost stop_all
cc -O2 -Wall -o "$T/pingpong" "$HERE/event_cost/pingpong.c" || exit 1

# run LOAD SETTING ROUND: one observer run under bpf_stats; appends a line to $T/rows
run() {
	local load=$1 set=$2 round=$3 port env ids
	port=$((20000 + RANDOM % 20000))
	case $set in
	off) env=LOADLENS_OBSERVER_PAYLOAD=off ;;
	on) env=LOADLENS_OBSERVER_PAYLOAD=on ;;
	every) env=LOADLENS_OBSERVER_PAYLOAD_PERIOD_US=0 ;;
	esac
	if [ "$load" = redis ]; then
		taskset -c 0 timeout 120 redis-server --port "$port" --bind 127.0.0.1 --save "" \
			--appendonly no --dir "$T" >/dev/null 2>&1 &
		SPID=$!
		for _ in $(seq 50); do
			redis-cli -p "$port" ping >/dev/null 2>&1 && break
			sleep 0.1
		done
	fi
	env $env taskset -c 0 "$BIN/loadlens-observer" --port "$port" --interval 0 \
		--duration 120s --json "$T/o.json" >/dev/null 2>"$T/o.err" &
	OPID=$!
	for _ in $(seq 150); do
		grep -q observing "$T/o.err" && break
		sleep 0.1
	done
	sleep 0.5
	ids=$(cat /proc/"$OPID"/fdinfo/* 2>/dev/null | awk '/^prog_id:/ { print $2 }' | sort -un)
	sysctl -qw kernel.bpf_stats_enabled=1
	bpftool -j prog show >"$T/before.json"
	if [ "$load" = redis ]; then
		taskset -c 1 timeout 120 redis-benchmark -p "$port" -P 16 -c 4 -n "$REDIS_N" \
			-t set,get -q >/dev/null 2>&1
	else
		taskset -c 1 timeout 120 "$T/pingpong" "$port" "$PP_N" "$PP_REPS" >/dev/null
	fi
	bpftool -j prog show >"$T/after.json"
	sysctl -qw kernel.bpf_stats_enabled=0
	kill -INT "$OPID"
	wait "$OPID"
	OPID=
	if [ -n "$SPID" ]; then
		kill "$SPID"
		wait "$SPID" 2>/dev/null
		SPID=
	fi
	python3 - "$T/before.json" "$T/after.json" "$T/o.json" "$load" "$set" "$round" $ids \
		>>"$T/rows" <<'EOF'
import json, sys
b = {p["id"]: p for p in json.load(open(sys.argv[1]))}
a = {p["id"]: p for p in json.load(open(sys.argv[2]))}
o = json.load(open(sys.argv[3]))
ns = {}
for i in map(int, sys.argv[7:]):
    if i in a:
        n = a[i].get("run_cnt", 0) - b.get(i, {}).get("run_cnt", 0)
        t = a[i].get("run_time_ns", 0) - b.get(i, {}).get("run_time_ns", 0)
        ns[a[i].get("name")] = (n, t)
s = sum((x.get("payload") or {}).get("sampled_reads", 0)
        for x in o["request_timing"]["slots"])
rn, rt = ns.get("handle_sock_recv_length", (0, 0))
sn, st = ns.get("handle_sock_send_length", (0, 0))
print("\t".join(map(str, [sys.argv[4], sys.argv[5], sys.argv[6], rn, rt, sn, st, s])))
EOF
}

: >"$T/rows"
for load in $LOADS; do
	for r in $(seq "$ROUNDS"); do
		order="off on every"
		[ $((r % 2)) = 0 ] && order="every on off"
		for s in $order; do
			run "$load" "$s" "$r"
			echo "$load round $r: $s done" >&2
		done
	done
done
python3 - "$T/rows" <<'EOF'
import statistics as st, sys
rows = [l.split("\t") for l in open(sys.argv[1]) if l.strip()]
print("Runs (load, setting, round, recv runs, recv ns, send runs, send ns, reads sampled):")
print("```")
for r in rows:
    print(" ".join(x.strip() for x in r))
print("```")
print()
# a run whose observer saw no recv (it did not attach in time) is left out
rows = [r for r in rows if int(r[3]) and int(r[5])]
d = {}
for load, s, r, rn, rt, sn, stt, smp in rows:
    d.setdefault(load, {}).setdefault(s, {})[int(r)] = (int(rn), int(rt), int(sn), int(stt),
                                                        int(smp))
print("| Load | Setting | recv ns/run (median) | send ns/run (median) | recv runs | reads sampled |")
print("|---|---|---|---|---|---|")
for load, by in d.items():
    for s in ("off", "on", "every"):
        v = by.get(s, {}).values()
        print("| %s | %s | %.1f | %.1f | %d | %d |" % (
            load, s, st.median(rt / rn for rn, rt, *_ in v if rn),
            st.median(stt / sn for _, _, sn, stt, _ in v if sn),
            st.median(rn for rn, *_ in v), st.median(x[4] for x in v)))
print()
for load, by in d.items():
    on = [by["on"][r][1] / by["on"][r][0] - by["off"][r][1] / by["off"][r][0]
          for r in by.get("off", {}) if r in by.get("on", {})]
    ev = [(by["every"][r][1] - by["off"][r][1] / by["off"][r][0] * by["every"][r][0]) /
          by["every"][r][4] for r in by.get("off", {})
          if r in by.get("every", {}) and by["every"][r][4]]
    if not on or not ev:
        print("%s: too few complete rounds" % load)
        continue
    print("%s: on - off, paired per round: median %+.1f ns per recv run (%s); one sample's "
          "own cost (every - off, per read sampled): median %.0f ns (%s)" % (
              load, st.median(on), " ".join("%+.1f" % x for x in on), st.median(ev),
              " ".join("%.0f" % x for x in ev)))
EOF
