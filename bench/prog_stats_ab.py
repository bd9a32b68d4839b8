#!/usr/bin/env python3
"""Per-program cost of observer builds, side by side, from kernel.bpf_stats_enabled.

    bench/prog_stats_ab.py [--rounds N] [--rt N] NAME=BINDIR[:h2|:h1] ...   (as root)

Each round runs every setting once, in turn: BINDIR/loadlens-observer watching the ping-pong's
port, then bench/event_cost/pingpong.c (one thread on --cpu, a loopback TCP ping-pong; ":h2" sends
its round trips as HTTP/2 frames, PINGPONG_H2=1; the observer on --helper-cpu) with bpf_stats on, and reads run_cnt and
run_time_ns of the observer's handle_sock_* programs before and after. A run where a program ran
more than twice a round trip had other sockets' events in it (a shared machine: those runs are
early exits and would pull its mean down) and is left out, and said. Prints, per setting and
program, the median ns per run and its range over the rounds kept: the mean of the server's end
(the walk) and the client's (an early exit), as event_cost.sh's table. Alternating the settings
run by run is what makes two builds comparable on a machine whose speed wanders by 10-30% over
minutes: medians of alternated runs, never one run against another.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def prog_stats(ids):
    out = json.loads(subprocess.check_output(["bpftool", "-j", "prog", "show"]))
    return {p["id"]: p for p in out if p["id"] in ids}


def one_run(bindir, h2, args, pingpong):
    err = tempfile.TemporaryFile()
    obs = subprocess.Popen(["taskset", "-c", str(args.helper_cpu),
                            os.path.join(bindir, "loadlens-observer"), "--interval", "0",
                            "--port", str(args.port), "--duration", "120s"],
                           stdout=subprocess.DEVNULL, stderr=err)
    try:
        for _ in range(300):
            err.seek(0)
            if b"observing" in err.read():
                break
            if obs.poll() is not None:
                sys.exit("prog_stats_ab: %s/loadlens-observer exited %d" % (bindir, obs.returncode))
            time.sleep(0.1)
        ids = set()
        for fd in os.listdir("/proc/%d/fdinfo" % obs.pid):
            try:
                for line in open("/proc/%d/fdinfo/%s" % (obs.pid, fd)):
                    if line.startswith("prog_id:"):
                        ids.add(int(line.split()[1]))
            except OSError:
                pass
        subprocess.check_call(["sysctl", "-qw", "kernel.bpf_stats_enabled=1"])
        before = prog_stats(ids)
        env = dict(os.environ, PINGPONG_H2="1" if h2 else "0")
        subprocess.check_call(["taskset", "-c", str(args.cpu), pingpong, str(args.port),
                               str(args.rt), "1", str(args.warmup)],
                              env=env, stdout=subprocess.DEVNULL)
        after = prog_stats(ids)
    finally:
        subprocess.call(["sysctl", "-qw", "kernel.bpf_stats_enabled=0"])
        obs.terminate()
        obs.wait()
    rows = {}
    for i, a in after.items():
        name = a.get("name", "")
        if not name.startswith("handle_sock_"):
            continue
        b = before.get(i, {})
        n = a.get("run_cnt", 0) - b.get("run_cnt", 0)
        t = a.get("run_time_ns", 0) - b.get("run_time_ns", 0)
        if n:
            rows[name] = (n / (args.rt + args.warmup), t / n)
    return rows


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("settings", nargs="+", help="NAME=BINDIR[:h2|:h1]")
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--rt", type=int, default=20000, help="round trips a run (after warm-up)")
    ap.add_argument("--warmup", type=int, default=2000)
    ap.add_argument("--cpu", type=int, default=1, help="the ping-pong's CPU")
    ap.add_argument("--helper-cpu", type=int, default=0, help="the observer's CPU")
    ap.add_argument("--port", type=int, default=18530)
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("prog_stats_ab: run as root (bpf_stats, the observer)")
    sets = []
    for s in args.settings:
        name, _, rest = s.partition("=")
        bindir, _, mode = rest.partition(":")
        if not name or not bindir or mode not in ("", "h1", "h2"):
            sys.exit("prog_stats_ab: a setting is NAME=BINDIR[:h2|:h1], not %r" % s)
        sets.append((name, bindir, mode == "h2"))
    tmp = tempfile.mkdtemp(prefix="prog_stats_ab.")
    pingpong = os.path.join(tmp, "pingpong")
    subprocess.check_call(["cc", "-O2", "-o", pingpong,
                           os.path.join(HERE, "event_cost", "pingpong.c"), "-lssl", "-lcrypto"])
    kept = {}
    dropped = 0
    for r in range(args.rounds):
        order = sets if r % 2 == 0 else sets[::-1]
        for name, bindir, h2 in order:
            rows = one_run(bindir, h2, args, pingpong)
            if any(per_rt > 2.01 for per_rt, _ in rows.values()):
                dropped += 1
                continue
            for prog, (_, ns) in rows.items():
                kept.setdefault((name, prog), []).append(ns)
        print("round %d/%d done" % (r + 1, args.rounds), file=sys.stderr)
    print("| setting | program | runs kept | ns per run: median | range |")
    print("|---|---|---|---|---|")
    for name, _, _ in sets:
        for (n, prog), v in sorted(kept.items()):
            if n == name:
                print("| %s | %s | %d | %.1f | %.1f..%.1f |" %
                      (name, prog, len(v), statistics.median(v), min(v), max(v)))
    print("\n%d runs of %d left out: other sockets' events ran in them." %
          (dropped, args.rounds * len(sets)))


if __name__ == "__main__":
    main()
