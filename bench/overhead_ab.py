#!/usr/bin/env python3
"""Observer cost, measured side by side: two identical nginx servers (1 worker each, 12-byte
"hello world") loaded at the same time by two wrk -t1 -c50, each server and each wrk pinned to a
CPU of its own. Every round has three settings, in rotating order: no observer, the observer on
server A's port, the observer on server B's port. Host noise that reaches both servers at once
(another tenant's load, the host's frequency) cancels in the ratio A/B of each window; what
separates the two CPU pairs is taken from the round's window with no observer.

  cost of the observer on A = 1 - (A/B while A is watched) / (A/B with no observer)

and the same for B, so each round gives two figures. The unwatched server still pays the
observer's early exit on each of its events (another port's sockets), so this is the cost less
that early exit; bench/reqtime_overhead.sh's "foreign" variant measures the early exit alone.

  sudo bench/overhead_ab.py [BUILD_BIN_DIR]
  environment: ROUNDS (10), DUR seconds a window (5), CPUS "srvA,cliA,srvB,cliB" (2,3,4,5),
               LOAD close or keepalive (close), ARGS for the observer ("--lean on")

Needs 4 idle CPUs, root, nginx and wrk. Loopback only, every load bounded by wrk -d.
Results: one line a window, then the median and quartiles, on stdout.
"""
import os
import shutil
import statistics as st
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "bin")


def number(name, default):
    v = os.environ.get(name, default)
    if not v.isdigit() or int(v) < 1:
        print("overhead_ab.py: %s must be a whole number of at least 1, not '%s'" % (name, v),
              file=sys.stderr)
        sys.exit(64)
    return int(v)


ROUNDS = number("ROUNDS", "10")
DUR = number("DUR", "5")
CPUS = os.environ.get("CPUS", "2,3,4,5").split(",")
LOAD = os.environ.get("LOAD", "close")
ARGS = os.environ.get("ARGS", "--lean on").split()
PORTS = {"A": 18490, "B": 18491}
CONF = """worker_processes 1; daemon off; pid {d}/nginx.pid; error_log {d}/error.log;
events {{ worker_connections 4096; }}
http {{ access_log off; keepalive_requests 100000000;
  server {{ listen 127.0.0.1:{port}; location / {{ return 200 "hello world\\n"; }} }} }}
"""


def die(msg):
    print("overhead_ab.py: " + msg, file=sys.stderr)
    sys.exit(64)


def start_nginx(tmp, name, port, cpu):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    with open(os.path.join(d, "nginx.conf"), "w") as f:
        f.write(CONF.format(d=d, port=port))
    return subprocess.Popen(["taskset", "-c", cpu, "nginx", "-c", d + "/nginx.conf", "-p", d])


def wrk(port, cpu, dur):
    extra = ["-H", "Connection: close"] if LOAD == "close" else []
    return subprocess.Popen(["taskset", "-c", cpu, "wrk", "-t1", "-c50"] + extra +
                            ["-d%ds" % dur, "http://127.0.0.1:%d/" % port],
                            stdout=subprocess.PIPE, text=True)


def rps(p):
    out = p.communicate()[0]
    for line in out.splitlines():
        if line.startswith("Requests/sec"):
            return float(line.split()[1])
    die("wrk printed no Requests/sec:\n" + out)


def window(dur):
    a, b = wrk(PORTS["A"], CPUS[1], dur), wrk(PORTS["B"], CPUS[3], dur)
    return rps(a), rps(b)


def observer_on(tmp, port):
    err = open(os.path.join(tmp, "obs.err"), "w")
    p = subprocess.Popen(["taskset", "-c", ",".join(CPUS), os.path.join(BIN, "loadlens-observer"),
                          "--port", str(port), "--interval", "1s", "-d", "600s"] + ARGS,
                         stdout=subprocess.DEVNULL, stderr=err)
    for _ in range(100):
        if "observing" in open(err.name).read():
            return p
        if p.poll() is not None:
            break
        time.sleep(0.1)
    die("the observer did not start: " + open(err.name).read().strip())


def observer_off(p):
    p.send_signal(2)
    p.wait(30)


def quart(v):
    v = sorted(v)
    q = st.quantiles(v, n=4) if len(v) > 1 else [v[0]] * 3
    return "%.1f%% [IQR %.1f..%.1f, range %.1f..%.1f, n=%d]" % (st.median(v), q[0], q[2], v[0],
                                                               v[-1], len(v))


def main():
    if os.geteuid() != 0:
        die("needs root (it loads BPF programs)")
    for t in ("nginx", "wrk", "taskset"):
        if not shutil.which(t):
            die("needs " + t)
    if len(CPUS) != 4 or LOAD not in ("close", "keepalive"):
        die("CPUS is four CPUs (srvA,cliA,srvB,cliB); LOAD is close or keepalive")
    tmp = tempfile.mkdtemp(prefix="loadlens-ab.")
    servers = [start_nginx(tmp, "A", PORTS["A"], CPUS[0]), start_nginx(tmp, "B", PORTS["B"], CPUS[2])]
    try:
        time.sleep(1)
        window(2)  # warm-up
        cost = {"A": [], "B": []}
        print("| round | setting | A req/s | B req/s | A/B |")
        print("|---|---|---|---|---|")
        for r in range(ROUNDS):
            settings = ["none", "A", "B"]
            settings = settings[r % 3:] + settings[:r % 3]
            ratio = {}
            for s in settings:
                obs = observer_on(tmp, PORTS[s]) if s != "none" else None
                if obs:
                    window(2)  # the observer's first seconds (its attach, its first census)
                a, b = window(DUR)
                if obs:
                    observer_off(obs)
                ratio[s] = a / b
                print("| %d | %s | %.0f | %.0f | %.4f |" % (r + 1, s, a, b, a / b), flush=True)
            cost["A"].append(100 * (1 - ratio["A"] / ratio["none"]))
            cost["B"].append(100 * (1 - ratio["none"] / ratio["B"]))
        print()
        print("observer on A (%s, %s): %s" % (LOAD, " ".join(ARGS), quart(cost["A"])))
        print("observer on B (%s, %s): %s" % (LOAD, " ".join(ARGS), quart(cost["B"])))
        print("both: %s" % quart(cost["A"] + cost["B"]))
    finally:
        for s in servers:
            s.terminate()
            s.wait()
        shutil.rmtree(tmp, ignore_errors=True)


main()
