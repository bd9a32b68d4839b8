#!/usr/bin/python3
"""An HTTP/2 server (h2c, prior knowledge; or h2 over TLS) whose answer to stream 1 is one write
of more buffers than the observer's frame walk takes (70, in one sendmsg), on 127.0.0.1:PORT.

  h2_write_gap_server.py PORT MODE [CERT KEY]

CERT KEY (PEM files): over TLS, h2 by ALPN (through the process's libssl, which the observer
probes); the 70 frames are then one TLS write, more frames than a walk bounded below 70 takes
(LOADLENS_OBSERVER_H2_FRAMES), and every other write is one TLS write too.

It prints "listening" on stderr once bound. Each connection gets an empty SETTINGS; each client
SETTINGS is acknowledged; each request (a HEADERS with END_STREAM) is answered with HEADERS
(:status 200) and DATA "ok\\n" (END_STREAM). Stream 1's answer begins with one sendmsg of 70
buffers, a frame each: 68 or 69 WINDOW_UPDATEs (stream 0, increment 1), then

  split  its HEADERS (the 70th buffer); its DATA in a write of its own after it
  whole  its HEADERS and its DATA (the 69th and 70th)

Every other answer is one write. Ends a connection at the client's GOAWAY or close, and itself
at SIGINT (exit 0). RFC 9113's wire format, written out below.
"""
import os
import signal
import ssl
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from h2wire import (DATA, END_HEADERS, END_STREAM, HEADERS, WINDOW_UPDATE,  # noqa: E402
                    client_frames, frame)
from listener import serve_forever  # noqa: E402

BUFFERS = 70


def answer(sid):
    # HPACK: :status 200 is the static table's entry 8 (indexed: 0x88)
    return frame(HEADERS, END_HEADERS, sid, b"\x88"), frame(DATA, END_STREAM, sid, b"ok\n")


def serve(conn, mode, ctx):
    if ctx:
        conn = ctx.wrap_socket(conn, server_side=True)
    for t, fl, sid in client_frames(conn):
        if t == HEADERS and fl & END_STREAM:
            head, data = answer(sid)
            if sid != 1:
                conn.sendall(head + data)
                continue
            tail = [head] if mode == "split" else [head, data]
            bufs = [frame(WINDOW_UPDATE, 0, 0, (1).to_bytes(4, "big"))] * \
                (BUFFERS - len(tail)) + tail
            want = sum(len(x) for x in bufs)
            if ctx:
                conn.sendall(b"".join(bufs))
            elif conn.sendmsg(bufs) != want:
                sys.exit("a short sendmsg")
            if mode == "split":
                conn.sendall(data)


def main():
    # a background job of a script starts with SIGINT ignored: the harness's stop sends it
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if len(sys.argv) not in (3, 5) or sys.argv[2] not in ("split", "whole"):
        sys.exit(__doc__.split("\n\n")[1].strip())
    port, mode, ctx = int(sys.argv[1]), sys.argv[2], None
    if len(sys.argv) == 5:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(sys.argv[3], sys.argv[4])
        ctx.set_alpn_protocols(["h2"])
    serve_forever(port, serve, mode, ctx, backlog=16)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
