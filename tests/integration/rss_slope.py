#!/usr/bin/env python3
"""The memory slope of a long-running process, e.g. the observer as a fleet agent.

    rss_slope.py PID SECONDS [--warmup S] [--scrape URL] [--max-kb-per-s X] [--max-fds-growth N]

Samples the process's VmRSS and open fds once a second for SECONDS after a warm-up of S seconds
(default 15: allocators and maps settle), scraping URL once a second meanwhile (as Prometheus
would; every scrape must answer 200), then fits a least-squares line to the RSS samples. Prints
the slope in kB/s with the first and last samples and the extrapolation to a day; exits 1 when
the slope is over --max-kb-per-s (default 0.3 kB/s, 26 MB a day) in more rises than
--max-rises (default 3: a one-off step is not a trend), the fds (median of the first and of the
last 5 samples) grew by more than --max-fds-growth (default 0), or a scrape failed. Standard library only.
"""
import argparse
import os
import sys
import time
import urllib.request


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for pid {pid}")


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
    ap.add_argument("--warmup", type=float, default=15)
    ap.add_argument("--scrape")
    ap.add_argument("--max-kb-per-s", type=float, default=0.3)
    ap.add_argument("--max-fds-growth", type=int, default=0)
    ap.add_argument("--max-rises", type=int, default=3)
    a = ap.parse_args()

    scrapes = 0
    failed = []
    t0 = time.monotonic()
    ts, rss, fds = [], [], []
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
            rss.append(rss_kb(a.pid))
            fds.append(nfds(a.pid))
        time.sleep(max(0.0, 1.0 - (time.monotonic() - t0 - t)))
    k = slope(ts, rss)
    print(f"RSS {rss[0]} kB at {ts[0]:.0f} s, {rss[-1]} kB at {ts[-1]:.0f} s, max {max(rss)} kB; "
          f"slope {k:+.3f} kB/s ({k * 86.4:+.1f} MB a day) over {len(ts)} samples; "
          f"fds {fds[0]} -> {fds[-1]} (max {max(fds)}); {scrapes} scrapes answered, "
          f"{len(failed)} failed")
    steps = [f"{t:.0f}s:{r}" for i, (t, r) in enumerate(zip(ts, rss)) if i and r != rss[i - 1]]
    print("RSS changes (s:kB): " + (" ".join(steps) if steps else "none"))
    bad = []
    rises = sum(1 for i in range(1, len(rss)) if rss[i] > rss[i - 1])
    # a trend, not a one-off step (an allocator's arena, a first finding): growth at the limit
    # of 0.3 kB/s rises a 4 kB page every 14 s; a few rises of a flat process are not it
    if k > a.max_kb_per_s and rises > a.max_rises:
        bad.append(f"RSS grows {k:.3f} kB/s (limit {a.max_kb_per_s}) in {rises} rises")
    # fds at the ends, by the median of 5 samples: a scrape's own connection comes and goes
    f0, f1 = sorted(fds[:5])[len(fds[:5]) // 2], sorted(fds[-5:])[len(fds[-5:]) // 2]
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
