# SPDX-License-Identifier: MIT
"""The processes of a benchmark on loopback (bench/observer_cost.py): started and stopped as one
set, ports found free and waited for, their CPU time, and what their logs say past a point."""
import os
import random
import signal
import socket
import subprocess
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


class Children:
	"""Every process started, stopped at exit: the observer with SIGINT, the others SIGTERM,
	then SIGKILL for any still there after 5 s."""

	def __init__(self):
		self.procs = []

	def start(self, argv, **kw):
		p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, **kw)
		self.procs.append(p)
		return p

	def stop(self, p, sig=signal.SIGTERM, timeout=10):
		"""sig to p, then wait for it (SIGKILL past timeout); its exit status."""
		if p.poll() is None:
			try:
				p.send_signal(sig)
				p.wait(timeout=timeout)
			except subprocess.TimeoutExpired:
				p.kill()
				p.wait()
		if p in self.procs:
			self.procs.remove(p)
		return p.returncode

	def stop_all(self):
		for p in list(self.procs):
			self.stop(p, signal.SIGINT if getattr(p, "observer", False) else signal.SIGTERM, 5)


def free_port(taken):
	"""A TCP port on 127.0.0.1 that nothing holds, below the ephemeral range."""
	while True:
		p = random.randint(20000, 32000)
		if p in taken:
			continue
		s = socket.socket()
		try:
			s.bind(("127.0.0.1", p))
		except OSError:
			continue
		finally:
			s.close()
		taken.add(p)
		return p


def wait_port(port, proc, what, timeout=10):
	end = time.monotonic() + timeout
	while time.monotonic() < end:
		if proc.poll() is not None:
			break
		try:
			socket.create_connection(("127.0.0.1", port), timeout=1).close()
			return
		except OSError:
			time.sleep(0.05)
	raise RuntimeError("%s is not listening on 127.0.0.1:%d" % (what, port))


def wait_text(path, text, proc, timeout):
	"""Until the file holds text (True), proc exits or timeout passes (False)."""
	end = time.monotonic() + timeout
	while time.monotonic() < end:
		with open(path, "rb") as f:
			if text in f.read():
				return True
		if proc.poll() is not None:
			return False
		time.sleep(0.005)
	return False


def tail(path, n=3):
	try:
		with open(path, errors="replace") as f:
			return " | ".join(l.strip() for l in f.read().strip().splitlines()[-n:])
	except OSError:
		return ""


def cpu_s(pid):
	"""utime + stime of a process (all its threads), in seconds."""
	with open("/proc/%d/stat" % pid) as f:
		f = f.read().rsplit(")", 1)[1].split()
	return (int(f[11]) + int(f[12])) / CLK_TCK


def lines_since(path, offset):
	"""(newlines in path past offset, its size now)."""
	with open(path, "rb") as f:
		f.seek(offset)
		data = f.read()
	return data.count(b"\n"), offset + len(data)


def undelivered_since(path, offset):
	"""Access-log lines (nginx's combined format) past offset whose response sent no body, or
	status 499: requests the server logged though the client had gone (not answered)."""
	n = 0
	with open(path, "rb") as f:
		f.seek(offset)
		for line in f:
			w = line.split(b'" ', 2)
			st = w[1].split() if len(w) > 1 else []
			if len(st) >= 2 and (st[0] == b"499" or st[1] == b"0"):
				n += 1
	return n
