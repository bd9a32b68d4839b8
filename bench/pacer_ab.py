#!/usr/bin/python3
"""Two builds of the driver, paced against the refserver in alternating rounds.

    bench/pacer_ab.py BEFORE_BIN AFTER_BIN [--proto udp|tcp|http] [--rates 1000,10000,50000]
                      [--rounds 3] [--dur 3] [--conns 20]

The refserver (udp, tcp or http) runs on CPU 0, each driver on CPU 1. Per run it prints one Markdown row: CPU
per request, the worker's sleeps per request (its voluntary context switches, from the JSON's
driver.sleeps, or from /usr/bin/time for a build that does not count them), timer wake-ups per
request, latency p50/p99 (from the intended send), send lag p50/p99, the time spent polling and
spinning near a send, the worker's time runnable without a CPU, and the load average. Loopback
only; every run is bounded by --dur.
"""
import argparse
import json
import os
import socket
import subprocess
import sys
import tempfile
import time


def free_port(proto):
    kind = socket.SOCK_DGRAM if proto == "udp" else socket.SOCK_STREAM
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_driver(bindir, proto, port, rate, conns, dur, tmp):
    out = os.path.join(tmp, "o.json")
    tfile = os.path.join(tmp, "time")
    cmd = ["taskset", "-c", "1", "/usr/bin/time", "-f", "%w", "-o", tfile,
           os.path.join(bindir, "loadlens-driver"), "%s://127.0.0.1:%d/" % (proto, port),
           "-c", str(conns), "--rate", str(rate), "-d", "%ds" % dur, "-q", "--json", out]
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True,
                   timeout=dur + 30)
    with open(out) as f:
        d = json.load(f)
    with open(tfile) as f:
        vol = int(f.read().split()[-1])
    return d, vol


def row(label, rate, d, vol):
    dr, n = d["driver"], max(d["requests"], 1)
    sleeps = dr.get("sleeps", vol)  # the process's, main thread included, for an older build
    lat, lag = d["latency"], d["send_lag"]
    load = open("/proc/loadavg").read().split()[0]
    return ("| %s | %s | %d | %.1f | %.2f | %.2f | %.1f / %.1f | %.1f / %.1f | %.1f | %.0f | %s |"
            % (rate, label, d["requests"], dr["cpu_per_request_us"], sleeps / n,
               dr.get("timer_wakeups", 0) / n, lat.get("p50", 0) / 1e3, lat.get("p99", 0) / 1e3,
               lag.get("p50", 0) / 1e3, lag.get("p99", 0) / 1e3, dr.get("spin_ns", 0) / n / 1e3,
               dr.get("runq_wait_ns", 0) / 1e6, load))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--proto", choices=("udp", "tcp", "http"), default="udp")
    ap.add_argument("--rates", default="1000,10000,50000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--dur", type=int, default=3)
    ap.add_argument("--conns", type=int, default=20)
    a = ap.parse_args()
    for b in (a.before, a.after):
        if not os.access(os.path.join(b, "loadlens-driver"), os.X_OK):
            sys.exit("no loadlens-driver in %s" % b)
    port = free_port(a.proto)
    with tempfile.TemporaryDirectory(prefix="loadlens-pab") as tmp:
        srv = subprocess.Popen(["taskset", "-c", "0", os.path.join(a.after, "loadlens-refserver"),
                                "--proto", a.proto, "--listen", "127.0.0.1:%d" % port],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            time.sleep(0.5)
            print("| rate | build | requests | CPU µs/req | sleeps/req | timer wake-ups/req "
                  "| latency p50 / p99 µs | send lag p50 / p99 µs | polling+spin µs/req "
                  "| runnable without a CPU, ms | load |")
            print("|---|---|---|---|---|---|---|---|---|---|---|")
            for rate in a.rates.split(","):
                for _ in range(a.rounds):
                    for label, b in (("before", a.before), ("after", a.after)):
                        d, vol = run_driver(b, a.proto, port, int(rate), a.conns, a.dur, tmp)
                        print(row(label, rate, d, vol), flush=True)
        finally:
            srv.terminate()
            srv.wait()


if __name__ == "__main__":
    main()
