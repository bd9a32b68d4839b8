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


def open_loop(a, sel, send, on_ready, pending):
    """The schedule both protocols keep: send() for every request due at --rate during
    --duration, on_ready(sock) for each socket readable meanwhile, then at most --drain seconds
    more until pending() is 0. Returns the seconds it took."""
    t0 = time.monotonic()
    end = t0 + a.duration
    n_due = 0
    while True:
        now = time.monotonic()
        if now < end:
            due = int((now - t0) * a.rate) + 1
            while n_due < due:
                n_due += 1
                send()
        elif pending() <= 0 or now > end + a.drain:
            break
        timeout = max(0.0, min(1.0 / a.rate, 0.05)) if now < end else 0.05
        for key, _ in sel.select(timeout):
            on_ready(key.fileobj)
    return time.monotonic() - t0


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
    n = {"sent": 0, "received": 0, "skipped": 0}

    def send():
        if not idle:
            n["skipped"] += 1
            return
        idle.pop().sendall(frame)
        n["sent"] += 1

    def on_ready(s):
        data = s.recv(65536)
        if not data:
            raise SystemExit("server closed a connection")
        bufs[s] += data
        while len(bufs[s]) >= want:
            bufs[s] = bufs[s][want:]
            n["received"] += 1
            idle.append(s)

    elapsed = open_loop(a, sel, send, on_ready, lambda: n["sent"] - n["received"])
    for s in list(bufs):
        s.close()
    return n["sent"], n["received"], n["skipped"], elapsed


def run_udp(a):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
    s.connect(a.addr)
    s.setblocking(False)
    sel = selectors.DefaultSelector()
    sel.register(s, selectors.EVENT_READ)
    payload = b"q" * a.size
    n = {"sent": 0, "received": 0}

    def send():
        s.send(payload)
        n["sent"] += 1

    def on_ready(sock):
        while True:
            try:
                sock.recv(65536)
            except BlockingIOError:
                break
            n["received"] += 1

    elapsed = open_loop(a, sel, send, on_ready, lambda: n["sent"] - n["received"])
    s.close()
    return n["sent"], n["received"], 0, elapsed


def main():
    a = parse_args()
    sent, received, skipped, elapsed = (run_tcp if a.proto == "tcp" else run_udp)(a)
    json.dump({"sent": sent, "received": received, "skipped": skipped,
               "elapsed_s": round(elapsed, 3)}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
