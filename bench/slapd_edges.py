#!/usr/bin/python3
"""slapd_edges.py DIR PORT: the edges of slapd's etime against its syscalls (bench/slapd_edges.sh).

DIR holds slapd.err (its stats log), trace.csv (the observer's --trace) and perf.txt (perf script
of raw_syscalls:sys_enter/sys_exit on slapd, CLOCK_MONOTONIC ns). etime's end is the RESULT
line's own stamp, o_time that less its etime: both later than slapd's gettimeofday() by the
line's formatting (under a microsecond), so the first two edges and the third read high by that.
"""
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "integration"))
from slapd_etime import slapd_log, trace  # noqa: E402

SYSCALL = re.compile(r"\s*(\d+)\s+(\d+)\.(\d+):\s+raw_syscalls:sys_(enter|exit): NR (\d+) (.*)")
READ, WRITE = 0, 1


def syscalls(path, shift):
    """{(nr, fd): [(exit ns, ret), ...]} of read and write, on CLOCK_REALTIME"""
    entered, calls = {}, {}
    with open(path) as f:
        for line in f:
            m = SYSCALL.match(line)
            if not m:
                continue
            tid, sec, ns, kind, nr, rest = m.groups()
            t, nr = int(sec) * 10**9 + int(ns) + shift, int(nr)
            if kind == "enter":
                if nr in (READ, WRITE):
                    entered[tid] = (nr, int(rest.strip("()").split(",")[0], 16))
                continue
            call = entered.pop(tid, None)
            if call and call[0] == nr:
                calls.setdefault(call, []).append((t, int(rest.split("=")[1])))
    return calls


def main():
    if len(sys.argv) != 3:
        print(__doc__.split("\n\n")[0], file=sys.stderr)
        sys.exit(64)
    d, port = sys.argv[1], int(sys.argv[2])
    with open(os.path.join(d, "trace.csv")) as f:
        shift = int(re.search(r"realtime_minus_monotonic_ns=(-?\d+)", f.read()).group(1))
    ops, conns, _, _ = slapd_log(os.path.join(d, "slapd.err"))
    reads = trace(os.path.join(d, "trace.csv"), port)
    calls = syscalls(os.path.join(d, "perf.txt"), shift)
    edges = {"o_time - exit of the PDU's first read": [],
             "o_time - exit of its second read": [],
             "etime's end (RESULT stamp) - exit of the reply's last write": [],
             "observer's read stamp - exit of the first read": []}
    for (conn, op), (o_time, etime) in ops.items():
        cport, fd = conns[conn]
        rd = [c for c in calls.get((READ, fd), []) if c[1] > 0 and c[0] <= o_time + 2000]
        wr = [c for c in calls.get((WRITE, fd), []) if c[0] <= o_time + etime + 2000]
        if len(rd) < 2 or rd[-2][1] > 9 or not wr:
            continue
        first, second = rd[-2][0], rd[-1][0]
        vals = [o_time - first, o_time - second, o_time + etime - wr[-1][0]]
        obs = reads.get(cport, [])
        vals.append(obs[op] - first if op < len(obs) else None)
        for k, v in zip(edges, vals):
            if v is not None:
                edges[k].append(v)
    print(f"{len(edges['o_time - exit of its second read'])} of {len(ops)} operations matched")
    for k, v in edges.items():
        if v:
            print(f"{k}: p50 {statistics.median(v) / 1e3:.1f} us, mean"
                  f" {statistics.mean(v) / 1e3:.1f} us")


if __name__ == "__main__":
    main()
