#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""The observer's own cost at rest: CPU time and wakeups of loadlens-observer while the server it
watches (nginx, one worker, on loopback) serves nothing, binaries alternated round by round.

    sudo bench/observer_idle.py [--rounds N] [--seconds S] NAME=OBSERVER_BINARY ...

Each run starts the observer with --port P --interval 1s, lets it settle 3 s, then reads its
utime+stime (/proc/PID/stat) and the context switches of all its threads (/proc/PID/task/*/status)
over S seconds. Prints a Markdown table: per binary the median of the rounds (and their range)
of ms of CPU a second and wakeups a second. Loopback only, bounded in time; needs root and nginx.
"""
import argparse
import glob
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

NGINX_CONF = """worker_processes 1;
daemon off;
pid {d}/nginx.pid;
error_log {d}/error.log;
events {{ worker_connections 256; }}
http {{ access_log off;
  server {{ listen 127.0.0.1:{port}; location / {{ return 200 "hello world\\n"; }} }} }}
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_ms(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000.0 / os.sysconf("SC_CLK_TCK")


def switches(pid):
    n = 0
    for path in glob.glob("/proc/%d/task/*/status" % pid):
        try:
            with open(path) as f:
                n += sum(int(l.split()[1]) for l in f if "ctxt_switches:" in l)
        except FileNotFoundError:
            pass  # a thread that ended meanwhile
    return n


def one_run(binary, port, seconds, tmp):
    with open(os.path.join(tmp, "obs.err"), "w") as err:
        obs = subprocess.Popen([binary, "--port", str(port), "--interval", "1s"],
                               stdout=subprocess.DEVNULL, stderr=err)
    try:
        time.sleep(3)
        if obs.poll() is not None:
            sys.exit("%s exited: see %s/obs.err" % (binary, tmp))
        c0, w0 = cpu_ms(obs.pid), switches(obs.pid)
        time.sleep(seconds)
        c1, w1 = cpu_ms(obs.pid), switches(obs.pid)
    finally:
        obs.send_signal(signal.SIGINT)
        obs.wait(timeout=30)
    return (c1 - c0) / seconds, (w1 - w0) / seconds


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=15)
    ap.add_argument("variants", nargs="+", metavar="NAME=OBSERVER_BINARY")
    a = ap.parse_args()
    variants = [v.split("=", 1) for v in a.variants]
    if any(len(v) != 2 or not os.access(v[1], os.X_OK) for v in variants):
        ap.error("each variant is NAME=an executable loadlens-observer")
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="loadlens-idle.") as tmp:
        with open(os.path.join(tmp, "nginx.conf"), "w") as f:
            f.write(NGINX_CONF.format(d=tmp, port=port))
        nginx = subprocess.Popen(["nginx", "-c", os.path.join(tmp, "nginx.conf"), "-p", tmp])
        try:
            time.sleep(1)
            res = {name: [] for name, _ in variants}
            for r in range(a.rounds):
                for name, binary in (variants if r % 2 == 0 else variants[::-1]):
                    res[name].append(one_run(binary, port, a.seconds, tmp))
        finally:
            nginx.send_signal(signal.SIGQUIT)
            nginx.wait(timeout=30)
    print("| observer | CPU ms a second, median (range) | wakeups a second, median (range) |")
    print("|---|---|---|")
    for name, _ in variants:
        cpu = [c for c, _ in res[name]]
        wak = [w for _, w in res[name]]
        print("| %s | %.1f (%.1f..%.1f) | %.0f (%.0f..%.0f) |" % (
            name, statistics.median(cpu), min(cpu), max(cpu),
            statistics.median(wak), min(wak), max(wak)))


if __name__ == "__main__":
    main()
