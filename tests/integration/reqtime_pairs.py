#!/usr/bin/python3
"""Pairs the observer's request trace with the reference server's (--trace), request by request.

usage: reqtime_pairs.py OBSERVER_TRACE SERVER_TRACE N

One server worker serves the requests one at a time, so the i-th request the observer saw begin
(by its read) is the i-th the server began. For each pair:
- the observer's read lies after the server's previous write call returned and before the server's
  read callback ran (the kernel copied the request inside the read call);
- its first write lies after the server's service ended and before its write call returned (the
  transmit happens inside the write call).
Any pair outside those bounds is a wrong stamp: exit 1, with the first few printed.

The observer's service time also holds what the kernel did in the server's write call before the
transmit. On a virtual machine the host stalls some of those calls by 40-200 us (measured with no
observer attached: 0.7-0.8% of writes over 90 us, on 2026-11-26), which the server's own clock
never sees. So the server's p99 is compared over the requests whose write call took at most
3x its median; the rest are still held to the bounds above, and counted.

Prints one line of key=value figures (ns) for the shell to check against its limits.
"""
import csv
import statistics
import sys


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * p))]


def main():
    obs_path, rs_path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    obs = sorted(rows(obs_path), key=lambda r: int(r["read_ns"]))
    srv = sorted(rows(rs_path), key=lambda r: int(r["begin_ns"]))
    if len(obs) != n or len(srv) != n:
        sys.exit(f"traces hold {len(obs)} observer and {len(srv)} server requests, {n} expected")
    if len({r["worker"] for r in srv}) != 1:
        sys.exit("the server trace has several workers: requests cannot be paired by order")
    bad, prev_sent = [], 0
    for i, (o, s) in enumerate(zip(obs, srv)):
        read, write = int(o["read_ns"]), int(o["write_ns"])
        s_read, begin, end, sent = (int(s[k]) for k in ("read_ns", "begin_ns", "end_ns", "sent_ns"))
        if not sent:
            sys.exit(f"request {i}: the server recorded no write call")
        if not prev_sent <= read <= s_read or not end <= write <= sent:
            bad.append(f"request {i}: observer read {read} write {write}; server previous write"
                       f" returned {prev_sent}, read callback {s_read}, service {begin}..{end},"
                       f" write returned {sent}")
        prev_sent = sent
    if bad:
        print(f"{len(bad)} of {n} requests stamped outside the server's own moments:")
        print("\n".join(bad[:5]))
        sys.exit(1)
    obs_svc = [int(o["write_ns"]) - int(o["read_ns"]) for o in obs]
    srv_svc = [int(s["end_ns"]) - int(s["begin_ns"]) for s in srv]
    write_call = [int(s["sent_ns"]) - int(s["end_ns"]) for s in srv]
    limit = 3 * statistics.median(write_call)
    calm = [i for i in range(n) if write_call[i] <= limit]
    pre = [int(s["begin_ns"]) - int(o["read_ns"]) for o, s in zip(obs, srv)]
    post = [int(o["write_ns"]) - int(s["end_ns"]) for o, s in zip(obs, srv)]
    print(" ".join(f"{k}={v}" for k, v in (
        ("pairs", n),
        ("obs_p50", pct(obs_svc, 0.5)), ("srv_p50", pct(srv_svc, 0.5)),
        ("calm", len(calm)),
        ("calm_obs_p99", pct([obs_svc[i] for i in calm], 0.99)),
        ("calm_srv_p99", pct([srv_svc[i] for i in calm], 0.99)),
        ("before_p50", pct(pre, 0.5)), ("after_p50", pct(post, 0.5)),
        ("after_p99", pct(post, 0.99)), ("write_call_p50", pct(write_call, 0.5)))))


if __name__ == "__main__":
    main()
