#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Short hostile HTTP/2 connections to 127.0.0.1:PORT: each writes the client preface, SETTINGS
and the header of a HEADERS frame on stream 1 that claims 16 MiB of header block (a few bytes of
it follow), then closes. --connections of them over --procs processes, each from a source
address of its own (127.0.0.2, .3, ...: each address's ephemeral ports hold its TIME_WAITs). Prints
"hostile N" (the connections made)."""
import argparse
import multiprocessing
import os
import socket
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from h2wire import END_HEADERS, HEADERS, PREFACE, SETTINGS, frame  # noqa: E402

HOSTILE = (PREFACE + frame(SETTINGS, 0, 0) + (0xffffff).to_bytes(3, "big") +
	   bytes([HEADERS, END_HEADERS]) + (1).to_bytes(4, "big") + b"\x82\x86\x84")


def worker(args):
	port, src, n = args
	made = 0
	for _ in range(n):
		s = socket.socket()
		try:
			s.bind((src, 0))
			s.connect(("127.0.0.1", port))
			s.sendall(HOSTILE)
			made += 1
		except OSError:
			pass
		s.close()  # (a FIN: the server reads the frame header, then the close)
	return made


def main():
	ap = argparse.ArgumentParser()
	ap.add_argument("--port", type=int, required=True)
	ap.add_argument("--connections", type=int, default=90000)
	ap.add_argument("--procs", type=int, default=4)
	a = ap.parse_args()
	per = a.connections // a.procs
	jobs = [(a.port, "127.0.0.%d" % (2 + i), per) for i in range(a.procs)]
	with multiprocessing.Pool(a.procs) as p:
		made = sum(p.map(worker, jobs))
	print("hostile %d" % made, flush=True)


if __name__ == "__main__":
	main()
