#!/usr/bin/python3
"""Pairs the observer's request trace with the reference server's (--trace), request by request.

usage: reqtime_pairs.py OBSERVER_TRACE SERVER_TRACE N

One server worker serves the requests one at a time, so the i-th request the observer saw begin
(by its read) is the i-th the server began. For each pair:
- the observer's read lies after the server's previous write call returned and before the server's
  read callback ran (the kernel copied the request inside the read call);
- its first write lies after the server's service ended and no later than the kernel transmitted
  the response (the server's tx_ns, a software transmit timestamp taken inside the write call).
Any pair outside those bounds is a wrong stamp: exit 1, with the first few printed.

The observer's service time also holds what the kernel did in the server's write call before the
transmit, which the server's own clock never sees; on a virtual machine the host stalls some of
those by tens of microseconds. So the p99s are compared over the requests whose write call reached
the transmit within 3x the median time (the calm ones); the rest are still held to the bounds
above, and counted. The write call's whole length cannot tell them apart: on 2026-11-27 the
delivery to the peer after the transmit (waking the client's vCPU) took over 150 us in 10-45% of
the calls, while the part before the transmit had a p99 of 36 us.

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
        s_read, begin, end, sent, tx = (int(s[k]) for k in
                                        ("read_ns", "begin_ns", "end_ns", "sent_ns", "tx_ns"))
        if not sent or not tx:
            sys.exit(f"request {i}: the server recorded no write call or no transmit moment")
        if not prev_sent <= read <= s_read or not end <= write <= min(tx, sent):
            bad.append(f"request {i}: observer read {read} write {write}; server previous write"
                       f" returned {prev_sent}, read callback {s_read}, service {begin}..{end},"
                       f" transmitted {tx}, write returned {sent}")
        prev_sent = sent
    if bad:
        print(f"{len(bad)} of {n} requests stamped outside the server's own moments:")
        print("\n".join(bad[:5]))
        sys.exit(1)
    obs_svc = [int(o["write_ns"]) - int(o["read_ns"]) for o in obs]
    srv_svc = [int(s["end_ns"]) - int(s["begin_ns"]) for s in srv]
    to_tx = [int(s["tx_ns"]) - int(s["end_ns"]) for s in srv]
    limit = 3 * statistics.median(to_tx)
    calm = [i for i in range(n) if to_tx[i] <= limit]
    write_call = [int(s["sent_ns"]) - int(s["end_ns"]) for s in srv]
    pre = [int(s["begin_ns"]) - int(o["read_ns"]) for o, s in zip(obs, srv)]
    post = [int(o["write_ns"]) - int(s["end_ns"]) for o, s in zip(obs, srv)]
    print(" ".join(f"{k}={v}" for k, v in (
        ("pairs", n),
        ("obs_p50", pct(obs_svc, 0.5)), ("srv_p50", pct(srv_svc, 0.5)),
        ("calm", len(calm)),
        ("calm_obs_p99", pct([obs_svc[i] for i in calm], 0.99)),
        ("calm_srv_p99", pct([srv_svc[i] for i in calm], 0.99)),
        ("before_p50", pct(pre, 0.5)), ("after_p50", pct(post, 0.5)),
        ("after_p99", pct(post, 0.99)), ("to_tx_p50", pct(to_tx, 0.5)),
        ("to_tx_p99", pct(to_tx, 0.99)), ("write_call_p50", pct(write_call, 0.5)),
        ("write_call_p99", pct(write_call, 0.99)))))


if __name__ == "__main__":
    main()
