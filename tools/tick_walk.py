#!/usr/bin/env python3
"""Check that one tick of the observer walks its folders once, and reads only in sources/.

Runs loadlens-observer-walk (the observer built with -finstrument-functions and
tests/tools/tick_trace.c: observer/CMakeLists.txt) under strace with OBSERVER_ARGS, or reads a
saved strace log of it (strace -f -tt [-yy] -o LOG), and prints each tick's walk. In the main
thread the binary marks, with a failing write(-1, "walk enter|exit OFFSET"), each call made down
the chain of the observer's top-level files (main.c, obs_run.c...: their functions are passed in
LL_TICK_WALK_TOP): main's callees, the interval's (TICK, default interval()) and those of any
top-level helper between. Addresses are named, and placed in a folder, by nm and addr2line -f -i
on BINARY (a file under observer/features/ is in features/; a file outside observer/, as lib/'s,
in none).

A tick is the interval from its entry to its return, then, in the loop, the main loop's calls
that follow it until the loop waits again (a wait system call: rt_sigtimedwait, poll...; the call
that waits is not in the tick). The last tick, which no wait follows, ends at the interval's
return: the summaries after it are not a tick. A phase is a run of marked calls into one folder;
calls into the top-level files are walked through (their callees are the phases), and the system
calls made by top-level code itself are shown on their own line but are no phase.

Per tick it prints the phases in order, each with its functions and the main thread's system
calls made in it: the reads of the kernel's state (bpf by command; open/openat, read/pread64/readv,
getdents64 of /proc, /sys or a BPF object; recvmsg, recvfrom, sendmsg and sendto on netlink: a
dump and its request), then the others (write, ioctl, and a read of another file or socket: the
time zone, /dev/urandom, a pipe; strace -yy names them, and a call it does not name is a read).
Other threads (the HTTP/2 status reader, the --trace writer) and forked children do not count.
It checks, in each tick:
  (a) the phases' folders, in order, never come back to a folder already left (each folder is
      entered once);
  (b) no read from the start of the first phase that is not in sources/ to the end of the tick.

    tools/tick_walk.py --binary BIN [--log LOG] [--tick NAME] [--ticks N] [-v] -- OBSERVER_ARGS...
        run BIN OBSERVER_ARGS under strace (the log kept in LOG if given, the observer's output
        in LOG.out), then check
    tools/tick_walk.py --binary BIN --log LOG [--tick NAME] [--ticks N] [-v]
        check a saved log of BIN
    --ticks N: fewer than N ticks (default 1) is a failure; -v: each read's line too
    exit 0: every tick walks each folder once, reading in sources/ only; 1: each violation
    printed (or the observer failed); 64: usage
"""
import collections
import os
import re
import subprocess
import sys
import tempfile

# the kernel's state read: from the kernel (bpf), /proc and /sys, netlink (sock_diag)
READS = ("bpf", "open", "openat", "openat2", "read", "pread64", "readv", "preadv", "getdents64",
	 "recvmsg", "recvfrom", "sendmsg", "sendto")
# a wait: the main loop's, which ends a tick
WAITS = ("rt_sigtimedwait", "poll", "ppoll", "epoll_wait", "epoll_pwait", "epoll_pwait2",
	 "select", "pselect6", "nanosleep", "clock_nanosleep")
TRACED = READS + WAITS + ("ioctl", "write")
# the folder where the kernel's state may be read
READ_FOLDER = "sources"
# one line of strace: [PID] [TIME] REST, PID plain (-o) or as [pid N] (on stderr)
LINE = re.compile(r"(?:\[pid\s+(\d+)\]\s+|(\d+)\s+)?(?:(\d+:\d+:\d+(?:\.\d+)?)\s+)?(.*)$")
CALL = re.compile(r"(\w+)\((.*)$")
MARK = re.compile(r'-1(?:<[^>]*>)?, "walk (enter|exit) ([0-9a-f]+)"')
# the first argument's fd as strace -yy shows it: 7</proc/net/netstat>, 5<NETLINK:[...]>
FD = re.compile(r"-?\d+<(.*?)>(?:\(deleted\))?, ")
# the kernel's state, by the file or socket strace -yy names: /proc, /sys, BPF objects, netlink
STATE = re.compile(r"/proc/|/sys/|anon_inode:bpf|NETLINK")
# open's and openat's path (openat's directory fd, if any, first)
OPEN = re.compile(r'(?:(?:AT_FDCWD|-?\d+)(?:<(.*?)>)?, )?"([^"]*)"')
USAGE = ("usage: tools/tick_walk.py --binary BIN [--log LOG] [--tick NAME] [--ticks N] [-v] "
	 "[-- OBSERVER_ARGS...]")

Event = collections.namedtuple("Event", "pid time mark off call args")


def parse(lines):
	"""The events of an strace log, in order: marks (mark "enter" or "exit", off) and system
	calls (call, args). A call split by another thread's is taken at its start; a resumed
	half, a signal and an exit are left out."""
	events = []
	for line in lines:
		m = LINE.match(line.rstrip("\n"))
		pid, time, c = m.group(1) or m.group(2), m.group(3), CALL.match(m.group(4))
		if not c:
			continue
		mk = MARK.match(c.group(2)) if c.group(1) == "write" else None
		if mk:
			off = int(mk.group(2), 16)
			events.append(Event(pid, time, mk.group(1), off, None, None))
		else:
			events.append(Event(pid, time, None, None, c.group(1), c.group(2)))
	return events


def read_kind(call, args):
	"""What a system call reads of the kernel's state ("bpf(MAP_LOOKUP_ELEM)", "openat"...),
	or None. Known by strace -yy's names: a file under /proc or /sys, a BPF object, a netlink
	socket (sendmsg and sendto only there: a dump's request) is the kernel's state; another
	(the time zone, /dev/urandom, a pipe, a UNIX, TCP or UDP socket) is not. A call strace did
	not name the file of is a read."""
	if call == "bpf":
		m = re.match(r"BPF_(\w+)", args)
		return "bpf(%s)" % (m.group(1) if m else "?")
	if call not in READS:
		return None
	if call.startswith("open"):
		m = OPEN.match(args)
		if not m:
			return call
		path = m.group(2)
		if not path.startswith("/"):
			path = (m.group(1) or "") + "/" + path
		return call if STATE.match(path) else None
	fd = FD.match(args)
	return call if not fd or STATE.match(fd.group(1)) else None


def folder_of(path):
	"""The observer's folder of a source file: a file under observer/features/ is in
	"features", a top-level file (observer/main.c) in "."; a file outside observer/ in None."""
	path = "/" + path
	if "/observer/" not in path:
		return None
	rel = path.rsplit("/observer/", 1)[1]
	return rel.split("/", 1)[0] if "/" in rel else "."


class Symbols:
	"""Function offsets (from __executable_start) to their names and source files."""

	def __init__(self, funcs):
		"""funcs: {offset: (name, source file)}"""
		self.funcs = funcs
		seen = collections.Counter(name for name, _ in funcs.values())
		# a name that several files define (the features' tick) is shown with its file's
		self.shown = {}
		for off, (name, path) in funcs.items():
			self.shown[off] = name
			if seen[name] > 1:
				self.shown[off] = "%s:%s" % (os.path.basename(path), name)

	def name(self, off):
		return self.funcs.get(off, ("?%x" % off, "??"))[0]

	def shown_name(self, off):
		return self.shown.get(off, "?%x" % off)

	def folder(self, off):
		return folder_of(self.funcs.get(off, ("", "??"))[1])

	def top(self):
		return sorted(off for off in self.funcs if self.folder(off) == ".")

	@classmethod
	def of_binary(cls, binary):
		"""nm for the functions, addr2line -f -i for each one's name and file: the
		outermost of an inline chain at its address, the function itself."""
		out = subprocess.run(["nm", "--defined-only", binary], check=True,
				     stdout=subprocess.PIPE, universal_newlines=True).stdout
		base, addrs = 0, {}
		for line in out.splitlines():
			f = line.split()
			if len(f) != 3:
				continue
			if f[2] == "__executable_start":
				base = int(f[0], 16)
			elif f[1] in "tTwW":
				addrs.setdefault(int(f[0], 16), f[2].split(".")[0])
		out = subprocess.run(["addr2line", "-a", "-f", "-i", "-e", binary], check=True,
				     input="".join("%x\n" % a for a in sorted(addrs)),
				     stdout=subprocess.PIPE, universal_newlines=True).stdout
		funcs, addr, pair = {}, None, []
		for line in out.splitlines():
			if line.startswith("0x"):
				addr, pair = int(line, 16), []
				continue
			pair.append(line)
			if len(pair) == 2:
				name = pair[0] if pair[0] != "??" else addrs[addr]
				funcs[addr - base] = (name, re.sub(r":[\d?]+.*$", "", pair[1]))
				pair = []
		return cls(funcs)


class Segment:
	"""A stretch of a tick in one marked call: folder its folder ("." for the top-level
	files' own code, None outside the observer), names the functions, and the main thread's
	system calls in it: reads of the kernel's state and others, by kind."""

	def __init__(self, folder, names, time):
		self.folder, self.names, self.time = folder, list(names), time
		self.reads, self.others = collections.Counter(), collections.Counter()
		self.lines = []

	def add(self, other):
		self.names += [n for n in other.names if n not in self.names]
		self.reads.update(other.reads)
		self.others.update(other.others)
		self.lines += other.lines


class Tick:
	"""One tick: n from 1, time of its start, segs its segments in order."""

	def __init__(self, n, time):
		self.n, self.time, self.segs, self.body_end = n, time, [], 0

	def phases(self):
		"""The segments, those of one folder in a row merged; a top-level or outside one
		only if it made a system call."""
		out = []
		for s in self.segs:
			if s.folder in (".", None) and not (s.reads or s.others):
				continue
			if not out or out[-1].folder != s.folder:
				out.append(Segment(s.folder, [], s.time))
			out[-1].add(s)
		return out


def walk(events, syms, tick="interval"):
	"""The ticks of the main thread (the first event's) in events."""
	main = events[0].pid if events else None
	ticks, stack = [], []
	cur = None
	# cur's function's depth in stack; whether it returned; where the loop's call began
	level, after, loop_start = 0, False, 0

	def segment(off, time):
		cur.segs.append(Segment(syms.folder(off), [syms.shown_name(off)], time))

	def close(keep):
		del cur.segs[keep:]
		ticks.append(cur)

	for ev in events:
		if ev.pid != main:
			continue
		if ev.mark == "enter":
			if syms.name(ev.off) == tick and syms.folder(ev.off) == ".":
				if cur:
					close(len(cur.segs))
				cur, level, after = Tick(len(ticks) + 1, ev.time), len(stack), False
			stack.append(ev.off)
			if cur:
				if after and len(stack) == level + 1:
					loop_start = len(cur.segs)
				segment(ev.off, ev.time)
		elif ev.mark == "exit":
			if ev.off in stack:
				del stack[len(stack) - 1 - stack[::-1].index(ev.off):]
			if not cur:
				continue
			if len(stack) == level and syms.name(ev.off) == tick:
				after, cur.body_end = True, len(cur.segs)
			if stack:
				segment(stack[-1], ev.time)
		elif cur and after and ev.call in WAITS:
			# the loop waits: the call it waits in is not in the tick
			close(loop_start if len(stack) > level else len(cur.segs) - 1)
			cur = None
		elif cur and cur.segs and ev.call not in WAITS:
			seg, kind = cur.segs[-1], read_kind(ev.call, ev.args)
			if kind:
				seg.reads[kind] += 1
				seg.lines.append("%s %s(%s" % (ev.time, ev.call, ev.args))
			else:
				seg.others[ev.call] += 1
	if cur:
		# the last tick: no wait follows, so what follows its return (the summaries) is
		# not in it
		close(cur.body_end if after else len(cur.segs))
	return ticks


def counts(c):
	return ", ".join("%s %d" % kv for kv in sorted(c.items(), key=lambda kv: (-kv[1], kv[0])))


def label(folder):
	return {None: "(other)", ".": "(top)"}.get(folder, folder + "/")


def check(ticks, min_ticks=1):
	"""Each violation, as a line."""
	bad = []
	if len(ticks) < min_ticks:
		bad.append("%d ticks found, %d expected: is the binary loadlens-observer-walk, "
			   "and did it run its interval?" % (len(ticks), min_ticks))
	for t in ticks:
		ph = t.phases()
		order = [p.folder for p in ph if p.folder not in (".", None)]
		order = [f for i, f in enumerate(order) if i == 0 or order[i - 1] != f]
		if not order:
			bad.append("tick %d: no phase: no call into a folder was marked" % t.n)
		for f in sorted(set(order), key=order.index):
			if order.count(f) > 1:
				bad.append("tick %d: %s/ entered %d times: %s" %
					   (t.n, f, order.count(f), " > ".join(order)))
		started = False
		for p in ph:
			started = started or p.folder not in (".", None, READ_FOLDER)
			if started and p.reads:
				bad.append("tick %d: reads after the read phase, in %s (%s): %s" % (
					t.n, label(p.folder), ", ".join(p.names), counts(p.reads)))
	return bad


def show(ticks, verbose=False, out=sys.stdout):
	for t in ticks:
		print("tick %d (%s)" % (t.n, t.time), file=out)
		for i, p in enumerate(t.phases(), 1):
			print("  %2d %-10s %s" % (i, label(p.folder), " ".join(p.names)), file=out)
			said = []
			if p.reads:
				said.append("reads: " + counts(p.reads))
			if p.others:
				said.append("others: " + counts(p.others))
			if said:
				print("     %-10s %s" % ("", "; ".join(said)), file=out)
			for line in p.lines if verbose else []:
				print("     %-10s   %s" % ("", line), file=out)


def run(binary, log, args, syms):
	"""BIN ARGS under strace, its log in log and its output in log.out; the exit status."""
	env = dict(os.environ, LL_TICK_WALK_TOP=",".join("%x" % o for o in syms.top()))
	cmd = ["strace", "-f", "-tt", "-yy", "-o", log,
	       "-e", "trace=" + ",".join("?" + s for s in TRACED), "--", binary] + args
	with open(log + ".out", "w") as out:
		rc = subprocess.call(cmd, env=env, stdout=out, stderr=subprocess.STDOUT)
	if rc:
		with open(log + ".out") as f:
			sys.stdout.write("".join(f.readlines()[-20:]))
		print("tick_walk: %s exited %d under strace" % (binary, rc))
	return rc


def options(args):
	"""{option: value} and the observer's arguments (None: read a log), or None if unusable."""
	opts, obs = {"--tick": "interval", "--ticks": "1"}, None
	while args:
		if args[0] == "--":
			obs, args = args[1:], []
		elif args[0] == "-v":
			opts["-v"], args = True, args[1:]
		elif args[0] in ("--binary", "--log", "--tick", "--ticks") and len(args) > 1:
			opts[args[0]], args = args[1], args[2:]
		else:
			return None, None
	binary, log = opts.get("--binary"), opts.get("--log")
	if not binary or not os.path.isfile(binary) or not opts["--ticks"].isdigit() or \
	   (obs is None and not (log and os.path.isfile(log))):
		return None, None
	return opts, obs


def main(argv):
	opts, obs = options(argv[1:])
	if not opts:
		print(USAGE, file=sys.stderr)
		return 64
	binary, log, tick = opts["--binary"], opts.get("--log"), opts["--tick"]
	try:
		syms = Symbols.of_binary(binary)
	except (OSError, subprocess.CalledProcessError) as e:
		print("tick_walk: cannot read %s's symbols with nm and addr2line: %s" % (binary, e))
		return 1
	if not any(syms.name(o) == tick for o in syms.top()):
		print("tick_walk: no function %s in %s's top-level files" % (tick, binary))
		return 1
	with tempfile.TemporaryDirectory(prefix="tick_walk.") as tmp:
		if obs is not None:
			log = log or os.path.join(tmp, "strace.log")
			try:
				if run(binary, log, obs, syms):
					return 1
			except OSError as e:
				print("tick_walk: cannot run strace: %s" % e)
				return 1
		with open(log, errors="replace") as f:
			ticks = walk(parse(f), syms, tick)
	show(ticks, "-v" in opts)
	bad = check(ticks, int(opts["--ticks"]))
	for line in bad:
		print(line)
	said = "each folder entered once, reads in %s/ only" % READ_FOLDER
	print("tick_walk: %d ticks, %s" % (len(ticks), "%d violations" % len(bad) if bad else said))
	return 1 if bad else 0


if __name__ == "__main__":
	sys.exit(main(sys.argv))
