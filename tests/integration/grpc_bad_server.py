#!/usr/bin/python3
"""A gRPC server (h2c, prior knowledge) that answers every unary call with one fixed reply, well
formed or broken in one way, for the driver's tests, on 127.0.0.1.

  grpc_bad_server.py PORT MODE [PORT MODE ...]

Each PORT gets its MODE; "listening" is printed on stderr once every port is bound. A connection
gets an empty SETTINGS, each client SETTINGS an ACK, and each call (a stream the client ended,
on its HEADERS or its DATA; the request is not decoded) this reply: response HEADERS (:status
200, content-type), DATA, then trailers (HEADERS with END_STREAM), as set below.

  ok          one message "abc", grpc-status 0: well formed
  error       trailers-only, grpc-status 8 (RESOURCE_EXHAUSTED): well formed, an error status
  short       a length prefix of 100 with 3 bytes behind it
  long        a length prefix of 1 with 6 bytes behind it
  prefix2     a 2-byte prefix, no more
  huge        16 MiB declared, 3 bytes sent
  4gib        4 GiB - 1 declared, 3 bytes sent
  compressed  the compressed flag, though the client offered no grpc-encoding
  two         two messages in the unary reply
  none        no message, grpc-status 0
  html        content-type text/html and a web page
  nostatus    trailers without grpc-status
  textstatus  grpc-status "OK" (not a number)
  notrailers  the message's DATA ends the stream: no trailers at all

RFC 9113's frames and RFC 7541's literals written out (lib/h2wire.py). Runs until killed.
"""
import os
import socket
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from h2wire import (DATA, END_HEADERS, END_STREAM, HEADERS, client_frames, frame,  # noqa: E402
		    hpack_literal)

GRPC = b"\x88" + hpack_literal(b"content-type", b"application/grpc")
OK = hpack_literal(b"grpc-status", b"0")


def msg(body, flag=0, length=None):
	"""A Length-Prefixed-Message: flag byte, 4-byte length (declared: length), body."""
	return bytes([flag]) + (len(body) if length is None else length).to_bytes(4, "big") + body


# MODE: (response headers, DATA or None, trailers or None); no DATA and no trailers: trailers-only
REPLIES = {
	"ok": (GRPC, msg(b"abc"), OK),
	"error": (GRPC + hpack_literal(b"grpc-status", b"8"), None, None),
	"short": (GRPC, msg(b"abc", length=100), OK),
	"long": (GRPC, msg(b"a") + b"bcdef", OK),
	"prefix2": (GRPC, b"\0\0", OK),
	"huge": (GRPC, msg(b"abc", length=16 << 20), OK),
	"4gib": (GRPC, msg(b"abc", length=(1 << 32) - 1), OK),
	"compressed": (GRPC, msg(b"abc", flag=1), OK),
	"two": (GRPC, msg(b"abc") + msg(b"def"), OK),
	"none": (GRPC, b"", OK),
	"html": (b"\x88" + hpack_literal(b"content-type", b"text/html"),
		 b"<html><body>not here</body></html>\n", OK),
	"nostatus": (GRPC, msg(b"abc"), hpack_literal(b"grpc-message", b"no status")),
	"textstatus": (GRPC, msg(b"abc"), hpack_literal(b"grpc-status", b"OK")),
	"notrailers": (GRPC, msg(b"abc"), None),
}


def reply(sid, mode):
	head, data, trailers = REPLIES[mode]
	if data is None and trailers is None:
		return frame(HEADERS, END_HEADERS | END_STREAM, sid, head)
	out = frame(HEADERS, END_HEADERS, sid, head)
	if trailers is None:
		return out + frame(DATA, END_STREAM, sid, data)
	if data:
		out += frame(DATA, 0, sid, data)
	return out + frame(HEADERS, END_HEADERS | END_STREAM, sid, trailers)


def serve(conn, mode):
	for t, fl, sid in client_frames(conn):
		if t in (HEADERS, DATA) and fl & END_STREAM:
			conn.sendall(reply(sid, mode))


def one(conn, mode):
	try:
		serve(conn, mode)
	except OSError:
		pass  # the client went away
	finally:
		conn.close()


def accept_loop(s, mode):
	while True:
		c, _ = s.accept()
		threading.Thread(target=one, args=(c, mode), daemon=True).start()


def main():
	args = sys.argv[1:]
	if not args or len(args) % 2 or any(m not in REPLIES for m in args[1::2]):
		sys.exit("usage: grpc_bad_server.py PORT MODE [PORT MODE ...]; modes: " +
			 " ".join(REPLIES))
	socks = []
	for port, mode in zip(args[::2], args[1::2]):
		s = socket.socket()
		s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
		s.bind(("127.0.0.1", int(port)))
		s.listen(64)
		socks.append((s, mode))
	print("listening", file=sys.stderr, flush=True)
	for s, mode in socks[1:]:
		threading.Thread(target=accept_loop, args=(s, mode), daemon=True).start()
	accept_loop(*socks[0])


if __name__ == "__main__":
	try:
		main()
	except KeyboardInterrupt:
		pass
