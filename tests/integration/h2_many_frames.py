#!/usr/bin/python3
"""An HTTP/2 client (h2c, prior knowledge; or h2 over TLS) whose first write holds more frames
than the observer's walk takes in one read, then plain requests one at a time, on
127.0.0.1:PORT.

  h2_many_frames.py PORT UPDATES REQUESTS [tls]

tls: over TLS, h2 by ALPN, the server's certificate not checked (a test's own); each write is one
TLS write (a record: the server's read of it is one read of plaintext).

First write: the preface, an empty SETTINGS, UPDATES WINDOW_UPDATE frames (the connection's
window, 1 byte each: nothing is answered to them) and one GET (stream 1): a server that reads it
whole reads UPDATES + 2 frames at once. Then, once that GET is answered, REQUESTS
GETs on streams 3, 5, ..., each written alone and answered before the next. Prints
"answered N" (every GET's response ended) on stdout; exits 1 on a short or odd answer.
"""
import os
import socket
import ssl
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from h2wire import ACK, END_HEADERS, END_STREAM, PREFACE, frame  # noqa: E402

# HPACK: :method GET, :scheme http, :path / (static table, indexed), :authority "x" (literal
# without indexing, name from the static table)
GET_BLOCK = bytes([0x82, 0x86, 0x84, 0x01, 0x01]) + b"x"


def get(stream):
    return frame(1, END_STREAM | END_HEADERS, stream, GET_BLOCK)


class Conn:
    def __init__(self, port, tls):
        self.s = socket.create_connection(("127.0.0.1", port), timeout=10)
        if tls:
            ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
            ctx.check_hostname = False
            ctx.verify_mode = ssl.CERT_NONE
            ctx.set_alpn_protocols(["h2"])
            self.s = ctx.wrap_socket(self.s)
            if self.s.selected_alpn_protocol() != "h2":
                sys.exit("the server did not choose h2 by ALPN")
        self.buf = b""

    def frame(self):
        while True:
            if len(self.buf) >= 9:
                n = int.from_bytes(self.buf[:3], "big")
                if len(self.buf) >= 9 + n:
                    f, self.buf = self.buf[:9 + n], self.buf[9 + n:]
                    return f[3], f[4], int.from_bytes(f[5:9], "big") & 0x7FFFFFFF, f[9:]
            b = self.s.recv(65536)
            if not b:
                sys.exit("the server closed the connection")
            self.buf += b

    def answered(self, stream):
        """Read frames until the server ends stream (acking its SETTINGS on the way)."""
        while True:
            t, fl, sid, _ = self.frame()
            if t == 4 and not fl & ACK:
                self.s.sendall(frame(4, ACK, 0))
            elif t == 7:
                sys.exit("GOAWAY from the server")
            elif sid == stream and t == 3:
                sys.exit(f"stream {stream} reset by the server")
            elif sid == stream and t in (0, 1) and fl & END_STREAM:
                return


def main():
    if len(sys.argv) not in (4, 5) or sys.argv[4:] not in ([], ["tls"]):
        sys.exit(__doc__.split("\n\n")[1].strip())
    port, updates, requests = (int(a) for a in sys.argv[1:4])
    c = Conn(port, sys.argv[4:] == ["tls"])
    first = PREFACE + frame(4, 0, 0)
    first += frame(8, 0, 0, (1).to_bytes(4, "big")) * updates
    c.s.sendall(first + get(1))
    c.answered(1)
    sid = 3
    for _ in range(requests):
        c.s.sendall(get(sid))
        c.answered(sid)
        sid += 2
    c.s.sendall(frame(7, 0, 0, (sid - 2).to_bytes(4, "big") + bytes(4)))  # GOAWAY NO_ERROR
    c.s.close()
    print(f"answered {requests + 1}", flush=True)


if __name__ == "__main__":
    main()
