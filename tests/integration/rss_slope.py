#!/usr/bin/env python3
"""The memory slope of a long-running process, e.g. the observer as a fleet agent.

    rss_slope.py PID SECONDS [--warmup S] [--scrape URL] [--max-kb-per-s X] [--max-fds-growth N]

Samples the process's memory and open fds once a second for SECONDS after a warm-up of S seconds
(default 20: allocators and maps settle), scraping URL once a second meanwhile (as Prometheus
would; every scrape must answer 200). The memory judged is RssAnon, what the process allocated
(heap, anonymous maps): VmRSS also counts file-backed pages, among them the observer's
memory-mapped BPF maps and its code, which grow as first touched (bounded by their size; under
a heavy load new histogram buckets and code paths are touched). Prints the growth over the
window (median of the last 5 samples less the median of the first 5), the least-squares and
Theil-Sen slopes in kB/s and the extrapolation to a day, and VmRSS; exits 1 when the growth is
over --max-growth-kb (default 64 kB: half of what the leak this guards against added in any
minute, 96-184 kB; one allocator step is 32 kB), the fds grew (the same medians) by more than
--max-fds-growth (default 0), or a scrape failed. Standard library only.
"""
import argparse
import os
import statistics
import sys
import time
import urllib.request


def status_kb(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} for pid {pid}")


def nfds(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def slope(xs, ys):
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sxx if sxx else 0.0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("pid", type=int)
    ap.add_argument("seconds", type=float)
    ap.add_argument("--warmup", type=float, default=20)
    ap.add_argument("--scrape")
    ap.add_argument("--max-growth-kb", type=int, default=64)
    ap.add_argument("--max-fds-growth", type=int, default=0)
    a = ap.parse_args()

    scrapes = 0
    failed = []
    t0 = time.monotonic()
    ts, rss, anon, fds = [], [], [], []
    while True:
        t = time.monotonic() - t0
        if t > a.warmup + a.seconds:
            break
        if a.scrape:
            try:
                with urllib.request.urlopen(a.scrape, timeout=5) as r:
                    if r.status != 200:
                        raise OSError(f"status {r.status}")
                    r.read()
                scrapes += 1
            except OSError as e:
                failed.append(f"{t:.0f}s: {e}")
        if t >= a.warmup:
            ts.append(t)
            rss.append(status_kb(a.pid, "VmRSS"))
            anon.append(status_kb(a.pid, "RssAnon"))
            fds.append(nfds(a.pid))
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t0 - t)))
    k = slope(ts, anon)
    pairs = [(anon[j] - anon[i]) / (ts[j] - ts[i])
             for i in range(len(ts)) for j in range(i + 1, len(ts)) if ts[j] > ts[i]]
    ts_k = statistics.median(pairs) if pairs else 0.0
    mid = statistics.median
    grew = mid(anon[-5:]) - mid(anon[:5])
    print(f"RssAnon {anon[0]} kB at {ts[0]:.0f} s, {anon[-1]} kB at {ts[-1]:.0f} s; "
          f"grew {grew:+.0f} kB; slope {k:+.3f} kB/s least-squares, {ts_k:+.3f} Theil-Sen "
          f"({k * 86.4:+.1f} MB a day) over {len(ts)} samples; VmRSS {rss[0]} -> {rss[-1]} kB; "
          f"fds {fds[0]} -> {fds[-1]} (max {max(fds)}); {scrapes} scrapes answered, "
          f"{len(failed)} failed")
    steps = [f"{t:.0f}s:{r}" for i, (t, r) in enumerate(zip(ts, anon)) if i and r != anon[i - 1]]
    print("RssAnon changes (s:kB): " + (" ".join(steps) if steps else "none"))
    bad = []
    if grew > a.max_growth_kb:
        bad.append(f"RssAnon grew {grew:.0f} kB in {ts[-1] - ts[0]:.0f} s (limit "
                   f"{a.max_growth_kb} kB), {k:.3f} kB/s")
    # fds at the ends, by the median of 5 samples: a scrape's own connection comes and goes
    f0, f1 = mid(fds[:5]), mid(fds[-5:])
    if f1 - f0 > a.max_fds_growth:
        bad.append(f"fds grew from {f0} to {f1} (median of the first and last 5 samples)")
    if failed:
        bad.append(f"{len(failed)} scrapes failed: " + "; ".join(failed[:3]))
    if bad:
        print("FAIL: " + "; ".join(bad))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
