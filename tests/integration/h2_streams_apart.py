#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""An HTTP/2 client whose streams of one connection leave apart: stream 1's HEADERS, then one
more stream every --gap while the server still serves the first, each in a write of its own
(TCP_NODELAY), so that a server that serves a connection's streams one at a time reads the later
ones together, each from its own segment. Each stream's latency runs from its HEADERS' write to
its END_STREAM. --connections such connections, one after another, against 127.0.0.1:PORT.
Prints one JSON object: streams, latency_mean_ns, latency_max_ns. Exits 1 if a stream is not
answered within 30 s."""
import argparse
import json
import os
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from h2wire import (DATA, END_HEADERS, END_STREAM, HEADERS, PREFACE, SETTINGS,  # noqa: E402
		    frame)

# :method GET, :scheme http, :path /, :authority localhost (a literal, no indexing)
BLOCK = b"\x82\x86\x84\x01\x09localhost"


def one_connection(port, streams, gap):
	"""Returns each stream's latency in ns."""
	s = socket.create_connection(("127.0.0.1", port), timeout=30)
	s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
	s.sendall(PREFACE + frame(SETTINGS, 0, 0))
	sent = {}
	for k in range(streams):
		if k:
			time.sleep(gap)
		sid = 1 + 2 * k
		sent[sid] = time.monotonic_ns()
		s.sendall(frame(HEADERS, END_HEADERS | END_STREAM, sid, BLOCK))
	done = {}
	buf = b""
	while len(done) < streams:
		while len(buf) >= 9 and len(buf) >= 9 + int.from_bytes(buf[:3], "big"):
			n = int.from_bytes(buf[:3], "big")
			t, fl, sid = buf[3], buf[4], int.from_bytes(buf[5:9], "big") & 0x7FFFFFFF
			buf = buf[9 + n:]
			if sid in sent and sid not in done and t in (DATA, HEADERS) and fl & END_STREAM:
				done[sid] = time.monotonic_ns()
		if len(done) == streams:
			break
		try:
			d = s.recv(65536)
		except socket.timeout:
			sys.exit(f"streams {sorted(set(sent) - set(done))} not answered within 30 s")
		if not d:
			sys.exit("the server closed before every stream ended")
		buf += d
	s.close()
	return [done[sid] - sent[sid] for sid in sent]


def main():
	p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
	p.add_argument("--port", type=int, required=True)
	p.add_argument("--streams", type=int, default=5)
	p.add_argument("--gap", type=float, default=0.02, help="seconds between streams")
	p.add_argument("--connections", type=int, default=3)
	a = p.parse_args()
	lat = []
	for _ in range(a.connections):
		lat += one_connection(a.port, a.streams, a.gap)
	print(json.dumps({"streams": len(lat), "latency_mean_ns": sum(lat) / len(lat),
			  "latency_max_ns": max(lat)}))


if __name__ == "__main__":
	main()
