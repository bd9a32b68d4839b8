#!/usr/bin/python3
"""A one-connection HTTP/1.1 server for driver tests, on 127.0.0.1:PORT.

  oneshot_httpd.py PORT REQUESTS ANSWERS [SAVE]

It prints "listening" on stderr once bound, accepts one connection, reads up to REQUESTS requests
(head, then a Content-Length body; reading stops after 5 s whatever came), writes the first one
to SAVE if given (its head, a blank line, its body), answers ANSWERS with "200 OK" and a 2-byte
body in one write, then closes and exits: a server that answers only some of the requests
pipelined to it, or shows what one request looked like on the wire.
"""
import socket
import sys
import time


def content_length(head):
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            return int(value)
    return 0


def read_requests(conn, n, deadline):
    buf, reqs = b"", []
    while len(reqs) < n:
        if b"\r\n\r\n" in buf:
            head, rest = buf.split(b"\r\n\r\n", 1)
            size = content_length(head)
            if len(rest) >= size:
                reqs.append((head, rest[:size]))
                buf = rest[size:]
                continue
        left = deadline - time.monotonic()
        if left <= 0:
            break
        conn.settimeout(left)
        try:
            data = conn.recv(65536)
        except socket.timeout:
            break
        if not data:
            break
        buf += data
    return reqs


def main():
    port, n, answers = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    save = sys.argv[4] if len(sys.argv) > 4 else None
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", port))
    s.listen(1)
    print("listening", file=sys.stderr, flush=True)
    conn, _ = s.accept()
    reqs = read_requests(conn, n, time.monotonic() + 5)
    if save and reqs:
        with open(save, "wb") as f:
            f.write(reqs[0][0] + b"\n\n" + reqs[0][1])
    conn.settimeout(None)
    conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" * answers)
    conn.close()


if __name__ == "__main__":
    main()
