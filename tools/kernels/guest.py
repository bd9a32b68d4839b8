#!/usr/bin/python3
"""Boot Debian's own kernels under qemu on this machine's root filesystem, and run commands there.

    guest.py fetch KERNEL...               download and prepare each kernel (cached)
    guest.py run [OPTIONS] KERNEL -- CMD...  boot KERNEL, run CMD as root, print its output,
                                           exit with its exit code (125: none came back)
    guest.py test [OPTIONS] KERNEL...      fetch, then tests/kernels/suite.py in one boot per
                                           kernel, each kernel's share of the checks (the
                                           ctest test kernels: 6.1 6.12)

KERNEL is a series, 6.1 (the kernel linux-image-amd64 depends on: Debian 12's stock one) or
6.12 (the one linux-image-6.12-amd64 depends on, from bookworm-security), or an exact package
version such as 6.1.0-56-amd64; arm64:6.1, arm64:6.12 or 6.1.0-56-arm64 boot Debian's arm64
kernels under qemu-system-aarch64, ppc64el:6.1 or 6.1.0-50-powerpc64le its ppc64el kernel under
qemu-system-ppc64, each on a root filesystem of its architecture (foreign.py; the build:
tools/loadlens cross arm64|ppc64el). Nothing is installed: `apt-get download` fetches the package,
`dpkg -x` unpacks it under the cache (LOADLENS_KERNEL_CACHE, default /var/cache/loadlens/kernels),
and an initramfs is built there from busybox-static and the kernel's own 9p, virtio and overlay
modules. The guest's root is the host's `/`, shared read-only over 9p under a tmpfs overlay, so
the same build and packages run inside and its writes never reach the host, except in the
exchange directory (--xdir), shared read-write at the same path. Accelerator: KVM where kvm_intel
or kvm_amd is loaded, else TCG (this machine's kvm_pvm runs only kernels built for it).
TCG runs both vCPUs in one host thread (LOADLENS_TCG_THREAD=single; multi: a thread each, which
races with the kernel's code patching: docs/kernels.md).
Exit codes: the command's; 64 usage; 77 a prerequisite is missing (no qemu, no network to
download the kernel), with the reason printed; 125 the guest never reported an exit code.
"""
import argparse
import ctypes
import fcntl
import glob
import os
import re
import resource
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import foreign  # noqa: E402
import initramfs  # noqa: E402
import matrix  # noqa: E402
from initramfs import Skip  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "../.."))
CACHE = os.environ.get("LOADLENS_KERNEL_CACHE", "/var/cache/loadlens/kernels")
# a kernel series -> the Debian metapackage whose dependency names the exact kernel package
SERIES = {"6.1": "linux-image-amd64", "6.12": "linux-image-6.12-amd64",
	  "5.10": "linux-image-amd64"}
# series from an older Debian release than the host's: apt reads that release's sources through
# a private configuration under the cache (apt_env), never the host's sources or lists
OLD_RELEASES = {"5.10": "bullseye"}
MIRRORS = (("http://deb.debian.org/debian", "%s main"),
	   ("http://deb.debian.org/debian-security", "%s-security main"))
# what the initramfs loads to mount the host's root: 9p over virtio-pci, under an overlay
# environment variables handed into the guest command besides PATH (prefixes)
PASS_ENV = ("LOADLENS_", "LL_", "CI")


def host_loop_s():
	"""The host's time for tests/kernels/suite.py's CPU loop (the best of 3): the guest's
	against it is the emulated CPU's slowdown."""
	best = None
	for _ in range(3):
		t = time.monotonic()
		n = 0
		for i in range(2000000):
			n += i & 7
		d = time.monotonic() - t
		best = d if best is None or d < best else best
	return best
NO_RC = 125


def say(msg):
	print("guest: " + msg, file=sys.stderr, flush=True)


def sh(cmd, **kw):
	"""Run a host command, capture its output; CalledProcessError carries it."""
	return subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
			      text=True, **kw).stdout


def last_line(text):
	lines = [l for l in (text or "").splitlines() if l.strip() and
		 "unsandboxed" not in l]
	return lines[-1].strip() if lines else "(no output)"


# --- which kernel ---

def apt_env(kernel):
	"""The environment apt runs in for KERNEL: the host's, or for a series of an older Debian
	release (OLD_RELEASES) or another architecture (foreign.py) a private APT_CONFIG with that
	release's sources, lists and cache under CACHE/apt-RELEASE[-ARCH] (its lists fetched once)."""
	rel = OLD_RELEASES.get(series(kernel))
	arch = foreign.of(kernel)
	if not rel and not arch:
		return None
	rel = rel or "bookworm"
	d = os.path.join(CACHE, "apt-" + rel + ("-" + arch.name if arch else ""))
	conf = os.path.join(d, "apt.conf")
	for sub in ("lists/partial", "cache/archives/partial", "sources.list.d"):
		os.makedirs(os.path.join(d, sub), exist_ok=True)
	with open(os.path.join(d, "sources.list"), "w") as f:
		for uri, suite in MIRRORS:
			f.write("deb %s %s\n" % (uri, suite % rel))
	with open(conf, "w") as f:
		f.write('Dir::Etc::SourceList "%s/sources.list";\n'
			'Dir::Etc::SourceParts "%s/sources.list.d";\n'
			'Dir::State::Lists "%s/lists";\n'
			'Dir::Cache "%s/cache";\n' % (d, d, d, d))
		f.write(arch.apt_config() if arch else "")
	env = dict(os.environ, APT_CONFIG=conf)
	if not glob.glob(os.path.join(d, "lists", "*_Packages*")):
		say("fetching %s's %spackage lists into %s (a private APT_CONFIG)" % (
			rel, arch.name + " " if arch else "", d))
		apt_update(env, "%s's package lists" % rel)
	return env


def apt_update(env, what):
	"""apt-get update; where some of the sources' lists failed (a mirror whose index does not
	match its Release file: this machine's bookworm-security ppc64el, foreign.py) and others
	came, goes on with those, saying which failed. Raises Skip where none came."""
	try:
		sh(["apt-get", "update", "-qq"], env=env, timeout=600)
		return
	except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
		out = getattr(e, "output", "") or ""
	lists = os.path.join(os.path.dirname(env["APT_CONFIG"]), "lists") if env else None
	if lists and glob.glob(os.path.join(lists, "*_Packages*")):
		failed = [l.strip() for l in out.splitlines() if l.startswith(("E: Failed", "Err"))]
		say("apt-get update: %s; going on with the lists that came" % (
			failed[0] if failed else last_line(out)))
		return
	raise Skip("cannot read %s: %s" % (what, last_line(out)))


def resolve(kernel):
	"""The exact kernel version (e.g. 6.1.0-56-amd64) for a series or a version."""
	fa = foreign.of(kernel)
	arch = fa.flavour if fa else "amd64"
	table = fa.series if fa else SERIES
	name = fa.series_of(kernel) if fa else kernel
	if name not in table:
		flavours = "|".join(["amd64"] + [a.flavour for a in foreign.ARCHES])
		if not re.fullmatch(r"\d+\.\d+[\w.+~-]*-(%s)" % flavours, name):
			raise ValueError("unknown kernel '%s': %s, %s or a version such as "
					 "6.1.0-56-amd64" % (kernel, ", ".join(SERIES), ", ".join(
						 a.prefix + k for a in foreign.ARCHES
						 for k in a.series)))
		return name
	meta = table[name]
	env = apt_env(kernel)
	for attempt in (1, 2):
		out = subprocess.run(["apt-cache", "depends", meta], stdout=subprocess.PIPE,
				     stderr=subprocess.DEVNULL, text=True, env=env).stdout
		m = re.search(r"Depends: linux-image-(%s[\w.+~-]*-%s)$" % (re.escape(name), arch),
			      out, re.M)
		if m:
			return m.group(1)
		if attempt == 1:  # the package lists may be missing or stale: refresh once
			say("apt knows no %s; running apt-get update" % meta)
			apt_update(env, "the package lists for the %s kernel (%s is unknown to "
				   "apt)" % (kernel, meta))
	raise Skip("cannot resolve the %s kernel: apt knows no %s with a dependency on "
		   "linux-image-%s* (is bookworm%s in the apt sources?)" %
		   (kernel, meta, name, "-security" if name == "6.12" else ""))


def kernel_dir(kver):
	return os.path.join(CACHE, kver)


def vmlinuz(kver):
	"""The kernel image: boot/vmlinuz-KVER, ppc64el's boot/vmlinux-KVER (an ELF)."""
	fa = foreign.of(kver)
	return os.path.join(kernel_dir(kver), "root/boot/%s-%s" % (fa.image if fa else "vmlinuz",
								  kver))


def modules_dir(kver):
	return os.path.join(kernel_dir(kver), "root/lib/modules", kver)


def initrd(kver):
	return os.path.join(kernel_dir(kver), "initrd.img")


# --- fetch: apt-get download, dpkg -x, depmod, initramfs ---

def busybox(kver):
	"""The static busybox of the initramfs: the host's, or the foreign root filesystem's."""
	fa = foreign.of(kver)
	return os.path.join(fa.sysroot(), "bin/busybox") if fa else "/bin/busybox"


def require_tools(kver):
	for tool, pkg in (("apt-get", "apt"), ("dpkg", "dpkg"), ("depmod", "kmod"),
			  ("modprobe", "kmod")):
		if not shutil.which(tool) and not shutil.which(tool, path="/usr/sbin:/sbin"):
			raise Skip("%s is not installed (Debian package %s)" % (tool, pkg))
	bb = busybox(kver)
	if not os.path.exists(bb) or not static_elf(bb):
		raise Skip("the initramfs needs a static %s: apt-get install busybox-static "
			   "(tools/loadlens setup installs it)" % bb)


def static_elf(path):
	"""True if PATH is an ELF executable without a program interpreter (statically linked)."""
	with open(path, "rb") as f:
		head = f.read(64)
		if head[:4] != b"\x7fELF" or head[4] != 2:
			return False
		phoff, = struct.unpack_from("<Q", head, 32)
		phentsize, phnum = struct.unpack_from("<HH", head, 54)
		f.seek(phoff)
		ph = f.read(phentsize * phnum)
	return all(struct.unpack_from("<I", ph, i * phentsize)[0] != 3  # PT_INTERP
		   for i in range(phnum))


def fetch(kernel):
	"""Download and prepare KERNEL once; returns its exact version. Raises Skip."""
	kver = resolve(kernel)
	require_tools(kver)
	kdir = kernel_dir(kver)
	stamp = os.path.join(kdir, "ready")
	if os.path.exists(stamp) and os.path.exists(vmlinuz(kver)) and \
			os.path.exists(initrd(kver)):
		return kver
	os.makedirs(kdir, exist_ok=True)
	with open(os.path.join(kdir, ".lock"), "w") as lock:
		fcntl.flock(lock, fcntl.LOCK_EX)  # a second fetch of the same kernel waits
		if os.path.exists(stamp):
			return kver
		t = time.monotonic()
		dl = os.path.join(kdir, "dl")
		shutil.rmtree(dl, ignore_errors=True)
		os.makedirs(dl)
		pkg = "linux-image-" + kver
		say("downloading %s (apt-get download) into %s" % (pkg, kdir))
		try:
			sh(["apt-get", "download", "-q", pkg], cwd=dl, env=apt_env(kver),
			   timeout=900)
		except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
			raise Skip("cannot download %s: %s" % (pkg, last_line(getattr(e, "output",
										  ""))))
		debs = glob.glob(os.path.join(dl, pkg + "_*.deb"))
		if len(debs) != 1:
			raise Skip("apt-get download %s left %d packages in %s" % (pkg, len(debs), dl))
		root = os.path.join(kdir, "root")
		shutil.rmtree(root, ignore_errors=True)
		sh(["dpkg", "-x", debs[0], root])
		if not os.path.exists(vmlinuz(kver)) or not os.path.isdir(modules_dir(kver)):
			raise RuntimeError("%s has no %s or lib/modules/%s" %
					   (os.path.basename(debs[0]), vmlinuz(kver), kver))
		sh(["depmod", "-b", root, kver])
		build_initramfs(kver)
		shutil.rmtree(dl)
		with open(stamp, "w") as f:
			f.write(kver + "\n")
		say("%s ready in %.0f s (%s)" % (kver, time.monotonic() - t, kdir))
	prune(kver)
	return kver


def prune(kver):
	"""Remove older cached kernels of the same series (a Debian update replaced them)."""
	for d in glob.glob(os.path.join(CACHE, "*")):
		name = os.path.basename(d)
		if name != kver and series(name) == series(kver) and \
				name.rsplit("-", 1)[-1] == kver.rsplit("-", 1)[-1] and \
				os.path.exists(os.path.join(d, "ready")):
			say("removing %s (replaced by %s)" % (d, kver))
			shutil.rmtree(d, ignore_errors=True)


def series(kver):
	m = re.match(r"\d+\.\d+(?=\.)", kver)
	return m.group() if m else kver


def build_initramfs(kver):
	names = initramfs.build(os.path.join(kernel_dir(kver), "root"), kver,
				os.path.join(HERE, "init.sh"), initrd(kver), busybox(kver))
	say("initramfs %s: busybox and %s" % (initrd(kver), " ".join(names)))


# --- boot and run ---

def accelerator(choice, kver):
	if foreign.of(kver):  # another architecture: emulated whatever the host has
		if choice == "kvm":
			raise ValueError("%s runs under TCG only on this host" % kver)
		return "tcg"
	if choice:
		return choice
	hw = os.path.isdir("/sys/module/kvm_intel") or os.path.isdir("/sys/module/kvm_amd")
	return "kvm" if hw and os.access("/dev/kvm", os.R_OK | os.W_OK) else "tcg"


def guest_script(command, cwd, env):
	"""The shell script stage2.sh runs: the caller's directory, PATH, fd limits and env."""
	soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
	lines = ["ulimit -Hn %d 2>/dev/null; ulimit -Sn %d 2>/dev/null" % (hard, soft),
		 "export PATH=%s" % shlex.quote(os.environ.get("PATH", "/usr/bin:/bin"))]
	for k, v in sorted(env.items()):
		lines.append("export %s=%s" % (k, shlex.quote(v)))
	lines.append("cd %s || exit %d" % (shlex.quote(cwd), NO_RC))
	lines.append(" ".join(shlex.quote(a) for a in command) if len(command) > 1 else command[0])
	return "\n".join(lines) + "\n"


def console_excerpt(console):
	"""The kernel's own account of a crash (the Oops/BUG/panic lines and the call trace's
	head), else the console's last lines."""
	with open(console, errors="replace") as f:
		lines = [l.rstrip() for l in f]
	for i, l in enumerate(lines):
		if re.search(r"\] (Oops|BUG|kernel BUG|general protection|Kernel panic)", l):
			return lines[i:i + 3] + [t for t in lines[i + 3:i + 40] if
						 re.search(r"\] (RIP|Comm| [a-z_0-9.]+\+0x)", t)][:14]
	return lines[-15:]


def is_printk(line):
	return re.match(r"\[\s*\d+\.\d+\] ", line) is not None


# The guest's priority on the host (root only): a vCPU is a host thread, and while the host runs
# something else in its place the guest's clock goes on with nothing run, which a guest's server
# shows as requests waiting in its socket queue (a healthy scenario then reads as saturated).
GUEST_NICE = -10


def die_with_parent():
	"""In qemu before exec: the kernel kills it if guest.py dies, even by SIGKILL."""
	PR_SET_PDEATHSIG = 1
	ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def qemu_child():
	"""In qemu before exec: dies with guest.py, and runs ahead of the host's other work."""
	die_with_parent()
	if os.geteuid() == 0:
		os.nice(GUEST_NICE)


def boot(kver, command, xdir=None, timeout=600, mem="4G", cpus=2, accel=None, env=None,
	 echo=True, append=""):
	"""Boot KVER, run COMMAND (argv, or one shell string) in it; returns (rc, output, info).
	rc is NO_RC where the guest reported none (boot failure, panic, timeout)."""
	fa = foreign.of(kver)
	qbin, qpkg, how = (fa.qemu, fa.qemu_pkg, "cross " + fa.name) if fa else \
		("qemu-system-x86_64", "qemu-system-x86", "setup")
	if not shutil.which(qbin):
		raise Skip("%s is not installed (Debian package %s; tools/loadlens %s installs it)" %
			   (qbin, qpkg, how))
	accel = accelerator(accel, kver)
	own = xdir is None
	xdir = os.path.abspath(xdir or tempfile.mkdtemp(prefix="loadlens-guest."))
	if re.search(r"\s", xdir + HERE):
		raise ValueError("paths with spaces cannot go on the kernel command line: " + xdir)
	os.makedirs(xdir, exist_ok=True)
	for f in ("rc", "out.log", "up"):
		if os.path.exists(os.path.join(xdir, f)):
			os.unlink(os.path.join(xdir, f))
	genv = {k: v for k, v in os.environ.items() if k.startswith(PASS_ENV)}
	if accel == "tcg":  # tests that compare with a real CPU's costs read it (docs/kernels.md)
		genv["LL_EMULATED_CPU"] = "1"
		genv["LL_HOST_LOOP_S"] = "%.4f" % host_loop_s()
	# what is left of the timeout once userspace is up: a suite stops in time to report
	genv["LL_GUEST_DEADLINE_S"] = str(max(timeout - 30, 1))
	genv.update(env or {})
	cwd = os.getcwd()
	if fa:
		# the architecture's root filesystem, and read-only beside it at their host paths:
		# the source tree (the cross build in it) and the kernel's modules
		machine, shares = fa.qemu_args([("src", SRC), ("mods", modules_dir(kver))])
		console = fa.console
		cwd = cwd if (cwd + "/").startswith(SRC + "/") else SRC
	else:
		machine = ["-fsdev", "local,id=root,path=/,readonly=on,security_model=none,"
			   "multidevs=remap", "-device", "virtio-9p-pci,fsdev=root,mount_tag=hostroot"]
		machine += ["-accel", "kvm", "-cpu", "host"] if accel == "kvm" else ["-cpu", "max"]
		console, shares = "console=ttyS0 8250.nr_uarts=1", ""
	if accel == "tcg":
		machine += ["-accel", "tcg,thread=%s" % os.environ.get("LOADLENS_TCG_THREAD",
								       "single")]
	with open(os.path.join(xdir, "cmd.sh"), "w") as f:
		f.write(guest_script(command, cwd, genv))
	cmdline = " ".join(w for w in (console, "loglevel=4 panic=-1", "ll.stage2=" + os.path.join(
		HERE, "stage2.sh"), "ll.xdir=" + xdir, "ll.modules=" + modules_dir(kver), shares,
		append) if w)
	qemu = [qbin, "-nodefaults", "-no-reboot", "-display", "none",
		"-smp", str(cpus), "-m", mem,
		"-kernel", vmlinuz(kver), "-initrd", initrd(kver), "-append", cmdline,
		"-serial", "stdio", "-nic", "none",
		"-fsdev", "local,id=xchg,path=%s,security_model=none,multidevs=remap" % xdir,
		"-device", "virtio-9p-pci,fsdev=xchg,mount_tag=xchg"] + machine
	console = os.path.join(xdir, "console.log")
	if echo:
		say("booting %s (%s, %d CPUs, %s), at most %d s" % (kver, accel, cpus, mem, timeout))
	t0 = time.monotonic()
	proc = subprocess.Popen(qemu, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
				stderr=subprocess.STDOUT, start_new_session=True,
				preexec_fn=qemu_child)

	def stop(signum, frame):  # Ctrl-C, ctest's or timeout's SIGTERM: no guest left behind
		os.killpg(proc.pid, signal.SIGKILL)
		raise SystemExit(128 + signum)

	old = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM,
							   signal.SIGHUP)}

	def pump():  # the console to console.log, and the command's lines to stdout
		with open(console, "wb") as log:
			for raw in proc.stdout:
				log.write(raw)
				log.flush()
				line = raw.decode(errors="replace").replace("\r", "")
				if echo and not is_printk(line):
					sys.stdout.write(line)
					sys.stdout.flush()

	th = threading.Thread(target=pump, daemon=True)
	th.start()
	timed_out = False
	try:
		proc.wait(timeout)
	except subprocess.TimeoutExpired:
		timed_out = True
		os.killpg(proc.pid, signal.SIGKILL)
		proc.wait()
	th.join(5)
	for sig, handler in old.items():
		signal.signal(sig, handler)
	wall = time.monotonic() - t0
	info = {"kernel": kver, "accel": accel, "wall_s": round(wall, 1), "xdir": xdir,
		"console": console, "qemu_rc": proc.returncode, "timed_out": timed_out}
	try:
		with open(os.path.join(xdir, "up")) as f:
			info["userspace_s"] = float(f.read().split()[0])
	except (OSError, ValueError, IndexError):
		pass
	try:
		with open(os.path.join(xdir, "out.log"), errors="replace") as f:
			output = f.read()
	except OSError:
		output = ""
	try:
		with open(os.path.join(xdir, "rc")) as f:
			rc = int(f.read())
	except (OSError, ValueError):
		rc = NO_RC
		why = "timed out after %d s" % timeout if timed_out else \
			"qemu exited %d" % proc.returncode
		info["error"] = "the guest reported no exit code (%s); console %s:\n  %s" % (
			why, console, "\n  ".join(console_excerpt(console)))
	if own:
		info["xdir"] = None
		shutil.rmtree(xdir, ignore_errors=True)
	return rc, output, info


# --- the command line ---

class Parser(argparse.ArgumentParser):
	def error(self, message):  # a usage error exits 64, as every loadlens command does
		self.print_usage(sys.stderr)
		print("%s: %s" % (self.prog, message), file=sys.stderr)
		sys.exit(64)


def main():
	ap = Parser(prog="guest.py", description=__doc__.split("\n\n")[0],
				     formatter_class=argparse.RawDescriptionHelpFormatter,
				     epilog=EXAMPLES)
	sub = ap.add_subparsers(dest="cmd", required=True)
	f = sub.add_parser("fetch", help="download and prepare kernels (cached)")
	f.add_argument("kernels", nargs="+", metavar="KERNEL")
	for name, hlp in (("run", "boot KERNEL and run CMD in it as root"),
			  ("test", "fetch KERNEL, then the kernel matrix's checks in one boot")):
		p = sub.add_parser(name, help=hlp)
		p.add_argument("-t", "--timeout", type=int, default=600 if name == "run" else 1200,
			       help="seconds before qemu is killed")
		p.add_argument("-m", "--mem", default="4G", help="guest memory (default 4G)")
		p.add_argument("-c", "--cpus", type=int, default=2 if name == "run" else 1,
			       help="guest CPUs (default: %s)" % ("2" if name == "run" else
			       "1: under TCG in one thread a second vCPU waits up to 100 ms for its "
			       "turn, docs/kernels.md"))
		p.add_argument("-a", "--accel", choices=("kvm", "tcg"),
			       help="default: kvm with kvm_intel/kvm_amd loaded, else tcg")
		p.add_argument("-x", "--xdir", help="exchange directory, shared read-write at the "
			       "same path (default: a temporary one, removed)")
		p.add_argument("--append", default=os.environ.get("LOADLENS_KERNEL_APPEND", ""),
			       help="more kernel command-line arguments")
		if name == "run":
			p.add_argument("kernel", metavar="KERNEL")
			p.add_argument("command", nargs=argparse.REMAINDER, metavar="-- CMD")
		else:
			p.add_argument("kernels", nargs="+", metavar="KERNEL[,KERNEL...]",
				       help="a lane each: kernels joined by a comma run one after the other "
				       "in it (5.10 6.1,6.12: two lanes)")
			p.add_argument("--all", action="store_true", help="every check and scenario "
				       "in each kernel, not its share (tests/kernels/suite.py)")
			p.add_argument("--serial", action="store_true", help="one guest after the "
				       "other (default: the lanes at once where the host has a core per "
				       "guest vCPU of every lane)")
			p.add_argument("--skip-unbuilt", action="store_true", help="a foreign "
				       "architecture's build not there, or a kernel that cannot be "
				       "fetched here, leaves that kernel out (the reason printed) instead "
				       "of failing; the rest runs, and a pass is then exit 77: ctest's "
				       "kernels, whose arm64 build the whole suite's setup makes")
			p.add_argument("--bin", help="a build's bin directory, for the kernels of "
				       "the architecture it is built for (default: LOADLENS_BIN or "
				       "build/bin; for ARCH's kernels (arm64, ppc64el) LOADLENS_ARCH_BIN "
				       "or build-ARCH/bin, tools/loadlens cross ARCH)")
	a = ap.parse_args()
	try:
		if a.cmd == "fetch":
			for k in a.kernels:
				kver = fetch(k)
				print("%s %s %s" % (k, kver, kernel_dir(kver)))
			return 0
		if a.cmd == "run":
			cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
			if not cmd:
				ap.error("run: no command (guest.py run KERNEL -- CMD...)")
			kver = fetch(a.kernel)
			rc, _, info = boot(kver, cmd, a.xdir, a.timeout, a.mem, a.cpus, a.accel,
					   append=a.append)
			report(info, rc)
			return rc
		return matrix.test(a, sys.modules[__name__])
	except Skip as e:
		print("SKIP: %s" % e, flush=True)
		return 77
	except ValueError as e:
		print("guest.py: %s" % e, file=sys.stderr)
		return 64
	except (OSError, subprocess.CalledProcessError) as e:
		out = getattr(e, "output", None)
		print("guest.py: %s%s" % (e, ": " + last_line(out) if out else ""), file=sys.stderr)
		return 1


def report(info, rc):
	say("%s: exit %s after %.1f s%s (%s)" % (
		info["kernel"], rc if rc != NO_RC else "none", info["wall_s"],
		", userspace at %.1f s" % info["userspace_s"] if "userspace_s" in info else "",
		info["accel"]))
	if "error" in info:
		say(info["error"])


EXAMPLES = """examples:
  tools/kernels/guest.py fetch 6.1 6.12
  tools/kernels/guest.py run 6.1 -- build/bin/loadlens-observer --check
  tools/kernels/guest.py run -t 300 6.12 -- bash -c 'cd build && ctest -R scenario_sick_fd_leak'
  tools/kernels/guest.py test 5.10,arm64:6.12 6.1,6.12 --skip-unbuilt   # as ctest: two lanes
  tools/kernels/guest.py test --all 6.1        # every check and scenario on one kernel
"""

if __name__ == "__main__":
	sys.exit(main())
