#!/usr/bin/env python3
"""Holds TCP sockets in many states on loopback, IPv4 and IPv6, for the census comparison
(test_census_iter.sh): per family, on a listener of its own (an ephemeral port, printed),
N of each of
  ESTABLISHED pairs; accepted CLOSE_WAIT whose client closed (an orphan FIN_WAIT2, a TIME_WAIT
  socket in its FIN_WAIT2 substate); accepted CLOSE_WAIT whose client shut its side (a full
  FIN_WAIT2 socket); client TIME_WAIT; never-accepted CLOSE_WAIT children (their clients closed);
and N ESTABLISHED pairs from a second source address (a second port group).
Prints "ports P4 P6" on stderr and then holds everything for SECONDS (or until stopped).

usage: census_hold.py N SECONDS"""
import socket
import sys
import time

N = int(sys.argv[1])
keep = []


def pair(fam, addr, lsock, src=None):
	c = socket.socket(fam, socket.SOCK_STREAM)
	if src:
		c.bind((src, 0))
	c.connect((addr, lsock.getsockname()[1]))
	s, _ = lsock.accept()
	return c, s


ports = []
for fam, addr, src2 in ((socket.AF_INET, "127.0.0.1", "127.0.0.2"),
			(socket.AF_INET6, "::1", None)):
	lsock = socket.socket(fam, socket.SOCK_STREAM)
	lsock.bind((addr, 0))
	lsock.listen(4096)
	keep.append(lsock)
	ports.append(lsock.getsockname()[1])
	for _ in range(N):
		keep.extend(pair(fam, addr, lsock))
		if src2:
			keep.extend(pair(fam, addr, lsock, src2))
		c, s = pair(fam, addr, lsock)
		c.close()
		keep.append(s)
		c, s = pair(fam, addr, lsock)
		c.shutdown(socket.SHUT_WR)
		keep.extend((c, s))
		c, s = pair(fam, addr, lsock)
		c.close()
		time.sleep(0.0005)
		s.close()
	for _ in range(N):
		c = socket.socket(fam, socket.SOCK_STREAM)
		c.connect((addr, ports[-1]))
		c.close()
time.sleep(0.5)  # the last FINs and ACKs land
print("ports %d %d" % tuple(ports), file=sys.stderr, flush=True)
time.sleep(float(sys.argv[2]))
