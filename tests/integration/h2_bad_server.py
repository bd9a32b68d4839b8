#!/usr/bin/python3
"""An HTTP/2 server that misbehaves in one fixed way, for the driver's tests, on 127.0.0.1:PORT.

  h2_bad_server.py PORT MODE

It prints "listening" on stderr once bound. On each connection it reads the client's preface
(24 bytes) and answers with fixed frames (RFC 9113 wire format, written out below), then keeps
reading until the client closes:

  malformed  an empty SETTINGS, then a SETTINGS frame of 5 bytes (a FRAME_SIZE_ERROR: a
             SETTINGS payload is a multiple of 6)
  window0    SETTINGS with INITIAL_WINDOW_SIZE 0: no request body can be sent, nothing is
             ever answered (flow-control stall)
  rst        an empty SETTINGS, then RST_STREAM INTERNAL_ERROR on stream 1
  close      an empty SETTINGS, then, once the requests sent with the preface are read, the
             connection closed (FIN) with them unanswered
"""
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from h2wire import RST_STREAM, SETTINGS, frame, read_preface  # noqa: E402
from listener import serve_forever  # noqa: E402

REPLIES = {
    "malformed": frame(SETTINGS, 0, 0) + frame(SETTINGS, 0, 0, b"\0" * 5),
    "window0": frame(SETTINGS, 0, 0, (4).to_bytes(2, "big") + (0).to_bytes(4, "big")),
    "rst": frame(SETTINGS, 0, 0) + frame(RST_STREAM, 0, 1, (2).to_bytes(4, "big")),
    "close": frame(SETTINGS, 0, 0),
}


def serve(conn, reply, mode):
    if read_preface(conn) is None:
        return
    conn.sendall(reply)
    if mode == "close":
        # what came in 0.1 s is read, so the close is a FIN, not a reset
        conn.settimeout(0.1)
        try:
            while conn.recv(65536):
                pass
        except socket.timeout:
            pass
        return
    while conn.recv(65536):
        pass


def main():
    port, mode = int(sys.argv[1]), sys.argv[2]
    serve_forever(port, serve, REPLIES[mode], mode, backlog=64)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
