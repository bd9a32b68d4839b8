#!/usr/bin/python3
"""Small servers and helpers the scenario matrix runs (standard library only).

Each subcommand runs in the foreground, prints one line 'ready ...' on stderr once it serves,
and stops on SIGTERM or after --seconds. Times written to --log are CLOCK_REALTIME seconds
(time.time()), the clock the harness compares with the observer's NDJSON 'time'.

  http       ThreadingHTTPServer (one thread per connection); --keepalive: HTTP/1.1
  noclose    HTTP on one thread (selectors); never closes a connection, even after the peer's
             FIN: the server side stays in CLOSE_WAIT, the client's in FIN_WAIT2
  slowaccept listen(--backlog) and accept one connection every --every seconds
  fork       a pre-forking HTTP server: the parent listens, forks --children children one by
             one (--gap apart), each accepts and answers; --log gets 'pid epoch' per child
  forkper    a forking server, as PostgreSQL's postmaster: the parent accepts, forks a child
             per connection and closes its copy; the child answers the connection's HTTP
             requests until the client closes, then exits 0; --crash-every N: every Nth child
             answers, writes 'pid epoch' to --log, then kills itself with SIGSEGV (a crash)
  respawn    a pre-forking HTTP server whose master keeps --children workers: each accepts and
             answers; once --wait-file exists, a worker exits 0 --every seconds after it
             started (a worker that cannot get going) and the master forks another at once:
             a respawn loop; --log gets 'master-pid epoch' at each worker's exit
  bindloop   bind() to --port (taken by the server) every --every seconds: EADDRINUSE
  redispipe  a pipelining Redis client: --children connections, each writes --depth SET
             commands one write() apiece (TCP_NODELAY, as clients that flush per command do),
             then reads their replies; --count commands per connection or --seconds
  lingering  HTTP, a thread per connection, that answers every request as keep-alive, even
             'Connection: close', and closes only after the client did: the client closes
             first, its TIME_WAIT holds its port (a proxy's backend side)
  ramp       a client: opens --count connections to --port evenly over --ramp seconds and
             holds them; then, every --every seconds, closes one and opens another, until
             --seconds (a connection ramp that stops, then sits flat with a little churn)
  leak       an HTTP client that leaks its connections, as one that never closes its responses:
             opens --count connections to --port one after another, sends a request on each
             and never reads the answer nor closes it; writes 'pid epoch' to --log once all are
             open and every answer waits unread in its socket, then holds them until
             --seconds. --keepalive: the well-behaved twin, which
             reads each answer and closes the connection before it opens the next
  spin       a CPU hog: busy-loops for --seconds
  enfile     lowers fs.file-max to file-nr + --margin, then an unprivileged child (nobody, no
             capabilities) opens /dev/null until ENFILE, writes its time to --log, closes
             --release fds at once and holds the rest for --hold seconds; fs.file-max is restored
             on every exit path, and by a detached watchdog if this process is killed
"""
import argparse
import array
import errno
import fcntl
import os
import selectors
import signal
import socket
import subprocess
import sys
import termios
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

BODY = b"hello, scenario\n"


def ready(what):
	print("ready " + what, file=sys.stderr, flush=True)


def on_term(*_):
	raise SystemExit(0)


def listener(port, backlog):
	"""A TCP socket listening on 127.0.0.1:PORT (SO_REUSEADDR)."""
	ls = socket.socket()
	ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
	ls.bind(("127.0.0.1", port))
	ls.listen(backlog)
	return ls


def http_reply(keepalive):
	conn = b"keep-alive" if keepalive else b"close"
	return (b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n"
		b"Connection: %s\r\n\r\n%s" % (len(BODY), conn, BODY))


class Handler(BaseHTTPRequestHandler):
	wbufsize = 65536  # one write per response (flushed after each), as a real server does
	def do_GET(self):
		self.send_response(200)
		self.send_header("Content-Type", "text/plain")
		self.send_header("Content-Length", str(len(BODY)))
		self.end_headers()
		self.wfile.write(BODY)

	def log_message(self, *_):
		pass


class Server(ThreadingHTTPServer):
	request_queue_size = 128  # http.server's default of 5 overflows with 16 clients at once
	daemon_threads = True


def answer_once(c, timeout):
	"""Read one request from connection c, answer it with Connection: close, close c."""
	c.settimeout(timeout)
	try:
		c.recv(65536)
		c.sendall(http_reply(False))
	except OSError:
		pass
	c.close()


def serve_http(c, honour_close):
	"""Answer every request on connection c, keep-alive, until the client closes (or, where
	HONOUR_CLOSE, a request asks Connection: close: that answer is the last); then close c."""
	buf = b""
	try:
		while True:
			d = c.recv(65536)
			if not d:
				break
			buf += d
			while b"\r\n\r\n" in buf:
				req, buf = buf.split(b"\r\n\r\n", 1)
				close = honour_close and b"connection: close" in req.lower()
				c.sendall(http_reply(not close))
				if close:
					raise EOFError
	except (OSError, EOFError):
		pass
	c.close()


def cmd_http(a):
	Handler.protocol_version = "HTTP/1.1" if a.keepalive else "HTTP/1.0"
	srv = Server(("127.0.0.1", a.port), Handler)
	ready("http %d %s" % (a.port, Handler.protocol_version))
	threading.Thread(target=srv.serve_forever, daemon=True).start()
	time.sleep(a.seconds)


def cmd_noclose(a):
	ls = listener(a.port, 1024)
	ls.setblocking(False)
	sel = selectors.DefaultSelector()
	sel.register(ls, selectors.EVENT_READ)
	kept = []  # every connection, never closed
	reply = http_reply(True)
	ready("noclose %d" % a.port)
	end = time.monotonic() + a.seconds
	while time.monotonic() < end:
		for key, _ in sel.select(0.1):
			if key.fileobj is ls:
				try:
					c, _ = ls.accept()
				except BlockingIOError:
					continue
				c.setblocking(False)
				kept.append(c)
				sel.register(c, selectors.EVENT_READ)
				continue
			c = key.fileobj
			try:
				data = c.recv(65536)
			except (BlockingIOError, ConnectionError):
				continue
			if not data:
				sel.unregister(c)  # the peer closed; we never do
				continue
			n = data.count(b"\r\n\r\n")
			if n:
				c.send(reply * n)


def cmd_slowaccept(a):
	ls = listener(a.port, a.backlog)
	ready("slowaccept %d backlog %d" % (a.port, a.backlog))
	end = time.monotonic() + a.seconds
	ls.settimeout(0.2)
	while time.monotonic() < end:
		try:
			c, _ = ls.accept()
		except socket.timeout:
			continue
		answer_once(c, 0.2)
		time.sleep(a.every)


def fork_child(ls):
	signal.signal(signal.SIGTERM, signal.SIG_DFL)
	ls.settimeout(0.5)
	while True:
		try:
			c, _ = ls.accept()
		except socket.timeout:
			if os.getppid() == 1:
				os._exit(0)
			continue
		except OSError:
			continue
		answer_once(c, 1)


def on_term_stop_children(kids):
	"""On SIGTERM, pass it on to each pid in kids (a list or set, read then), and exit 0."""
	def stop(*_):
		for k in kids:
			try:
				os.kill(k, signal.SIGTERM)
			except ProcessLookupError:
				pass
		raise SystemExit(0)

	signal.signal(signal.SIGTERM, stop)


def cmd_fork(a):
	ls = listener(a.port, 128)
	kids = []
	log = open(a.log, "a", buffering=1)

	on_term_stop_children(kids)
	ready("fork %d parent %d" % (a.port, os.getpid()))
	if a.wait_file:  # fork only once the observer is watching
		while not os.path.exists(a.wait_file):
			time.sleep(0.05)
	for i in range(a.children):
		pid = os.fork()
		if pid == 0:
			fork_child(ls)
		kids.append(pid)
		log.write("%d %d %.6f\n" % (i + 1, pid, time.time()))
		time.sleep(a.gap)
	end = time.monotonic() + a.seconds
	while time.monotonic() < end:
		time.sleep(0.1)
	stop()


def forkper_child(c, n, a):
	signal.signal(signal.SIGTERM, signal.SIG_DFL)
	c.settimeout(5)
	serve_http(c, True)
	if a.crash_every and n % a.crash_every == 0:
		with open(a.log, "a") as log:
			log.write("%d %.6f\n" % (os.getpid(), time.time()))
		os.kill(os.getpid(), signal.SIGSEGV)
	os._exit(0)


def cmd_forkper(a):
	signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children reaped by the kernel
	ls = listener(a.port, 256)
	ready("forkper %d parent %d" % (a.port, os.getpid()))
	n = 0
	while True:
		try:
			c, _ = ls.accept()
		except InterruptedError:
			continue
		n += 1
		if os.fork() == 0:
			ls.close()
			forkper_child(c, n, a)
		c.close()


def respawn_worker(ls, a):
	signal.signal(signal.SIGTERM, signal.SIG_DFL)
	ls.settimeout(a.every)
	born = time.monotonic()
	while True:
		sick = a.wait_file and os.path.exists(a.wait_file)
		if sick and time.monotonic() - born >= a.every:
			os._exit(0)
		try:
			c, _ = ls.accept()
		except (socket.timeout, OSError):
			if os.getppid() == 1:
				os._exit(0)
			continue
		answer_once(c, 1)


def cmd_respawn(a):
	ls = listener(a.port, 128)
	kids = set()
	log = open(a.log, "a", buffering=1)

	def spawn():
		pid = os.fork()
		if pid == 0:
			respawn_worker(ls, a)
		kids.add(pid)

	on_term_stop_children(kids)
	for _ in range(a.children):
		spawn()
	ready("respawn %d parent %d" % (a.port, os.getpid()))
	end = time.monotonic() + a.seconds
	while time.monotonic() < end:
		pid, _ = os.wait()
		kids.discard(pid)
		log.write("%d %.6f\n" % (os.getpid(), time.time()))
		spawn()
	stop()


def cmd_bindloop(a):
	"""bind() to a port already taken, every --every seconds (a restart that finds its port
	busy); the time of the first EADDRINUSE goes to --log."""
	first = None
	end = time.monotonic() + a.seconds
	while time.monotonic() < end:
		s = socket.socket()
		try:
			s.bind(("127.0.0.1", a.port))
		except OSError as e:
			if e.errno != errno.EADDRINUSE:
				raise
			if first is None:
				first = time.time()
				with open(a.log, "w") as f:
					f.write("%.6f\n" % first)
		finally:
			s.close()
		time.sleep(a.every)
	if first is None:
		raise SystemExit("bindloop: port %d was never busy" % a.port)


REDIS_SET = b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n"


def threads(n, target, args, none_done):
	"""N threads of target(*ARGS, done, i), each counting into done[i]; exits with NONE_DONE if
	one of them did nothing. Returns done."""
	done = [0] * n
	ts = [threading.Thread(target=target, args=args + (done, i)) for i in range(n)]
	for t in ts:
		t.start()
	for t in ts:
		t.join()
	if 0 in done:
		raise SystemExit(none_done)
	return done


def redispipe_conn(a, end, done, i):
	s = socket.create_connection(("127.0.0.1", a.port))
	s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
	n = 0
	while n < a.count and time.monotonic() < end:
		for _ in range(a.depth):
			s.sendall(REDIS_SET)
		want, got = a.depth * 5, b""  # "+OK\r\n" each
		while len(got) < want:
			b = s.recv(65536)
			if not b:
				raise SystemExit("redispipe: the server closed")
			got += b
		if got != b"+OK\r\n" * a.depth:
			raise SystemExit("redispipe: unexpected reply %r" % got[:64])
		n += a.depth
	s.close()
	done[i] = n


def cmd_redispipe(a):
	end = time.monotonic() + a.seconds
	done = threads(a.children, redispipe_conn, (a, end),
		       "redispipe: a connection did no command")
	print("redispipe: %d commands in batches of %d on %d connections" %
	      (sum(done), a.depth, a.children))


def cmd_lingering(a):
	ls = listener(a.port, 512)
	ready("lingering %d" % a.port)
	while True:
		c, _ = ls.accept()
		threading.Thread(target=serve_http, args=(c, False), daemon=True).start()


def cmd_ramp(a):
	conns = []
	start = time.monotonic()
	end = start + a.seconds
	for i in range(a.count):
		delay = start + a.ramp * i / a.count - time.monotonic()
		if delay > 0:
			time.sleep(delay)
		conns.append(socket.create_connection(("127.0.0.1", a.port)))
	print("ramp: %d connections in %.2f s" % (len(conns), time.monotonic() - start),
	      file=sys.stderr, flush=True)
	while time.monotonic() + a.every < end:
		time.sleep(a.every)
		conns.pop(0).close()
		conns.append(socket.create_connection(("127.0.0.1", a.port)))
	for c in conns:
		c.close()


def cmd_leak(a):
	req = b"GET / HTTP/1.1\r\nHost: scenario\r\n\r\n"
	conns = []
	start = time.monotonic()
	for _ in range(a.count):
		c = socket.create_connection(("127.0.0.1", a.port))
		c.sendall(req)
		if a.keepalive:  # the twin: the whole answer read, then closed
			got = b""
			while BODY not in got:
				d = c.recv(4096)
				if not d:
					break
				got += d
			c.close()
		else:
			conns.append(c)
	# the leak is whole once every answer waits unread in its socket (FIONREAD, no read)
	waiting = list(conns)
	while waiting and time.monotonic() < start + a.seconds:
		n = array.array("i", [0])
		waiting = [c for c in waiting if fcntl.ioctl(c, termios.FIONREAD, n) == 0 and
			   n[0] == 0]
		if waiting:
			time.sleep(0.01)
	with open(a.log, "a") as f:
		f.write("%d %.6f\n" % (os.getpid(), time.time()))
	print("leak: %d connections held, %d answered and unread, %d opened in %.2f s" %
	      (len(conns), len(conns) - len(waiting), a.count, time.monotonic() - start),
	      file=sys.stderr, flush=True)
	time.sleep(max(0.0, start + a.seconds - time.monotonic()))
	for c in conns:
		c.close()


def closewrite_conn(a, out, i):
	n = 0
	req = b"GET / HTTP/1.0\r\nHost: scenario\r\n\r\n"
	while n < a.count // a.children:
		s = socket.create_connection(("127.0.0.1", a.port))
		s.sendall(req)
		s.shutdown(socket.SHUT_WR)  # the request and the FIN, back to back
		got = b""
		while True:
			b = s.recv(65536)
			if not b:
				break
			got += b
		s.close()
		if not got.startswith(b"HTTP/1.1 200"):
			raise SystemExit("closewrite: unexpected reply %r" % got[:64])
		n += 1
	out[i] = n


def cmd_closewrite(a):
	"""HTTP/1.0 requests, each on its own connection, written with the FIN right after it
	(shutdown(SHUT_WR)), as pgbench -C writes its Terminate message and closes: the server
	reads the request and the close together."""
	done = threads(a.children, closewrite_conn, (a,), "closewrite: a thread made no request")
	print("closewrite: %d requests, a connection each" % sum(done))


def cmd_spin(a):
	end = time.monotonic() + a.seconds
	while time.monotonic() < end:
		pass


def read_int(path):
	with open(path) as f:
		return int(f.read().split()[0])


def cmd_enfile(a):
	fmax = "/proc/sys/fs/file-max"
	orig = read_int(fmax)
	nr = read_int("/proc/sys/fs/file-nr")
	low = nr + a.margin
	# Watchdog in its own session: restores file-max if we die without doing it ourselves.
	subprocess.Popen(["sh", "-c", "sleep %d; [ \"$(cat %s)\" = %d ] && echo %d > %s" %
			  (int(a.hold) + 10, fmax, low, orig, fmax)],
			 start_new_session=True, stdout=subprocess.DEVNULL,
			 stderr=subprocess.DEVNULL)
	child = None
	try:
		with open(fmax, "w") as f:
			f.write(str(low))
		ready("enfile file-max %d -> %d (file-nr %d)" % (orig, low, nr))
		rd, wr = os.pipe()
		child = os.fork()
		if child == 0:
			os.close(rd)
			import resource
			resource.setrlimit(resource.RLIMIT_NOFILE, (a.margin * 4, a.margin * 4))
			os.setgroups([])
			os.setgid(65534)
			os.setuid(65534)  # nobody: no CAP_SYS_ADMIN, so fs.file-max applies
			fds = []
			first = None
			deadline = time.monotonic() + 30
			while time.monotonic() < deadline:
				try:
					fds.append(os.open("/dev/null", os.O_RDONLY))
				except OSError as e:
					if e.errno != errno.ENFILE:
						os.write(wr, b"error %d\n" % e.errno)
						os._exit(1)
					first = time.time()
					break
			if first is None:
				os.write(wr, b"error no ENFILE\n")
				os._exit(1)
			for fd in fds[:a.release]:
				os.close(fd)
			os.write(wr, b"%.6f %d\n" % (first, len(fds)))
			time.sleep(a.hold)
			os._exit(0)
		os.close(wr)
		line = os.read(rd, 100).decode().strip()
		with open(a.log, "w") as f:
			f.write(line + "\n")
		os.waitpid(child, 0)
		child = None
	finally:
		if child:
			os.kill(child, signal.SIGKILL)
			os.waitpid(child, 0)
		with open(fmax, "w") as f:
			f.write(str(orig))


def main():
	signal.signal(signal.SIGTERM, on_term)
	p = argparse.ArgumentParser()
	sub = p.add_subparsers(dest="cmd", required=True)
	for name in ("http", "noclose", "slowaccept", "fork", "forkper", "respawn", "lingering",
		     "ramp", "spin", "enfile", "bindloop", "redispipe", "closewrite", "leak"):
		s = sub.add_parser(name)
		s.add_argument("--port", type=int, default=0)
		s.add_argument("--seconds", type=float, default=60)
		s.add_argument("--keepalive", action="store_true")
		s.add_argument("--backlog", type=int, default=1)
		s.add_argument("--every", type=float, default=0.2)
		s.add_argument("--children", type=int, default=20)
		s.add_argument("--gap", type=float, default=0.05)
		s.add_argument("--log", default="/dev/null")
		s.add_argument("--wait-file", default="")
		s.add_argument("--margin", type=int, default=3000)
		s.add_argument("--release", type=int, default=500)
		s.add_argument("--hold", type=float, default=2.5)
		s.add_argument("--depth", type=int, default=16)
		s.add_argument("--count", type=int, default=1 << 30)
		s.add_argument("--crash-every", type=int, default=0)
		s.add_argument("--ramp", type=float, default=2.0)
	a = p.parse_args()
	globals()["cmd_" + a.cmd](a)


if __name__ == "__main__":
	main()
