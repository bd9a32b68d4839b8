# SPDX-License-Identifier: MIT
"""What the test servers written in Python share (odd_httpd.py, ldap_stub.py, h2_bad_server.py,
h2_write_gap_server.py, fdpass_httpd.py, echo_framed.py, flaky_tls_httpd.py): a TCP listener on
127.0.0.1 that says "listening" on stderr once bound (the harness's wait_for), a thread per
connection, and the HTTP/1.1 requests a connection sends.

A server beside this folder imports it after
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))"""
import socket
import sys
import threading


def listen(port, backlog=128, reuseport=False):
	"""A socket listening on 127.0.0.1:PORT (SO_REUSEADDR; REUSEPORT: shared with another
	process), once "listening" is printed."""
	s = socket.socket()
	s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	if reuseport:
		s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
	s.bind(("127.0.0.1", port))
	s.listen(backlog)
	print("listening", file=sys.stderr, flush=True)
	return s


def _serve_one(serve, conn, args):
	try:
		serve(conn, *args)
	except OSError:
		pass  # the client went away: that connection ends, the server goes on
	finally:
		conn.close()


def serve_forever(port, serve, *args, backlog=128, reuseport=False, on_accept=None):
	"""Listen on PORT (as listen()) and run SERVE(conn, *ARGS) in a thread per connection until
	killed; the connection is closed when SERVE returns or raises OSError. ON_ACCEPT(): called as
	each connection is accepted, before its thread starts."""
	s = listen(port, backlog, reuseport)
	while True:
		c, _ = s.accept()
		if on_accept:
			on_accept()
		threading.Thread(target=_serve_one, args=(serve, c, args), daemon=True).start()


def request_heads(conn):
	"""The head of each request CONN sends (bytes, without its blank line; requests without a
	body, as GET's), as each comes in, until the client closes."""
	buf = b""
	while True:
		while b"\r\n\r\n" not in buf:
			data = conn.recv(65536)
			if not data:
				return
			buf += data
		head, buf = buf.split(b"\r\n\r\n", 1)
		yield head
