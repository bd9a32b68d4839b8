"""A scenario's sandbox: its network namespace(s), processes and temp dir, all undone by
close(); and the kernel's view read through /proc/PID/net (netns-aware through a pid inside)."""
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time

from common import BIN, PY, SERVERS, Fail, Skip, log

TCP_STATES = {"01": "ESTABLISHED", "02": "SYN_SENT", "03": "SYN_RECV", "04": "FIN_WAIT1",
	      "05": "FIN_WAIT2", "06": "TIME_WAIT", "07": "CLOSE", "08": "CLOSE_WAIT",
	      "09": "LAST_ACK", "0A": "LISTEN", "0B": "CLOSING"}


def autogroup_nice(pid, nice):
	"""With the scheduler's autogroups on, each session is a group of its own that shares the
	CPU with the others by the group's nice, not its tasks': a new session's process (spawn's)
	gets NICE there too, or its own nice would weigh nothing against other sessions."""
	try:
		with open("/proc/%d/autogroup" % pid, "w") as f:
			f.write(str(nice))
	except FileNotFoundError:  # a kernel without CONFIG_SCHED_AUTOGROUP
		pass


class Run:
	"""One scenario's processes, namespace and files; everything is undone by close()."""

	def __init__(self, sc):
		self.sc = sc
		self.tmp = tempfile.mkdtemp(prefix="ll-scen-%s-" % sc["name"])
		self.ns = "llscen%d_%d" % (os.getpid(), random.randrange(1 << 16))
		self.ns_made = False
		self.ns2_made = False
		self.procs = {}
		self.stop_first = {}  # name -> pid to stop before it (a tracee under strace)
		self.vars = {"tmp": self.tmp, "bin": BIN, "py": PY, "servers": SERVERS}
		self.events = {}  # name -> epoch
		self.onset_epoch = None
		self.onset_lo = None	# polled onsets: the last time the condition was absent
		self.onset_what = None
		self.polling = False

	# --- namespace and processes ---

	def netns_up(self, sysctls):
		if subprocess.run(["ip", "netns", "add", self.ns], capture_output=True).returncode:
			raise Skip("cannot create a network namespace (ip netns add)")
		self.ns_made = True
		subprocess.run(["ip", "-n", self.ns, "link", "set", "lo", "up"], check=True)
		for k, v in sysctls.items():
			r = subprocess.run(self.inns(["sysctl", "-qw", "%s=%s" % (k, v)]),
					   capture_output=True, text=True)
			if r.returncode:
				raise Fail("sysctl %s=%s in the namespace: %s" %
					   (k, v, r.stderr.strip()))

	def inns(self, argv):
		return ["ip", "netns", "exec", self.ns] + argv

	def fmt(self, x):
		if isinstance(x, str):
			return x.format(**self.vars)
		return [self.fmt(a) for a in x]

	def spawn(self, name, argv, cpu=None, env=None, outside=False, nice=0):
		argv = self.fmt(argv)
		if nice:  # nice execs in place: the pid is the program's
			argv = ["nice", "-n", str(nice)] + argv
		if cpu is not None and os.cpu_count() >= 2:
			argv = ["taskset", "-c", str(cpu)] + argv
		out = open(os.path.join(self.tmp, name + ".out"), "w")
		err = open(os.path.join(self.tmp, name + ".err"), "w")
		e = dict(os.environ)
		e.update(env or {})
		# ip netns exec, taskset and prlimit exec in place: the pid is the program's.
		if outside:  # in a second, empty namespace of its own
			if not self.ns2_made:
				subprocess.run(["ip", "netns", "add", self.ns + "o"], check=True)
				self.ns2_made = True
			argv = ["ip", "netns", "exec", self.ns + "o"] + argv
		else:
			argv = self.inns(argv)
		p = subprocess.Popen(argv, stdout=out, stderr=err, env=e,
				     start_new_session=True, cwd=self.tmp)
		self.procs[name] = p
		self.vars[name + "_pid"] = p.pid
		if nice:
			autogroup_nice(p.pid, nice)
		return p

	def text(self, name, ext="err"):
		try:
			with open(os.path.join(self.tmp, "%s.%s" % (name, ext))) as f:
				return f.read()
		except OSError:
			return ""

	def wait_until(self, name, ready, what, secs):
		"""Until ready() while process NAME runs, at most SECS; else Fail naming WHAT."""
		p = self.procs[name]
		end = time.monotonic() + secs
		while time.monotonic() < end:
			if ready():
				return
			if p.poll() is not None:
				break
			time.sleep(0.05)
		raise Fail("%s %s within %ds (exit %s):\n%s%s" %
			   (name, what, secs, p.poll(), self.text(name, "out")[-2000:],
			    self.text(name)[-2000:]))

	def wait_for(self, name, pattern, secs=20):
		self.wait_until(name, lambda: re.search(pattern, self.text(name) +
							self.text(name, "out")),
				"did not print /%s/" % pattern, secs)

	def wait_listen(self, name, port, secs=20):
		pid = self.procs[name].pid
		self.wait_until(name, lambda: any(s["lport"] == port and s["state"] == "LISTEN"
						  for s in tcp_sockets(pid)),
				"does not listen on %d" % port, secs)

	def send(self, name, sig):
		p = self.procs[name]
		if p.poll() is None:
			try:
				os.kill(p.pid, sig)
			except ProcessLookupError:
				pass

	def stop(self, name, sig=signal.SIGINT, secs=15):
		p = self.procs[name]
		self.send(name, sig)
		try:
			return p.wait(secs)
		except subprocess.TimeoutExpired:
			os.killpg(p.pid, signal.SIGKILL)
			p.wait()
			raise Fail("%s did not stop within %ds of %s" % (name, secs, sig.name))

	def close(self):
		self.polling = False
		for name, p in self.procs.items():
			if p.poll() is None:
				try:
					os.killpg(p.pid, signal.SIGTERM)
				except ProcessLookupError:
					pass
		for name, p in self.procs.items():
			try:
				p.wait(5)
			except subprocess.TimeoutExpired:
				os.killpg(p.pid, signal.SIGKILL)
				p.wait()
			try:  # children left in the group (forking servers)
				os.killpg(p.pid, signal.SIGKILL)
			except (ProcessLookupError, PermissionError):
				pass
		if self.ns_made:
			subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
		if self.ns2_made:
			subprocess.run(["ip", "netns", "del", self.ns + "o"], capture_output=True)
		if os.environ.get("LL_KEEP_TMP"):
			log("kept " + self.tmp)
		else:
			shutil.rmtree(self.tmp, ignore_errors=True)


# --- reading the kernel's view through /proc (netns-aware through a pid inside it) ---

def tcp_sockets(pid):
	out = []
	for f in ("tcp", "tcp6"):
		try:
			with open("/proc/%d/net/%s" % (pid, f)) as fh:
				next(fh)
				for line in fh:
					c = line.split()
					out.append({"lport": int(c[1].rsplit(":", 1)[1], 16),
						    "rport": int(c[2].rsplit(":", 1)[1], 16),
						    "state": TCP_STATES.get(c[3], c[3])})
		except (OSError, StopIteration):
			pass
	return out


def netstat(pid, key):
	try:
		with open("/proc/%d/net/netstat" % pid) as fh:
			lines = fh.read().split("\n")
	except OSError:
		return 0
	for i in range(0, len(lines) - 1, 2):
		names, vals = lines[i].split(), lines[i + 1].split()
		if names and names[0] == "TcpExt:" and key in names:
			return int(vals[names.index(key)])
	return 0


def nfds(pid):
	try:
		return len(os.listdir("/proc/%d/fd" % pid))
	except OSError:
		return -1


def loadlens_processes():
	"""'comm (pid)' of the loadlens programs running on the host, any namespace."""
	out = []
	for d in os.listdir("/proc"):
		if not d.isdigit():
			continue
		try:
			with open("/proc/%s/comm" % d) as f:
				comm = f.read().strip()
		except OSError:
			continue
		if comm.startswith("loadlens-"):
			out.append("%s (pid %s)" % (comm, d))
	return out


def children(pid):
	try:
		with open("/proc/%d/task/%d/children" % (pid, pid)) as f:
			return [int(x) for x in f.read().split()]
	except OSError:
		return []
