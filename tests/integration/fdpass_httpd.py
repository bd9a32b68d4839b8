#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""A server split in two unrelated processes, as fd passing does it (a privilege-separated
acceptor, a socket-activation broker): the acceptor accepts TCP connections and hands each one
over a unix socket (SCM_RIGHTS) to the worker, which it did not start; the worker answers every
HTTP/1.x request on it with "200 ok" and keeps the connection open until the client closes.

  fdpass_httpd.py worker UNIX_PATH            (start first; prints "listening" when ready)
  fdpass_httpd.py acceptor UNIX_PATH PORT     (127.0.0.1:PORT; prints "listening" when ready)"""

import os
import select
import socket
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from listener import listen  # noqa: E402

REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"


def acceptor(path, port):
	u = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	for _ in range(100):
		try:
			u.connect(path)
			break
		except OSError:
			time.sleep(0.05)
	else:
		sys.exit(f"fdpass_httpd.py: no worker at {path}")
	lsn = listen(port)
	while True:
		c, _ = lsn.accept()
		socket.send_fds(u, [b"c"], [c.fileno()])
		c.close()


def worker(path):
	s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
	if os.path.exists(path):
		os.unlink(path)
	s.bind(path)
	s.listen(1)
	print("listening", file=sys.stderr, flush=True)
	u, _ = s.accept()
	pending = {}
	while True:
		ready, _, _ = select.select([u, *pending], [], [])
		for x in ready:
			if x is u:
				_, fds, _, _ = socket.recv_fds(u, 1, 1)
				if not fds:
					return
				pending[socket.socket(fileno=fds[0])] = b""
				continue
			data = x.recv(65536)
			if not data:
				x.close()
				del pending[x]
				continue
			pending[x] += data
			while b"\r\n\r\n" in pending[x]:
				_, pending[x] = pending[x].split(b"\r\n\r\n", 1)
				x.sendall(REPLY)


if __name__ == "__main__":
	if sys.argv[1:2] == ["worker"] and len(sys.argv) == 3:
		worker(sys.argv[2])
	elif sys.argv[1:2] == ["acceptor"] and len(sys.argv) == 4:
		acceptor(sys.argv[2], int(sys.argv[3]))
	else:
		sys.exit(__doc__)
