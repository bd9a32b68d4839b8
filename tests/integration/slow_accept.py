#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""A server that does not accept until told: listens on 127.0.0.1:PORT with BACKLOG, waits for the
file RELEASE to exist, then accepts every connection waiting, closes them, prints "accepted N" on
stderr and exits. For test_observer_systier.sh: an accept queue that builds, then is drained."""
import os
import select
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
import listener  # noqa: E402


def main():
	port, backlog, release = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
	s = listener.listen(port, backlog)
	while not os.path.exists(release):
		time.sleep(0.05)
	n = 0
	while select.select([s], [], [], 0.2)[0]:
		c, _ = s.accept()
		c.close()
		n += 1
	print("accepted %d" % n, file=sys.stderr, flush=True)


if __name__ == "__main__":
	main()
