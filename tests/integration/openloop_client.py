#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A small open-loop client for the request-timing tests (stdlib only, loopback only).

Sends requests at a fixed rate, whatever the server's pace, to loadlens-refserver:
  tcp: 4-byte big-endian length + payload, over a pool of connections opened before the start;
       a connection carries at most one request at a time (no pipelining), so the queue forms
       in the server's sockets. A send that finds no idle connection is counted as "skipped".
  udp: one datagram per request, from one socket.
Bounded: --duration seconds of sending, then at most --drain seconds for the replies.
Prints one JSON object: {"sent", "received", "skipped", "elapsed_s"}.
"""
import argparse
import json
import selectors
import socket
import struct
import sys
import time


def parse_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--proto", choices=("tcp", "udp"), required=True)
    p.add_argument("--target", required=True, help="HOST:PORT (loopback)")
    p.add_argument("--rate", type=float, required=True, help="requests per second")
    p.add_argument("--duration", type=float, required=True, help="seconds of sending")
    p.add_argument("--conns", type=int, default=64, help="tcp connection pool")
    p.add_argument("--size", type=int, default=16, help="payload bytes")
    p.add_argument("--drain", type=float, default=10.0, help="seconds to wait for replies")
    a = p.parse_args()
    host, port = a.target.rsplit(":", 1)
    if host not in ("127.0.0.1", "localhost", "::1"):
        p.error("loopback targets only")
    a.addr = (host, int(port))
    return a


def run_tcp(a):
    sel = selectors.DefaultSelector()
    idle, bufs = [], {}
    for _ in range(a.conns):
        s = socket.create_connection(a.addr)
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        s.setblocking(False)
        sel.register(s, selectors.EVENT_READ)
        idle.append(s)
        bufs[s] = b""
    frame = struct.pack(">I", a.size) + b"q" * a.size
    want = 4 + a.size
    sent = received = skipped = 0
    t0 = time.monotonic()
    end = t0 + a.duration
    n_due = 0
    while True:
        now = time.monotonic()
        if now < end:
            due = int((now - t0) * a.rate) + 1
            while n_due < due:
                n_due += 1
                if not idle:
                    skipped += 1
                    continue
                s = idle.pop()
                s.sendall(frame)
                sent += 1
        elif received + 0 >= sent or now > end + a.drain:
            break
        timeout = max(0.0, min(1.0 / a.rate, 0.05)) if now < end else 0.05
        for key, _ in sel.select(timeout):
            s = key.fileobj
            data = s.recv(65536)
            if not data:
                raise SystemExit("server closed a connection")
            bufs[s] += data
            while len(bufs[s]) >= want:
                bufs[s] = bufs[s][want:]
                received += 1
                idle.append(s)
    for s in list(bufs):
        s.close()
    return sent, received, skipped, time.monotonic() - t0


def run_udp(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.connect(a.addr)
    s.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(s, selectors.EVENT_READ)
    payload = b"q" * a.size
    sent = received = 0
    t0 = time.monotonic()
    end = t0 + a.duration
    n_due = 0
    while True:
        now = time.monotonic()
        if now < end:
            due = int((now - t0) * a.rate) + 1
            while n_due < due:
                n_due += 1
                s.send(payload)
                sent += 1
        elif received >= sent or now > end + a.drain:
            break
        timeout = max(0.0, min(1.0 / a.rate, 0.05)) if now < end else 0.05
        for _ in sel.select(timeout):
            while True:
                try:
                    s.recv(65536)
                except BlockingIOError:
                    break
                received += 1
    s.close()
    return sent, received, 0, time.monotonic() - t0


def main():
    a = parse_args()
    sent, received, skipped, elapsed = (run_tcp if a.proto == "tcp" else run_udp)(a)
    json.dump({"sent": sent, "received": received, "skipped": skipped,
               "elapsed_s": round(elapsed, 3)}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
