#!/usr/bin/python3
"""An HTTPS server whose every other connection fails its TLS negotiation, for the driver's stop
on failed negotiations (test_driver_tls.sh): a flaky server must be measured, not stopped.

  flaky_tls_httpd.py PORT GOOD_CERT GOOD_KEY BAD_CERT BAD_KEY

Connections are numbered as their threads start, from 0: the even ones get GOOD_CERT (the one the
client trusts), the odd ones BAD_CERT (one it does not), so of any N connections opened at once
at least N/2 come up. Each one that comes up answers every HTTP/1.1 request with 200 "ok\\n",
keep-alive, until the client closes. It prints "listening" on stderr once bound.
"""
import itertools
import os
import ssl
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from listener import request_heads, serve_forever  # noqa: E402

REPLY = b"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Type: text/plain\r\n\r\nok\n"


def context(cert, key):
	ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
	ctx.load_cert_chain(cert, key)
	ctx.set_alpn_protocols(["http/1.1"])
	return ctx


def serve(conn, ctx):
	tls = ctx.wrap_socket(conn, server_side=True)  # a refused handshake: ssl.SSLError, an OSError
	for _ in request_heads(tls):
		tls.sendall(REPLY)


def main():
	port = int(sys.argv[1])
	ctxs = (context(sys.argv[2], sys.argv[3]), context(sys.argv[4], sys.argv[5]))
	seq = itertools.count()  # next() on it is atomic under the GIL

	serve_forever(port, lambda conn: serve(conn, ctxs[next(seq) % 2]))


if __name__ == "__main__":
	main()
