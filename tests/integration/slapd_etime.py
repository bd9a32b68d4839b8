#!/usr/bin/python3
"""The observer's request timing on slapd against slapd's own stats log, request by request.

usage: slapd_etime.py NAME SLAPD_LOG OBSERVER_JSON TRACE_CSV PORT PCT END_US|RATIOx

slapd 2.5 takes an operation's start (o_time) after its pool thread has read the whole PDU and
decoded the messageID, and its end (etime) after the last PDU of the reply was written. liblber
reads a PDU in two reads (the tag and length, then the rest), and the observer's service begins
at the first, so the observer's window is longer by the second read and the decoding. That start
offset is measured here for each request: o_time (the SEARCH RESULT or bind RESULT line's own
time stamp less its etime) less the observer's read time from --trace (CLOCK_MONOTONIC, moved to
CLOCK_REALTIME by the trace's realtime_minus_monotonic_ns). At the other end slapd stamps etime
after its last write has returned and its reply's bookkeeping is done (send_ldap_ber's unlock,
the operation's counters, the response callbacks), where the observer's window ends inside that
write: END_US, that fixed time, is added to the observer's side (the exit of the write() syscall
to the stamp of slapd's SEARCH RESULT line, measured with perf's raw_syscalls: bench/slapd_edges.sh).
Both edges are slapd's own work beside a syscall, and both scale with the machine: the end was
3 us where the start offset was 6-9 us, and 0.9 us where it was 2.1 us (2026-11-25, a faster
day). So RATIOx (say 0.4x) takes the end as that fraction of this run's mean start offset.
Checks, one line each on failure (exit 1; exit 2 when only the timing missed):
the observer's requests = slapd's searches + binds, every search a multi-write response, every
request traced and joined to its operation (the k-th request of a client port = op=k of the
connection slapd accepted from it), no o_time before the observer's read, and the observer's
mean service to the last write, less the mean start offset, plus END_US, within PCT% of slapd's
mean etime.
"""
import csv
import json
import re
import statistics
import sys

LINE = re.compile(r"^([0-9a-f]+)\.([0-9a-f]+) \S+ conn=(\d+) (.*)$")
RESULT = re.compile(r"^op=(\d+) (SEARCH RESULT|RESULT) tag=\d+ err=\d+ qtime=\S+ etime=(\d+)\.(\d+) ")
ACCEPT = re.compile(r"^fd=(\d+) ACCEPT from IP=[^:]+:(\d+) ")


def slapd_log(path):
    """({(conn, op): (o_time ns, etime ns)}, {conn: (client port, fd)}, searches, binds)"""
    ops, ports, srch, bind = {}, {}, 0, 0
    with open(path, errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            stamp = int(m.group(1), 16) * 10**9 + int(m.group(2), 16)
            conn, rest = int(m.group(3)), m.group(4)
            if " SRCH base=" in line:
                srch += 1
            elif " BIND dn=" in line:
                bind += 1
            r = RESULT.match(rest)
            if r:
                etime = int(r.group(3)) * 10**9 + int(r.group(4)) * 1000
                ops[(conn, int(r.group(1)))] = (stamp - etime, etime)
                continue
            a = ACCEPT.match(rest)
            if a:
                ports[conn] = (int(a.group(2)), int(a.group(1)))
    return ops, ports, srch, bind


def trace(path, port):
    """{client port: [read ns, ...] in time order}, on CLOCK_REALTIME"""
    shift, rows = None, []
    with open(path) as f:
        for line in f:
            if line.startswith("#"):
                m = re.search(r"realtime_minus_monotonic_ns=(-?\d+)", line)
                if m:
                    shift = int(m.group(1))
                continue
            rows.append(line)
    if shift is None:
        sys.exit(f"{path}: no realtime_minus_monotonic_ns line")
    by_port = {}
    for r in csv.DictReader(rows):
        if r["proto"] != "tcp" or not r["local"].endswith(f":{port}"):
            continue
        by_port.setdefault(int(r["peer"].rsplit(":", 1)[1]), []).append(int(r["read_ns"]) + shift)
    for reads in by_port.values():
        reads.sort()
    return by_port


def us(ns):
    return ns / 1000.0


def main():
    if len(sys.argv) != 8:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        sys.exit(64)
    name, log, obs_json, trace_csv, port, pct, end_us = sys.argv[1:]
    ratio = float(end_us[:-1]) if end_us.endswith("x") else None
    port, pct = int(port), float(pct)
    end_ns = 0.0 if ratio is not None else float(end_us) * 1000
    ops, ports, srch, bind = slapd_log(log)
    with open(obs_json) as f:
        slot = next(s for s in json.load(f)["request_timing"]["slots"]
                    if s["proto"] == "tcp" and s["port"] == port)
    reads = trace(trace_csv, port)
    bad = []
    if slot["requests"] != srch + bind:
        bad.append(f"observer counted {slot['requests']} requests, slapd's log {srch} searches"
                   f" + {bind} binds")
    if slot["unanswered"] or slot["multi_write"] != srch:
        bad.append(f"observer: {slot['unanswered']} unanswered, {slot['multi_write']} multi-write"
                   f" responses for {srch} searches")
    traced = sum(len(v) for v in reads.values())
    if traced != slot["requests"] or slot["trace_lost"]:
        bad.append(f"trace: {traced} requests of {slot['requests']}, {slot['trace_lost']} lost")
    start, etimes = [], []
    for conn, (cport, _) in ports.items():
        for k, read in enumerate(reads.get(cport, [])):
            op = ops.get((conn, k))
            if op is None:
                bad.append(f"conn={conn} op={k}: traced, no RESULT line in slapd's log")
                break
            start.append(op[0] - read)
            etimes.append(op[1])
    if len(start) != len(ops) or len(ops) != srch + bind:
        bad.append(f"joined {len(start)} requests to {len(ops)} RESULT lines"
                   f" ({srch} searches + {bind} binds)")
    if not start:
        sys.exit(f"{name}: " + "; ".join(bad or ["nothing to compare"]))
    early = sum(1 for d in start if d < -1000)
    if early:
        bad.append(f"{early} operations began (o_time) more than 1 us before the observer's read")
    last = slot["service_time_last_write"]
    obs_mean = last["sum"] / last["count"]
    off_mean = statistics.mean(start)
    et_mean = statistics.mean(etimes)
    if ratio is not None:  # the end edge as a fraction of the start's, this run's
        end_ns = ratio * off_mean
        end_us = f"{end_ns / 1000:.1f}"
    corrected = obs_mean - off_mean + end_ns
    diff = 100.0 * (corrected - et_mean) / et_mean
    first = slot["service_time"]
    et_p50 = statistics.median(etimes)
    p50diff = 100.0 * (last["p50"] - statistics.median(start) + end_ns - et_p50) / et_p50
    print(f"{name}: requests {slot['requests']} = {srch} searches + {bind} binds;"
          f" observer service to the last write mean {us(obs_mean):.1f} us"
          f" p50 {us(last['p50']):.1f}, to the first write mean"
          f" {us(first['sum'] / first['count']):.1f} p50 {us(first['p50']):.1f};"
          f" slapd etime mean {us(et_mean):.1f} p50 {us(et_p50):.1f};"
          f" start offset (o_time - read) mean {us(off_mean):.1f} p50"
          f" {us(statistics.median(start)):.1f}; raw {100.0 * (obs_mean - et_mean) / et_mean:+.1f}%,"
          f" less the start offset {100.0 * (obs_mean - off_mean - et_mean) / et_mean:+.1f}%,"
          f" plus {end_us} us at the end {diff:+.1f}% (p50s so: {p50diff:+.1f}%)")
    if bad:
        sys.exit("\n".join(f"{name}: {b}" for b in bad))
    if abs(diff) > pct:
        print(f"{name}: service to the last write less the start offset plus {end_us} us, mean"
              f" {us(corrected):.1f} us, is {diff:+.1f}% of slapd's mean etime {us(et_mean):.1f} us"
              f" (limit {pct}%)", file=sys.stderr)
        sys.exit(2)


if __name__ == "__main__":
    try:
        main()
    except (OSError, ValueError, KeyError, StopIteration) as e:
        print(f"slapd_etime.py: cannot read the inputs: {e!r}", file=sys.stderr)
        sys.exit(64)
