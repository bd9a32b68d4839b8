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
	(--all: everything). Each KERNEL argument is a lane: kernels joined by "," (6.1,6.12) run
	one after the other in it; lanes run at once where the host has a core per guest vCPU of
	every lane, their outputs printed in turn at the end; else every kernel one after the other."""
	lanes, _ = plan(a.kernels, 0, a.cpus, a.serial)
	em = foreign.elf_machine(os.path.join(a.bin, "loadlens-observer")) if a.bin else None
	if em and not any(em == machine_of(k) for lane in lanes for k in lane):
		raise ValueError("test: --bin %s is built for no kernel given (ELF machine %d)" %
				 (a.bin, em))
	lanes, left_out, fail = usable(a, g, lanes)
	if fail:
		print("FAIL: " + fail)
		return 1
	if left_out and not lanes:
		raise g.Skip("; ".join(left_out))
	lanes, at_once = plan([",".join(lane) for lane in lanes], len(os.sched_getaffinity(0)),
			      a.cpus, a.serial)
	for why in left_out:  # the rest runs; a pass is then a skip (77): not the whole matrix ran
		print("SKIP (left out): " + why, flush=True)
	rc = run_lanes(a, g, lanes, at_once)
	if not left_out:
		return rc
	print("SKIP: %d kernel%s of the matrix left out: %s" % (
		len(left_out), "" if len(left_out) == 1 else "s", "; ".join(left_out)), flush=True)
	return rc if rc != 0 else 77


def machine_of(kernel):
	"""The ELF e_machine of KERNEL's architecture's binaries."""
	fa = foreign.of(kernel)
	return fa.em if fa else foreign.EM_X86_64


def usable(a, g, lanes):
	"""LANES less the kernels that cannot run here (a lane left empty goes), why each was left
	out, and a reason to fail (or None). A build of the wrong architecture fails, and so does a
	build that is not there, except a foreign architecture's with --skip-unbuilt (ctest's
	kernels: its arm64 kernel needs tools/loadlens cross arm64): that kernel is left out, as is
	one whose fetch cannot be done here (Skip) with --skip-unbuilt."""
	kept, left_out = [], []
	for lane in lanes:
		ks = []
		for k in lane:
			bindir = bin_for(a, g, k)
			fa = foreign.of(k)
			why = None
			for b in ("loadlens-observer", "loadlens-driver", "loadlens-refserver"):
				path = os.path.join(bindir, b)
				if not os.access(path, os.X_OK):
					why = "%s is not built%s" % (path, " (tools/loadlens cross %s)" %
								     fa.name if fa else "")
					if not (a.skip_unbuilt and fa):
						return [], [], why
					break
				if foreign.elf_machine(path) != machine_of(k):
					return [], [], "%s is not built for %s's architecture" % (path, k)
			if not why and a.skip_unbuilt:
				try:
					g.fetch(k)  # cached; what it lacks here (a download, a tool) is said
				except g.Skip as e:
					why = str(e)
			if why:
				left_out.append("%s: %s" % (k, why))
			else:
				ks.append(k)
		if ks:
			kept.append(ks)
	return kept, left_out, None


def run_lanes(a, g, lanes, at_once):
	"""The kernels of LANES (each built and fetchable): at once lane by lane, or one after the
	other; the first nonzero exit, else 0."""
	flat = [k for lane in lanes for k in lane]
	if len(flat) == 1:
		return test_one(a, g, flat[0], bin_for(a, g, flat[0]))
	if a.xdir:
		raise ValueError("test: --xdir names one kernel's results directory: give one KERNEL")
	kvers = [[g.fetch(k) for k in lane] for lane in lanes]  # cached; the children fetch none
	# Under TCG a guest keeps its vCPU's host thread busy and qemu's main loop (device
	# emulation, 9p) part of the time: 9.0 and 9.6 CPU-minutes in one 12-minute run, 0.75 of a
	# core. Two 1-vCPU lanes on 2 cores (2026-11-29: 5.10's share beside 6.1's, then 6.12's) ran
	# 8 of 8 checks each, 6.1's scenarios as alone (its close_wait_leak found at 0.73 s, 0.71 s
	# alone), in 796 s where one after the other took about 1,300 s. (Two guests at once once
	# stalled each other's scenarios: worker_saturation, since left out of the shares;
	# docs/kernels.md.) A third lane on 2 cores waits: all one after the other.
	cores = len(os.sched_getaffinity(0))
	names = [",".join(lane) for lane in kvers]
	g.say("%d kernels in %d lane%s %s: %s" % (
		len(flat), len(lanes), "" if len(lanes) == 1 else "s",
		"at once (%d host cores)" % cores if at_once else
		"one after the other (%d host cores; at once from %d)" % (cores, a.cpus * len(lanes)),
		", ".join(names)))
	if not at_once:  # in this process, the guests' output as it comes
		rcs = [test_one(a, g, kver, bin_for(a, g, kver)) for lane in kvers for kver in lane]
		return next((rc for rc in rcs if rc != 0), 0)
	logdir = os.path.join(os.path.dirname(bin_for(a, g, flat[0])), "kernels")
	os.makedirs(logdir, exist_ok=True)
	logs, procs = [], []
	for name, lane in zip(names, lanes):
		argv = [sys.executable, os.path.abspath(g.__file__), "test", "--serial", "-t",
			str(a.timeout), "-m", a.mem, "-c", str(a.cpus)]
		argv += ["--bin", a.bin] if a.bin else []
		argv += ["-a", a.accel] if a.accel else []
		argv += ["--append", a.append] if a.append else []
		argv += ["--all"] if a.all else []
		logs.append(os.path.join(logdir, name + ".log"))
		with open(logs[-1], "w") as log:
			procs.append(subprocess.Popen(argv + lane, stdout=log, stderr=subprocess.STDOUT,
						      stdin=subprocess.DEVNULL,
						      preexec_fn=g.die_with_parent))
	rcs = [p.wait() for p in procs]
	for name, log, rc in zip(names, logs, rcs):
		with open(log, errors="replace") as f:
			sys.stdout.write("=== %s (exit %d) ===\n%s" % (name, rc, f.read()))
	sys.stdout.flush()
	return next((rc for rc in rcs if rc != 0), 0)


def plan(args, cores, cpus, serial):
	"""The lanes of test's KERNEL arguments (kernels joined by "," one after the other in a lane;
	not "+", which Debian's versions hold: 6.12.117+deb12-amd64)
	and whether they run at once: more than one lane, not --serial, and a host core per guest
	vCPU of every lane. ValueError on an empty kernel name."""
	lanes = [arg.split(",") for arg in args]
	if any(not k for lane in lanes for k in lane):
		raise ValueError("test: an empty kernel in %s" % " ".join(args))
	return lanes, not serial and len(lanes) > 1 and cores >= cpus * len(lanes)


def bin_for(a, g, kernel):
	"""The bin directory of the build for KERNEL's architecture: --bin for the kernels of the
	architecture its loadlens-observer is built for (the host's where that is not there, so
	that the error names it), else the architecture's default."""
	fa = foreign.of(kernel)
	if a.bin:
		em = foreign.elf_machine(os.path.join(a.bin, "loadlens-observer"))
		if em == machine_of(kernel) or (em is None and not fa):
			return os.path.abspath(a.bin)
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
