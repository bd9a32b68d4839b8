#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A client that writes its first bytes in pieces, each write apart (TCP_NODELAY and a pause, so
that the server reads them apart), against 127.0.0.1:PORT:

  h2      the HTTP/2 client preface in pieces of --piece bytes, then SETTINGS and --requests GET
          streams one at a time, each read to its END_STREAM; prints "answered N"
  post    HTTP/1.1: "P" alone, then "OST / HTTP/1.1 ..." with a 2-byte body, --requests of them on
          one connection, each response read whole; prints "answered N"
  broken  "PRI * HTTP/1.1" and a blank line (the preface's method, then no preface), then waits
          for the server to close; prints "answered 0"

--connections such connections, one after another. Exits 1 if a response is short or a server
closes early (h2, post)."""
import argparse
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from h2wire import (DATA, END_HEADERS, END_STREAM, HEADERS, PREFACE, SETTINGS,  # noqa: E402
		    frame)

PAUSE = 0.002


def conn(port):
	s = socket.create_connection(("127.0.0.1", port), timeout=10)
	s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
	return s


def pieces(s, data, n):
	for i in range(0, len(data), n):
		s.sendall(data[i:i + n])
		time.sleep(PAUSE)


def h2_stream_done(s, sid, buf):
	"""Reads frames until stream sid's END_STREAM; returns the bytes left over."""
	while True:
		while len(buf) >= 9:
			ln = int.from_bytes(buf[:3], "big")
			if len(buf) < 9 + ln:
				break
			t, f = buf[3], buf[4]
			fsid = int.from_bytes(buf[5:9], "big") & 0x7fffffff
			buf = buf[9 + ln:]
			if fsid == sid and t in (DATA, HEADERS) and f & END_STREAM:
				return buf
		d = s.recv(65536)
		if not d:
			sys.exit("the server closed before stream %d ended" % sid)
		buf += d


def h2(port, piece, requests):
	s = conn(port)
	pieces(s, PREFACE, piece)
	s.sendall(frame(SETTINGS, 0, 0))
	buf = b""
	# :method GET, :scheme http, :path /, :authority localhost (a literal, no indexing)
	block = b"\x82\x86\x84\x01\x09localhost"
	for i in range(requests):
		sid = 1 + 2 * i
		s.sendall(frame(HEADERS, END_HEADERS | END_STREAM, sid, block))
		buf = h2_stream_done(s, sid, buf)
	s.close()
	return requests


def http_response(s, buf):
	"""Reads one HTTP/1.1 response with a Content-Length; returns the bytes left over."""
	while b"\r\n\r\n" not in buf:
		d = s.recv(65536)
		if not d:
			sys.exit("the server closed before a response")
		buf += d
	head, rest = buf.split(b"\r\n\r\n", 1)
	length = 0
	for line in head.split(b"\r\n")[1:]:
		k, _, v = line.partition(b":")
		if k.strip().lower() == b"content-length":
			length = int(v)
	while len(rest) < length:
		d = s.recv(65536)
		if not d:
			sys.exit("the server closed in a response")
		rest += d
	return rest[length:]


def post(port, requests):
	s = conn(port)
	buf = b""
	for i in range(requests):
		s.sendall(b"P")
		time.sleep(PAUSE)
		s.sendall(b"OST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\n\r\nok")
		buf = http_response(s, buf)
	s.close()
	return requests


def broken(port):
	s = conn(port)
	s.sendall(b"PRI * HTTP/1.1\r\n\r\n")
	try:
		while s.recv(65536):
			pass
	except OSError:
		pass
	s.close()
	return 0


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("mode", choices=["h2", "post", "broken"])
	ap.add_argument("--port", type=int, required=True)
	ap.add_argument("--piece", type=int, default=1)
	ap.add_argument("--requests", type=int, default=5)
	ap.add_argument("--connections", type=int, default=10)
	a = ap.parse_args()
	n = 0
	for _ in range(a.connections):
		if a.mode == "h2":
			n += h2(a.port, a.piece, a.requests)
		elif a.mode == "post":
			n += post(a.port, a.requests)
		else:
			n += broken(a.port)
	print("answered %d" % n, flush=True)


if __name__ == "__main__":
	main()
