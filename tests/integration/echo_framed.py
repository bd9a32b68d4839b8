#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A server of the refserver's framing (a 4-byte big-endian length, then that many bytes, echoed
whole) on 127.0.0.1:PORT, SO_REUSEPORT so that it can share the port with another process. It
prints "listening" on stderr once bound, and its count of responses and of connections accepted
on stdout when stopped (SIGINT, SIGTERM). With UPSTREAM it is also a client: once its first
client connects it makes 300 requests of its own to 127.0.0.1:UPSTREAM.

  echo_framed.py PORT [UPSTREAM]"""
import os
import signal
import socket
import struct
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from listener import serve_forever  # noqa: E402

port = int(sys.argv[1])
upstream = int(sys.argv[2]) if len(sys.argv) > 2 else 0
n = 0
accepted = 0
lock = threading.Lock()


def client():
	"""300 requests of its own to the upstream server, framed as the refserver's."""
	c = socket.create_connection(("127.0.0.1", upstream))
	for _ in range(300):
		c.sendall(struct.pack(">I", 4) + b"ping")
		c.recv(8, socket.MSG_WAITALL)
	c.close()


def serve(c):
	global n
	while True:
		h = c.recv(4, socket.MSG_WAITALL)
		if len(h) < 4:
			return
		size = struct.unpack(">I", h)[0]
		body = c.recv(size, socket.MSG_WAITALL) if size else b""
		c.sendall(h + body)
		with lock:
			n += 1


def accept():
	global accepted
	accepted += 1
	if accepted == 1 and upstream:  # the first client: make the upstream requests meanwhile
		threading.Thread(target=client, daemon=True).start()


def done(*_):
	print("responses", n, flush=True)
	print("accepted", accepted, flush=True)
	sys.exit(0)


signal.signal(signal.SIGINT, done)
signal.signal(signal.SIGTERM, done)
serve_forever(port, serve, reuseport=True, on_accept=accept)
