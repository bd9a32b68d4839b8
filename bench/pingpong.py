#!/usr/bin/python3
"""The driver's ping-pong round trip against sockperf's, pooled over many alternated runs.

    bench/pingpong.py [--bin build/bin] [--before DIR] [--floors] [--rounds 30] [--dur 1]
                      [--protos udp,tcp] [--places cross,same] [--seed 1]

One 64-byte message in flight against `sockperf server` (3.7), so every client talks to the
same server: `sockperf ping-pong --full-rtt` and the driver's closed loop with one slot
(`-c 1 --payload` of one sockperf message; tcp with `--response fixed:64`). The server runs on
CPU 0 ("cross") or CPU 1 ("same"), the clients on CPU 1. --before DIR adds an earlier build's
driver; --floors adds bench/pingpong_floor.c's minimal C clients (blocking recv(), and recv()
with a 1 ms SO_RCVTIMEO, as the driver's one-slot closed loop read before its tick).

Why pooled: on a VM each round trip lands at one of two levels (about 17.5 and 23 us here, the
host's doing, not the client's) in a proportion that drifts from second to second, and a p50
sits between them. A run's p50 then says more about the moment than about the client. So the
clients alternate in short runs (the order rotated each round), and every round trip of every
round is pooled per client: all clients see the same mix of moments. sockperf's and the floors'
round trips are put in the driver's histogram buckets (include/loadlens/hist.h: 128 ns wide
at 16-32 us), so both sides have the same resolution.

Printed, as Markdown: per client the pooled p10/p25/p50/p75/p90; the driver's pooled p50
against sockperf's with a 95% bootstrap interval over rounds (rounds drawn with replacement,
1,000 times); the p10 and p90 ratios; and the median of the per-round p50 ratios (the old
measure, for comparison). Loopback only; every run is bounded by --dur.
"""
import argparse
import collections
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tempfile
import time

SUB_BITS = 7  # LL_HIST_SUB_BITS
QS = (0.10, 0.25, 0.50, 0.75, 0.90)


def bucket(v):
    """ll_hist_bucket(): the bucket index of v ns."""
    v = int(v)
    if v < (1 << SUB_BITS):
        return v
    shift = v.bit_length() - 1 - SUB_BITS
    return ((shift + 1) << SUB_BITS) + ((v >> shift) - (1 << SUB_BITS))


def bucket_mid(i):
    """ll_hist_bucket_value(): the middle of bucket i, ns."""
    if i < (1 << SUB_BITS):
        return float(i)
    shift = (i >> SUB_BITS) - 1
    low = ((1 << SUB_BITS) + (i & ((1 << SUB_BITS) - 1))) << shift
    return low + (1 << shift) / 2


def quantile(h, q):
    """The q quantile (µs) of a Counter {bucket: count}."""
    total = sum(h.values())
    acc = 0
    for i in sorted(h):
        acc += h[i]
        if acc >= q * total:
            return bucket_mid(i) / 1e3
    return 0.0


def free_port(proto):
    kind = socket.SOCK_DGRAM if proto == "udp" else socket.SOCK_STREAM
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Bench:
    def __init__(self, a, tmp):
        self.a, self.tmp = a, tmp
        self.span_ms = a.dur * 1000 - 450  # what sockperf measures of its run
        self.msg = os.path.join(tmp, "sp64.bin")
        # a sockperf message: 8-byte sequence, flags (client, pong request), 4-byte size
        head = bytes.fromhex("0000000000000001000300000040")
        with open(self.msg, "wb") as f:
            f.write(head + b"x" * (64 - len(head)))
        self.floor = None
        if a.floors:
            self.floor = os.path.join(tmp, "pingpong_floor")
            here = os.path.dirname(os.path.abspath(__file__))
            subprocess.run(["cc", "-O2", "-o", self.floor, os.path.join(here, "pingpong_floor.c")],
                           check=True)

    def run(self, cmd, timeout):
        subprocess.run(["taskset", "-c", "1"] + cmd, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL, check=True, timeout=timeout)

    def sockperf(self, proto, port):
        log = os.path.join(self.tmp, "sp.csv")
        # whole seconds; its first 400 ms are warm-up and its last 50 ms are left out
        self.run(["sockperf", "ping-pong", "-i", "127.0.0.1", "-p", str(port), "-m", "64",
                  "-t", str(self.a.dur), "--full-rtt", "--full-log", log]
                 + (["--tcp"] if proto == "tcp" else []), self.a.dur + 30)
        h = collections.Counter()
        rows = False
        with open(log) as f:
            for line in f:
                if line.startswith("packet,"):
                    rows = True
                elif rows:
                    cols = line.split(",")
                    if len(cols) == 4:
                        h[bucket(float(cols[3]) * 1e3)] += 1
        return h

    def driver(self, bindir, proto, port):
        out = os.path.join(self.tmp, "d.json")
        self.run([os.path.join(bindir, "loadlens-driver"), "%s://127.0.0.1:%d" % (proto, port),
                  "--payload", self.msg, "-c", "1", "-d", "%dms" % self.span_ms, "--timeout", "1s",
                  "-q", "--interval", "0", "--json", out]
                 + (["--response", "fixed:64"] if proto == "tcp" else []), self.a.dur + 30)
        with open(out) as f:
            lat = json.load(f)["latency"]
        if lat["sub_bits"] != SUB_BITS:
            sys.exit("the driver's histogram has sub_bits %d, this script %d"
                     % (lat["sub_bits"], SUB_BITS))
        return collections.Counter({i: n for i, n in lat["buckets"]})

    def floor_client(self, mode, proto, port):
        out = os.path.join(self.tmp, "f.txt")
        self.run([self.floor, proto, str(port), "%g" % (self.span_ms / 1e3), mode, out],
                 self.a.dur + 30)
        with open(out) as f:
            return collections.Counter(bucket(int(v)) for v in f)

    def clients(self, proto, port):
        a = self.a
        c = [("sockperf", lambda: self.sockperf(proto, port)),
             ("driver", lambda: self.driver(a.bin, proto, port))]
        if a.before:
            c.append(("driver, before", lambda: self.driver(a.before, proto, port)))
        if self.floor:
            c.append(("C recv()", lambda: self.floor_client("recv", proto, port)))
            c.append(("C recv(), 1 ms timeout", lambda: self.floor_client("timeo", proto, port)))
        return c

    def one(self, proto, place):
        """All rounds of one protocol and placement: {client: [Counter per round]}."""
        port = free_port(proto)
        srv = subprocess.Popen(["taskset", "-c", "0" if place == "cross" else "1", "sockperf",
                                "server", "-i", "127.0.0.1", "-p", str(port)]
                               + (["--tcp"] if proto == "tcp" else []),
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(0.5)
            clients = self.clients(proto, port)
            rounds = {name: [] for name, _ in clients}
            for r in range(self.a.rounds):
                k = r % len(clients)
                for name, fn in clients[k:] + clients[:k]:
                    rounds[name].append(fn())
            return rounds
        finally:
            srv.terminate()
            srv.wait()


def pooled(hs, idx=None):
    total = collections.Counter()
    for i in idx if idx is not None else range(len(hs)):
        total.update(hs[i])
    return total


def bootstrap(num, den, q, rng, n=1000):
    """95% interval of pooled(num) q / pooled(den) q, rounds drawn with replacement."""
    r = len(num)
    ratios = []
    for _ in range(n):
        idx = [rng.randrange(r) for _ in range(r)]
        ratios.append(quantile(pooled(num, idx), q) / quantile(pooled(den, idx), q))
    ratios.sort()
    return ratios[int(0.025 * n)], ratios[int(0.975 * n) - 1]


def pct(x):
    return "%+.1f%%" % ((x - 1) * 100)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                                  "..", "build", "bin"))
    ap.add_argument("--before", help="an earlier build's bin directory, run in the same rounds")
    ap.add_argument("--floors", action="store_true", help="the minimal C clients too")
    ap.add_argument("--rounds", type=int, default=30)
    ap.add_argument("--dur", type=int, default=1,
                    help="sockperf's -t (whole seconds, of which it measures all but 450 ms); "
                         "the other clients run for what it measures")
    ap.add_argument("--protos", default="udp,tcp")
    ap.add_argument("--places", default="cross,same")
    ap.add_argument("--seed", type=int, default=1, help="the bootstrap's")
    a = ap.parse_args()
    if not shutil.which("sockperf"):
        sys.exit("needs sockperf (apt-get install -y sockperf)")
    for d in [a.bin] + ([a.before] if a.before else []):
        if not os.access(os.path.join(d, "loadlens-driver"), os.X_OK):
            sys.exit("no loadlens-driver in %s" % d)
    if a.rounds < 2 or a.dur < 1:
        sys.exit("--rounds needs 2 or more and --dur 1 or more")
    rng = random.Random(a.seed)
    with tempfile.TemporaryDirectory(prefix="loadlens-pingpong") as tmp:
        b = Bench(a, tmp)
        print("%d rounds of %.2f s a client, clients rotated each round; load average %s at the "
              "start, %s UTC\n" % (a.rounds, b.span_ms / 1e3, open("/proc/loadavg").read().split()[0],
                                   time.strftime("%H:%M", time.gmtime())))
        print("| proto | placement | client | round trips | p10 | p25 | p50 | p75 | p90 µs "
              "| p50 vs sockperf, pooled [95%] | p10 | p90 | median of the rounds' p50 ratios |")
        print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
        for proto in a.protos.split(","):
            for place in a.places.split(","):
                rounds = b.one(proto, place)
                sp = rounds["sockperf"]
                sp_pool = pooled(sp)
                for name, hs in rounds.items():
                    pool = pooled(hs)
                    cells = ["%.2f" % quantile(pool, q) for q in QS]
                    vs = ["", "", "", ""]
                    if name != "sockperf":
                        lo, hi = bootstrap(hs, sp, 0.5, rng)
                        per = sorted(quantile(h, 0.5) / quantile(s, 0.5) for h, s in zip(hs, sp))
                        vs = ["**%s** [%s..%s]" % (pct(quantile(pool, 0.5) / quantile(sp_pool, 0.5)),
                                                    pct(lo), pct(hi)),
                              pct(quantile(pool, 0.1) / quantile(sp_pool, 0.1)),
                              pct(quantile(pool, 0.9) / quantile(sp_pool, 0.9)),
                              pct(per[len(per) // 2])]
                    print("| %s | %s | %s | %d | %s | %s |" % (proto, place, name,
                                                             sum(pool.values()), " | ".join(cells),
                                                             " | ".join(vs)), flush=True)
        print("\nload average at the end: %s" % open("/proc/loadavg").read().split()[0])


if __name__ == "__main__":
    main()
