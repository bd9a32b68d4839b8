"""The kernel matrix of tools/kernels/guest.py test: tests/kernels/suite.py in one boot per kernel,
with the build of the kernel's architecture (build/bin, or build-ARCH/bin for the kernels of a
foreign architecture: arm64, ppc64el).
Its functions take the guest module (g) for fetch and boot."""
import os
import shutil
import subprocess
import sys
import time

import foreign


def test(a, g):
	"""The kernel matrix: tests/kernels/suite.py in one boot per kernel, each kernel's share
	(--all: everything); several kernels at once where the host has 2 cores per guest vCPU,
	their outputs printed in turn at the end."""
	for k in a.kernels:
		bindir = bin_for(a, g, k)
		fa = foreign.of(k)
		for b in ("loadlens-observer", "loadlens-driver", "loadlens-refserver"):
			if not os.access(os.path.join(bindir, b), os.X_OK):
				why = "%s/%s is not built%s" % (bindir, b, " (tools/loadlens cross %s)" %
								 fa.name if fa else "")
				if a.skip_unbuilt:
					raise g.Skip(why)
				print("FAIL: " + why)
				return 1
			if foreign.elf_machine(os.path.join(bindir, b)) != (
					fa.em if fa else foreign.EM_X86_64):
				print("FAIL: %s/%s is not built for %s's architecture" % (bindir, b, k))
				return 1
	if len(a.kernels) == 1:
		return test_one(a, g, a.kernels[0], bin_for(a, g, a.kernels[0]))
	if a.xdir:
		raise ValueError("test: --xdir names one kernel's results directory: give one KERNEL")
	kvers = [g.fetch(k) for k in a.kernels]  # cached; the children fetch nothing more
	# under TCG a guest keeps 2 host threads busy, its vCPUs' and qemu's main loop (device
	# emulation, 9p): 9.0 and 9.6 CPU-minutes in one 12-minute run here. Guests at once that
	# share cores stall each other, and a stalled guest's servers queue requests for real.
	cores = len(os.sched_getaffinity(0))
	at_once = not a.serial and cores >= 2 * a.cpus * len(kvers)
	g.say("%d kernels %s: %s" % (len(kvers), "at once (%d host cores)" % cores if at_once else
				   "one after the other (%d host cores; at once from %d)" %
				   (cores, 2 * a.cpus * len(kvers)), ", ".join(kvers)))
	if not at_once:  # in this process, the guests' output as it comes
		rcs = [test_one(a, g, kver, bin_for(a, g, kver)) for kver in kvers]
		return next((rc for rc in rcs if rc != 0), 0)
	logdir = os.path.join(os.path.dirname(bindir), "kernels")
	os.makedirs(logdir, exist_ok=True)
	logs, procs = [], []
	for kver in kvers:
		argv = [sys.executable, os.path.abspath(g.__file__), "test", "-t", str(a.timeout),
			"-m", a.mem, "-c", str(a.cpus), "--bin", bin_for(a, g, kver), kver]
		argv += ["-a", a.accel] if a.accel else []
		argv += ["--append", a.append] if a.append else []
		argv += ["--all"] if a.all else []
		logs.append(os.path.join(logdir, kver + ".log"))
		with open(logs[-1], "w") as log:
			procs.append(subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
						      stdin=subprocess.DEVNULL,
						      preexec_fn=g.die_with_parent))
	rcs = [p.wait() for p in procs]
	for kver, log, rc in zip(kvers, logs, rcs):
		with open(log, errors="replace") as f:
			sys.stdout.write("=== %s (exit %d) ===\n%s" % (kver, rc, f.read()))
	sys.stdout.flush()
	return next((rc for rc in rcs if rc != 0), 0)


def bin_for(a, g, kernel):
	"""The bin directory of the build for KERNEL's architecture."""
	if a.bin:
		return os.path.abspath(a.bin)
	fa = foreign.of(kernel)
	if fa:
		return os.path.abspath(os.environ.get("LOADLENS_%s_BIN" % fa.name.upper(),
						      os.path.join(g.SRC, "build-%s/bin" % fa.name)))
	return os.path.abspath(os.environ.get("LOADLENS_BIN", os.path.join(g.SRC, "build/bin")))


def test_one(a, g, kernel, bindir):
	"""The kernel matrix in one kernel: tests/kernels/suite.py in one boot; its summary."""
	t = time.monotonic()
	kver = g.fetch(kernel)
	fetch_s = time.monotonic() - t
	xdir = os.path.abspath(a.xdir or os.path.join(os.path.dirname(bindir), "kernels", kver))
	shutil.rmtree(xdir, ignore_errors=True)
	os.makedirs(xdir)
	suite = os.path.join(g.SRC, "tests/kernels/suite.py")
	rc, _, info = g.boot(kver, ["/usr/bin/python3", suite, "--bin", bindir, "--out", xdir] +
			   (["--all"] if a.all else []),
			   xdir, a.timeout, a.mem, a.cpus, a.accel, append=a.append)
	g.report(info, rc)
	g.say("fetch %.1f s (cached: %s), boot and checks %.1f s; results in %s" % (
		fetch_s, "yes" if fetch_s < 5 else "no", info["wall_s"], xdir))
	if rc == g.NO_RC:
		print("FAIL: the %s guest reported no exit code" % kver)
		return 1
	return rc
