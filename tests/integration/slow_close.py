#!/usr/bin/env python3
"""A keep-alive connection whose server closes late (tests/integration/test_reqtime_lean.sh).

    slow_close.py PORT N

Serves one connection on 127.0.0.1:PORT: each line read is answered "y" after 1 ms of service;
the client (this process too) sends N requests one at a time, then closes. The server, at the
end of the stream, waits 200 ms before its close(), longer than TCP's delayed ACK, so the
client's FIN is acknowledged before the server closes. Prints "served N". Standard library only.
"""
import socket
import sys
import threading
import time


def main():
	port, n = int(sys.argv[1]), int(sys.argv[2])
	ls = socket.socket()
	ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	ls.bind(("127.0.0.1", port))
	ls.listen(1)
	served = [0]

	def serve():
		c, _ = ls.accept()
		while True:
			d = c.recv(100)
			if not d:
				time.sleep(0.2)
				c.close()
				return
			time.sleep(0.001)
			c.sendall(b"y\n")
			served[0] += 1

	t = threading.Thread(target=serve)
	t.start()
	cl = socket.create_connection(("127.0.0.1", port))
	for _ in range(n):
		cl.sendall(b"x\n")
		if cl.recv(100) != b"y\n":
			sys.exit("slow_close.py: a short answer")
	cl.close()
	t.join()
	print("served %d" % served[0], flush=True)


if __name__ == "__main__":
	main()
