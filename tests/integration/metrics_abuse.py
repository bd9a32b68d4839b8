#!/usr/bin/env python3
"""A hostile local client of the observer's --metrics endpoint (observer/metrics/metrics_http.c).

    metrics_abuse.py PORT OBSERVER_PID [ATTACK ...]   (default: all, in this order)

Each attack is checked against what a bounded endpoint must do, and the observer's memory (VmRSS)
and fds are read before and after each: a line "ok: ..." per check, and exit 1 with "FAIL: ..."
at the first that does not hold. Loopback only; every attack is bounded in time and bytes.

  header     a request with a 9 KB header gets 431 (or 400) and a close; one of 8 KB less a few
             bytes still gets 200 (the limit is 8 KiB, headers included)
  slowloris  a request sent one byte every 0.3 s is closed within the header deadline (5 s), not
             kept alive by the trickle
  pipeline   GET /metrics pipelined for 8 s without reading the answers: the observer's RSS does
             not grow past a bound, and nothing stays allocated after the close
  hostile    32 connections held open (silent, half a request, pipelining non-readers): a real
             scrape on a new connection still gets a full 200 every time, within 5 s (half of
             Prometheus's default scrape timeout), and the observer's fds stay within the cap of
             16 connections
"""
import os
import socket
import sys
import time

HOST = "127.0.0.1"
CAP = 16  # OBS_MXHTTP_CLIENTS
HEADER_S = 5  # OBS_MXHTTP_HEADER_S
GET = b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"


def fail(msg):
    print("FAIL: " + msg, flush=True)
    sys.exit(1)


def rss_kb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    fail(f"no VmRSS for pid {pid}")


def nfds(pid):
    """The observer's open fds, the fewest of 5 looks 40 ms apart: what it holds, not a file its
    tick has open for a moment (a /proc file, a census); once 17 for a cap of 16 in CI."""
    n = []
    for i in range(5):
        if i:
            time.sleep(0.04)
        n.append(len(os.listdir(f"/proc/{pid}/fd")))
    return min(n)


def connect(port, timeout=5.0):
    s = socket.create_connection((HOST, port), timeout=timeout)
    return s


def read_response(s, deadline_s=10.0):
    """One HTTP/1.1 response with Content-Length: (status, headers text, body)."""
    s.settimeout(deadline_s)
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            return None, buf.decode("latin-1"), b""
        buf += chunk
    head, body = buf.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1])
    length = 0
    for line in lines[1:]:
        k, _, v = line.partition(":")
        if k.strip().lower() == "content-length":
            length = int(v.strip())
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            break
        body += chunk
    return status, "\r\n".join(lines), body


def closed_by_peer(s, within_s):
    """True when the peer closes (EOF or reset) within within_s seconds; data is drained."""
    end = time.monotonic() + within_s
    while time.monotonic() < end:
        s.settimeout(max(0.01, end - time.monotonic()))
        try:
            if not s.recv(65536):
                return True
        except socket.timeout:
            return False
        except (ConnectionResetError, BrokenPipeError):
            return True
    return False


def scrape(port):
    """A well-behaved scrape on a new connection: the status and the body."""
    s = connect(port)
    try:
        s.sendall(GET)
        status, _, body = read_response(s)
    finally:
        s.close()
    return status, body


def check_scrape(port, what):
    t0 = time.monotonic()
    try:
        status, body = scrape(port)
    except OSError as e:
        fail(f"{what}: the scrape failed: {e!r}")
    ms = (time.monotonic() - t0) * 1e3
    if status != 200 or b"loadlens_accepted_connections_total" not in body:
        fail(f"{what}: the scrape got {status}, {len(body)} bytes")
    return ms, len(body)


def attack_header(port):
    # just under the limit: served
    pad = 8192 - len(GET) - len("X-Pad: \r\n") - 16
    s = connect(port)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Pad: " + b"a" * pad + b"\r\n\r\n")
    status, _, _ = read_response(s)
    s.close()
    if status != 200:
        fail(f"a {8192 - 16}-byte request got {status}, expected 200")
    print(f"ok: a request of {8192 - 16} bytes gets 200")
    # a 9 KB header: refused, then closed
    s = connect(port)
    s.sendall(b"GET /metrics HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 9000 + b"\r\n\r\n")
    status, _, _ = read_response(s)
    if status not in (431, 400):
        fail(f"a 9 KB header got {status}, expected 431 or 400")
    if not closed_by_peer(s, 2):
        fail("the connection stayed open after a refused request")
    s.close()
    print(f"ok: a 9 KB header gets {status} and a close")


def attack_slowloris(port):
    s = connect(port)
    req = b"GET /metrics HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 200
    t0 = time.monotonic()
    closed = False
    for i in range(len(req)):
        try:
            s.sendall(req[i:i + 1])
        except (BrokenPipeError, ConnectionResetError):
            closed = True
            break
        if closed_by_peer(s, 0.3):
            closed = True
            break
        if time.monotonic() - t0 > HEADER_S + 5:
            break
    took = time.monotonic() - t0
    s.close()
    if not closed:
        fail(f"a request trickled one byte per 0.3 s was still open after {took:.1f} s")
    if took > HEADER_S + 2:
        fail(f"a trickled request was closed after {took:.1f} s, over {HEADER_S} s")
    print(f"ok: a trickled request is closed after {took:.1f} s (header deadline {HEADER_S} s)")


def attack_pipeline(port, pid, secs=8.0):
    base = rss_kb(pid)
    s = connect(port)
    s.setblocking(False)
    sent = 0
    chunk = GET * 64
    end = time.monotonic() + secs
    peak = base
    while time.monotonic() < end:
        try:
            sent += s.send(chunk)
        except BlockingIOError:
            time.sleep(0.01)
        peak = max(peak, rss_kb(pid))
    s.close()
    time.sleep(0.5)
    after = rss_kb(pid)
    print(f"   pipelined {sent // len(GET)} requests unread in {secs:.0f} s: observer RSS "
          f"{base} kB before, peak {peak} kB, {after} kB after the close")
    if peak - base > 8192:
        fail(f"RSS grew {peak - base} kB while one client pipelined without reading")
    if after - base > 4096:
        fail(f"RSS stayed {after - base} kB up after the pipelining client closed")
    print(f"ok: a pipelining non-reader moves RSS by {peak - base} kB at most")


def attack_hostile(port, pid, n=32, rounds=5):
    fd0 = nfds(pid)
    base = rss_kb(pid)
    socks = []
    for i in range(n):
        s = connect(port)
        kind = i % 3
        if kind == 1:
            s.sendall(b"GET /metrics HTTP/1.1\r\nHost")  # half a request, then nothing
        elif kind == 2:
            s.setblocking(False)
            try:
                for _ in range(64):
                    s.send(GET * 32)  # pipelined, never read
            except BlockingIOError:
                pass
        socks.append(s)  # kind 0: connected, silent
    time.sleep(0.3)
    worst = 0.0
    for r in range(rounds):
        ms, size = check_scrape(port, f"with {n} hostile connections open, scrape {r + 1}")
        worst = max(worst, ms)
        held = nfds(pid) - fd0
        if held > CAP:
            fail(f"the observer holds {held} more fds with {n} hostile connections (cap {CAP})")
        time.sleep(0.2)
    if worst > 5000:
        fail(f"a scrape took {worst:.0f} ms with {n} hostile connections open (over half of "
             f"Prometheus's default 10 s scrape timeout)")
    print(f"ok: {rounds} scrapes answered 200 ({size} bytes, slowest {worst:.0f} ms) while "
          f"{n} hostile connections were open; fds held at most the cap of {CAP}")
    peak = rss_kb(pid)
    for s in socks:
        s.close()
    time.sleep(0.5)
    if peak - base > 8192:
        fail(f"RSS grew {peak - base} kB with {n} hostile connections")
    print(f"ok: RSS {base} kB before the hostile connections, {peak} kB with them")


def main():
    attacks = {
        "header": lambda port, pid: attack_header(port),
        "slowloris": lambda port, pid: attack_slowloris(port),
        "pipeline": attack_pipeline,
        "hostile": attack_hostile,
    }
    if len(sys.argv) < 3 or any(a not in attacks for a in sys.argv[3:]):
        print(__doc__, file=sys.stderr)
        sys.exit(64)
    port, pid = int(sys.argv[1]), int(sys.argv[2])
    check_scrape(port, "before any attack")
    fd0, rss0 = nfds(pid), rss_kb(pid)
    for a in sys.argv[3:] or attacks:
        attacks[a](port, pid)
    check_scrape(port, "after the attacks")
    time.sleep(0.5)
    fd1, rss1 = nfds(pid), rss_kb(pid)
    print(f"   observer: {fd0} fds and {rss0} kB before the attacks, {fd1} fds and {rss1} kB after")
    if fd1 > fd0:
        fail(f"the observer holds {fd1 - fd0} more fds after the attacks than before")
    if rss1 - rss0 > 4096:
        fail(f"the observer's RSS is {rss1 - rss0} kB higher after the attacks")
    print("ok: fds and RSS back to where they were")


if __name__ == "__main__":
    main()
