# SPDX-License-Identifier: MIT
"""Starting and stopping the binaries: observer (root), driver (never root), refserver."""

import json
import os
import pwd
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from . import files
from .shown import escaped, shown

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class RunError(RuntimeError):
	"""A child failed; the message says which and why."""


def bindir():
	b = os.environ.get("LOADLENS_BIN")
	if b:
		return b
	return os.path.join(os.environ.get("LOADLENS_BUILD", os.path.join(ROOT, "build")), "bin")


def binary(name):
	path = os.path.join(bindir(), name)
	if not os.access(path, os.X_OK):
		raise RunError(f"{path} is not built (run: tools/loadlens setup)")
	return path


def driver_identity():
	"""(uid, gid, name) the driver runs as: the caller when not root; as root, the user who ran
	sudo (SUDO_UID/SUDO_GID), else nobody. None when no change is needed (not root)."""
	if os.geteuid() != 0:
		return None
	uid = os.environ.get("SUDO_UID")
	if uid and uid.isdigit() and int(uid) != 0:
		gid = os.environ.get("SUDO_GID", "")
		try:
			name = pwd.getpwuid(int(uid)).pw_name
		except KeyError:
			name = f"uid {uid}"
		return int(uid), int(gid) if gid.isdigit() else int(uid), name
	try:
		pw = pwd.getpwnam("nobody")
		return pw.pw_uid, pw.pw_gid, "nobody"
	except KeyError:
		return 65534, 65534, "nobody"


def driver_dir(ident):
	"""Where the driver (running as ident) writes: with no change of user, None (the output
	directory itself); else a new directory under the temporary directory, owned by ident, which
	the driver can reach whatever the output directory's ancestors allow. Its files are moved
	into the output directory after each run (collect())."""
	if not ident:
		return None
	# in /tmp, not $TMPDIR: a private TMPDIR (a user's own) may be closed to the driver's user
	d = tempfile.mkdtemp(prefix="loadlens-driver-", dir="/tmp" if os.path.isdir("/tmp") else None)
	os.chmod(d, 0o755)
	# a copy of the binary the user can run even where the build tree is closed to it (a
	# checkout under /root); the driver links only system libraries
	shutil.copy2(binary("loadlens-driver"), os.path.join(d, "loadlens-driver"))
	os.chmod(os.path.join(d, "loadlens-driver"), 0o755)
	os.chown(d, ident[0], ident[1])
	return d


def remove_driver_dir(d):
	if d:
		shutil.rmtree(d, ignore_errors=True)


def collect(src_dir, names, dst_dir):
	"""Move the driver's files from its own directory (another user's) into the output
	directory: read as regular files only, never through a link, written anew (files.py)."""
	files.ensure_dir(dst_dir, "output directory")
	for n in names:
		src = os.path.join(src_dir, n)
		if os.path.lexists(src):
			try:
				files.copy_in(src, os.path.join(dst_dir, n), "the driver's file")
			except files.FileError as e:
				raise RunError(str(e)) from None
			os.unlink(src)


class PlanRefused(ValueError):
	"""The driver refused the command line, or cannot be asked: a usage error (exit 64)."""


def driver_plan(args):
	"""What loadlens-driver makes of ARGS (its options and target), from the driver itself:
	its --print-plan JSON (docs/driver.md, "The plan"). Nothing runs and nothing is sent."""
	try:
		exe = binary("loadlens-driver")
	except RunError as e:
		raise PlanRefused(f"cannot ask the driver what its options mean: {e}") from None
	try:
		r = subprocess.run([exe, "--print-plan", *args], capture_output=True, timeout=30,
				   encoding="utf-8", errors="replace", stdin=subprocess.DEVNULL)
	except (OSError, subprocess.TimeoutExpired) as e:
		raise RunError(f"{shown(exe)} --print-plan: {e}") from None
	said = (r.stderr.strip().splitlines() or ["(nothing on stderr)"])[-1]
	if r.returncode == 64:
		raise PlanRefused(said)
	try:
		plan = json.loads(r.stdout) if r.returncode == 0 else None
	except json.JSONDecodeError:
		plan = None
	if not isinstance(plan, dict) or plan.get("kind") != "plan":
		raise RunError(f"{shown(exe)} --print-plan exited {r.returncode} without a plan: {said}")
	return plan


def run_driver(args, out_json, log_path, ident, timeout, exe=None):
	"""Run loadlens-driver ARGS --json OUT_JSON as ident, stdout+stderr to log_path. Returns the
	exit code; raises RunError if it did not finish within timeout seconds."""
	cmd = [exe or binary("loadlens-driver")] + list(args) + ["-q", "--json", out_json]
	kw = {}
	if ident:
		kw = {"user": ident[0], "group": ident[1], "extra_groups": []}
	with files.create(log_path, "driver log") as log:
		try:
			p = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT,
					     stdin=subprocess.DEVNULL, **kw)
		except OSError as e:
			raise RunError(f"cannot start the driver {shown(cmd[0])}: {e.strerror}") from None
		try:
			return p.wait(timeout=timeout)
		except subprocess.TimeoutExpired:
			p.send_signal(signal.SIGINT)
			try:
				p.wait(timeout=10)
			except subprocess.TimeoutExpired:
				p.kill()
				p.wait()
			raise RunError(f"the driver ran past {timeout:.0f} s and was stopped: "
				       f"{' '.join(cmd)}") from None


class Background:
	"""A child in the background, stdout/stderr to files; stopped with SIGINT (then SIGKILL)."""

	def __init__(self, name, cmd, outdir):
		self.name = name
		self.cmd = cmd
		self.out = os.path.join(outdir, f"{name}.out")
		self.err = os.path.join(outdir, f"{name}.err")
		with files.create(self.out, f"{name} output") as o, \
				files.create(self.err, f"{name} log") as e:
			self.p = subprocess.Popen(cmd, stdout=o, stderr=e, stdin=subprocess.DEVNULL)

	def wait_for(self, pattern, seconds):
		deadline = time.monotonic() + seconds
		while time.monotonic() < deadline:
			try:
				with open(self.err, encoding="utf-8", errors="replace") as f:
					if pattern in f.read():
						return
			except OSError:
				pass
			if self.p.poll() is not None:
				break
			time.sleep(0.05)
		raise RunError(f"{self.name} did not print '{pattern}' "
			       f"(exit {self.p.poll()}): {self.tail()}")

	def tail(self):
		try:
			with open(self.err, encoding="utf-8", errors="replace") as f:
				lines = f.read().strip().splitlines()
			return " | ".join(lines[-3:]) or "(no output)"
		except OSError:
			return "(no output)"

	def stop(self, sig=signal.SIGINT, timeout=20):
		if self.p.poll() is None:
			self.p.send_signal(sig)
			try:
				self.p.wait(timeout=timeout)
			except subprocess.TimeoutExpired:
				self.p.kill()
				self.p.wait()
		return self.p.returncode


def start_observer(ports, outdir, name, runq=True, extra=()):
	"""loadlens-observer on the ports with --json NAME.json and --ndjson NAME.ndjson, attached."""
	if os.geteuid() != 0:
		raise RunError("starting the observer needs root (sudo); or run it on the server host "
			       "and pass its summary with --observer-json")
	cmd = [binary("loadlens-observer"), "--interval", "1s",
	       "--json", os.path.join(outdir, f"{name}.json"),
	       "--ndjson", os.path.join(outdir, f"{name}.ndjson")]
	for p in ports:
		cmd += ["--port", str(p)]
	if runq:
		cmd.append("--runq")
	cmd += list(extra)
	b = Background(name, cmd, outdir)
	try:
		b.wait_for("observing", 60)
	except RunError:
		b.stop(signal.SIGKILL, 5)  # never left running behind a failed start
		raise
	return b


def start_refserver(listen, outdir, name, args):
	cmd = [binary("loadlens-refserver"), "--listen", listen,
	       "--json", os.path.join(outdir, f"{name}.json")] + list(args)
	b = Background(name, cmd, outdir)
	try:
		b.wait_for("listening", 20)
	except RunError:
		b.stop(signal.SIGKILL, 5)
		raise
	return b


def cpu_times():
	"""(busy, total) jiffies of all CPUs from /proc/stat."""
	with open("/proc/stat", encoding="ascii") as f:
		v = [int(x) for x in f.readline().split()[1:]]
	idle = v[3] + (v[4] if len(v) > 4 else 0)
	return sum(v) - idle, sum(v)


def say(msg):
	"""A progress line on stderr; control characters escaped (values in it cut by the caller)."""
	print(f"loadlens: {escaped(msg)}", file=sys.stderr, flush=True)
