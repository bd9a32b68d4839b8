#!/usr/bin/python3
"""A UDP echo server that misbehaves on a fixed pattern, for the driver's reply-matching tests.

Per client address, request r (0-based) gets, while r < --until:
  r % 10 == 2  no reply
  r % 10 == 4  its reply twice
  r % 10 == 6  its reply held back, sent just before the reply to that address's next request
               (which the client sends only once this one timed out: a late reply)
  r % 10 == 8  a junk datagram, then its reply
  r % 10 == 9  its reply after --slow-ms
and every other request (or any past --until) its reply at once. The reply is the request's bytes.
--burst N: the very first request gets N extra copies of its reply at once.
--id-at OFF:W: count the distinct W-byte ids at OFF per address (stamping check).
On SIGTERM or SIGINT it writes {"requests", "addresses", "distinct_ids"} as JSON to --json and exits.
"""
import argparse
import heapq
import json
import select
import signal
import socket
import sys
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--until", type=int, default=0)
    ap.add_argument("--slow-ms", type=float, default=260)
    ap.add_argument("--burst", type=int, default=0)
    ap.add_argument("--id-at", default="")
    ap.add_argument("--json", required=True)
    a = ap.parse_args()

    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 22)
    s.bind(("127.0.0.1", a.port))
    count = {}
    held = {}
    ids = {}
    timed = []  # (due, seq, data, addr)
    total = 0
    running = [True]
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: running.__setitem__(0, False))
    off, width = (int(x) for x in a.id_at.split(":")) if a.id_at else (0, 0)
    print("listening", file=sys.stderr, flush=True)
    seq = 0
    while running[0]:
        now = time.monotonic()
        while timed and timed[0][0] <= now:
            _, _, data, addr = heapq.heappop(timed)
            s.sendto(data, addr)
        wait = max(0.0, timed[0][0] - now) if timed else 0.2
        try:
            r, _, _ = select.select([s], [], [], wait)
        except InterruptedError:
            continue
        if not r:
            continue
        data, addr = s.recvfrom(65536)
        total += 1
        n = count.get(addr, 0)
        count[addr] = n + 1
        if width:
            ids.setdefault(addr, set()).add(data[off:off + width])
        if addr in held:
            s.sendto(held.pop(addr), addr)
        if a.burst and total == 1:
            for _ in range(a.burst):
                s.sendto(data, addr)
        kind = n % 10 if n < a.until else 0
        if kind == 2:
            continue
        if kind == 6:
            held[addr] = data
            continue
        if kind == 8:
            s.sendto(b"\xff\xff junk \xff\xff", addr)
        if kind == 9:
            seq += 1
            heapq.heappush(timed, (now + a.slow_ms / 1000, seq, data, addr))
            continue
        s.sendto(data, addr)
        if kind == 4:
            s.sendto(data, addr)
    with open(a.json, "w") as f:
        json.dump({"requests": total, "addresses": len(count),
                   "distinct_ids": sum(len(v) for v in ids.values())}, f)


if __name__ == "__main__":
    main()
