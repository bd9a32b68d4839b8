# SPDX-License-Identifier: MIT
"""The ways a TCP connection ends, from the server's side, for test_reqtime_entries_freed.sh.

  close_patterns.py server PORT
  close_patterns.py client PORT N HOLD RELEASE_FILE

Each connection carries one request ("P<k>\\n") and one response ("OK\\n"); k says how it ends:
  0  the server closes after its response (FIN_WAIT1 from close())
  1  the client closes first, then the server (CLOSE_WAIT -> LAST_ACK)
  2  the server shuts down its sending side, reads to the client's end, then closes (a lingering
     close: FIN_WAIT1 with only SEND_SHUTDOWN, CLOSE before close())
  3  the server shuts down its sending side and closes before the client's end (close() in
     FIN_WAIT1 or FIN_WAIT2)
  4  the server shuts down both sides, then closes
  5  the server closes with bytes unread (a reset, CLOSE from close())
  6  the client resets (SO_LINGER 0): CLOSE by the reset, before the server's close()
The client first opens HOLD connections, one request each, and keeps them open; it prints "held" on stderr
once they are answered, runs N connections of each kind, prints "ran", and closes the held ones
once RELEASE_FILE exists (at most 60 s), then prints "done"."""
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import listener  # noqa: E402

KINDS = 7


def read_line(c):
	buf = b""
	while not buf.endswith(b"\n"):
		b = c.recv(64)
		if not b:
			break
		buf += b
	return buf


def drain(c):
	try:
		while c.recv(4096):
			pass
	except OSError:
		pass


def serve(c):
	req = read_line(c)
	if not req.startswith(b"P"):
		return
	kind = int(req[1:].strip() or b"0")
	c.sendall(b"OK\n")
	if kind == 1:
		drain(c)
	elif kind == 2:
		c.shutdown(socket.SHUT_WR)
		drain(c)
	elif kind == 3:
		c.shutdown(socket.SHUT_WR)
	elif kind == 4:
		c.shutdown(socket.SHUT_RDWR)
	elif kind == 5:
		time.sleep(0.02)  # the client's extra bytes arrive, never read
	elif kind == 6:
		drain(c)  # ends with the client's reset


def request(port, kind):
	c = socket.create_connection(("127.0.0.1", port))
	c.sendall(b"P%d\n" % kind)
	if read_line(c) != b"OK\n":
		raise SystemExit("kind %d: no answer" % kind)
	return c


def client(port, n, hold, release):
	held = [request(port, 1) for _ in range(hold)]  # the server waits for their end
	print("held", file=sys.stderr, flush=True)
	for kind in range(KINDS):
		for _ in range(n):
			c = request(port, kind)
			if kind == 5:
				c.sendall(b"extra bytes the server never reads\n")
			if kind == 6:
				c.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
			elif kind != 1:
				drain(c)
			c.close()
	print("ran", file=sys.stderr, flush=True)
	end = time.monotonic() + 60
	while not os.path.exists(release) and time.monotonic() < end:
		time.sleep(0.05)
	for c in held:
		c.close()
	print("done", file=sys.stderr, flush=True)


if __name__ == "__main__":
	if sys.argv[1] == "server":
		listener.serve_forever(int(sys.argv[2]), serve)
	else:
		client(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
