#!/usr/bin/python3
"""Guests of another architecture than the host's, for tools/kernels/guest.py, and the root
filesystems they boot on: arm64 (qemu-system-aarch64, virt) and ppc64el (qemu-system-ppc64,
pseries), both under TCG.

    foreign.py sysroot ARCH      make ARCH's root filesystem (cached), print its path
                                 (ARCH: arm64, ppc64el)

Kernels are named ARCH:SERIES (arm64:6.1, the one linux-image-arm64 depends on; arm64:6.12, the
one linux-image-6.12-arm64 depends on, from bookworm-security; ppc64el:6.1, linux-image-
powerpc64le's) or by an exact version such as 6.1.0-56-arm64 or 6.1.0-56-powerpc64le. apt reads
bookworm's package lists of that architecture through a private APT_CONFIG under the kernel cache
(never the host's sources or architectures). The root filesystem is Debian 12 of that architecture
unpacked by mmdebstrap (--variant=extract: nothing of it runs on the host) with the -dev packages
the build needs and what tests/kernels/suite.py runs in the guest; the same tree is the cross
build's sysroot (cmake/toolchain-arm64.cmake, cmake/toolchain-ppc64el.cmake: `tools/loadlens
cross ARCH`). The guest boots it read-only over 9p under a tmpfs overlay, and sees the source
tree (the cross build included) at its host path over a second 9p share.
"""
import fcntl
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from initramfs import Skip  # noqa: E402

CACHE = os.environ.get("LOADLENS_KERNEL_CACHE", "/var/cache/loadlens/kernels")
# the cross build's libraries (tools/loadlens' PACKAGES, their -dev halves; cmocka: the tests'
# helpers, ll_bpf_probe, build with the unit tests) and what the guest's
# checks run: python3, bash, iproute2 (namespaces), jq, util-linux (taskset), mount, procps,
# busybox-static (the initramfs), kmod (modprobe)
PACKAGES = [
	"libc6-dev", "linux-libc-dev", "libstdc++-12-dev", "libbpf-dev", "libelf-dev", "zlib1g-dev",
	"libuv1-dev", "libcurl4-openssl-dev", "libjansson-dev", "libmnl-dev", "libhttp-parser-dev",
	"libnghttp2-dev", "libssl-dev", "libprotobuf-dev", "libprotoc-dev", "libldap-dev",
	"libcmocka-dev",
	"base-files", "base-passwd", "netbase", "libc-bin", "bash", "dash", "coreutils", "grep",
	"sed", "mawk", "findutils", "mount", "hostname", "python3", "iproute2", "jq", "util-linux",
	"procps", "busybox-static", "kmod",
]
MIRRORS = ("http://deb.debian.org/debian bookworm main",
	   "http://deb.debian.org/debian bookworm-updates main",
	   "http://deb.debian.org/debian-security bookworm-security main")


class Arch:
	"""One foreign architecture: its Debian name, kernels, root filesystem and qemu machine."""

	def __init__(self, name, flavour, series, em, qemu, qemu_pkg, machine, console, image,
		     security=True):
		self.name = name          # Debian's architecture: arm64, ppc64el
		self.prefix = name + ":"  # arm64:6.12
		self.flavour = flavour    # the kernel packages' suffix: arm64, powerpc64le
		self.series = series      # series -> the metapackage naming the exact kernel
		self.em = em              # the ELF e_machine of its binaries
		self.qemu, self.qemu_pkg = qemu, qemu_pkg
		self.machine = machine    # qemu's machine and CPU arguments
		self.console = console    # the kernel's console= argument
		self.image = image        # the kernel image's name under /boot: vmlinuz, vmlinux
		# bookworm-security among the root filesystem's sources (the kernels' have it always)
		self.security = security
		self.sysroot_dir = os.environ.get("LOADLENS_%s_SYSROOT" % name.upper(),
						  os.path.join(CACHE, "sysroot-" + name))

	def is_kernel(self, kernel):
		return kernel.startswith(self.prefix) or kernel.endswith("-" + self.flavour)

	def series_of(self, kernel):
		"""arm64:6.12 -> 6.12"""
		return kernel[len(self.prefix):] if kernel.startswith(self.prefix) else kernel

	def mirrors(self):
		"""mmdebstrap's sources: MIRRORS, bookworm-security only where self.security."""
		return [m for m in MIRRORS if self.security or "-security" not in m]

	def apt_config(self):
		"""apt.conf lines of the private configuration: this architecture only."""
		return 'APT::Architecture "%s";\nAPT::Architectures { "%s"; };\n' % (self.name,
										      self.name)

	def say(self, msg):
		print("%s: %s" % (self.name, msg), file=sys.stderr, flush=True)

	def sysroot(self):
		"""The root filesystem, made once (mmdebstrap), again when PACKAGES change; its
		path. Raises Skip."""
		root = self.sysroot_dir
		stamp = os.path.join(root, ".loadlens-ready")
		if made(stamp):
			return root
		if not shutil.which("mmdebstrap"):
			raise Skip("mmdebstrap is not installed (tools/loadlens cross %s installs it)" %
				   self.name)
		os.makedirs(os.path.dirname(root), exist_ok=True)
		with open(root + ".lock", "w") as lock:
			fcntl.flock(lock, fcntl.LOCK_EX)  # a second caller waits for the first's tree
			if made(stamp):
				return root
			t = time.monotonic()
			tmp = root + ".tmp"
			shutil.rmtree(tmp, ignore_errors=True)
			self.say("unpacking Debian 12 %s into %s (mmdebstrap, %d packages and their "
				 "dependencies)" % (self.name, root, len(PACKAGES)))
			p = subprocess.run(["mmdebstrap", "--variant=extract",
					    "--architectures=" + self.name,
					    "--include=" + ",".join(PACKAGES), "bookworm", tmp] +
					   self.mirrors(), stdout=subprocess.PIPE,
					   stderr=subprocess.STDOUT, text=True)
			if p.returncode != 0:
				raise Skip("mmdebstrap failed (exit %d): %s" % (
					p.returncode, (p.stdout.strip().splitlines() or
						       ["no output"])[-1]))
			finish(tmp)
			shutil.rmtree(root, ignore_errors=True)
			os.rename(tmp, root)
			with open(stamp, "w") as f:
				f.write(" ".join(PACKAGES) + "\n")
			self.say("%s ready in %.0f s" % (root, time.monotonic() - t))
		return root

	def qemu_args(self, shares):
		"""The machine's arguments, and the 9p shares besides the exchange directory: the
		root filesystem (tag hostroot, as init.sh mounts it) and SHARES' (tag, host path)
		pairs, which init.sh mounts read-only at the same path (ll.share=TAG:PATH)."""
		args = list(self.machine)
		fs = [("hostroot", self.sysroot())] + list(shares)
		for tag, path in fs:
			args += ["-fsdev", "local,id=%s,path=%s,readonly=on,security_model=none,"
				 "multidevs=remap" % (tag, path),
				 "-device", "virtio-9p-pci,fsdev=%s,mount_tag=%s" % (tag, tag)]
		cmdline = " ".join("ll.share=%s:%s" % s for s in shares)
		return args, cmdline


# qemu's virt board: a PCI bus for the virtio-9p shares, the PL011 UART as the console. -cpu max
# with the implementation-defined pointer authentication: the architected one (QARMA) costs TCG
# most of its time in every function's prologue and epilogue.
ARM64 = Arch("arm64", "arm64", {"6.1": "linux-image-arm64", "6.12": "linux-image-6.12-arm64"},
	     183, "qemu-system-aarch64", "qemu-system-arm",
	     ["-M", "virt", "-cpu", "max,pauth-impdef=on"], "console=ttyAMA0", "vmlinuz")
# IBM's pseries (PAPR) under TCG: a POWER9 (Debian's ppc64el baseline is POWER8), its PCI host
# bridge for the virtio-9p shares, the hypervisor's virtual terminal (hvc0) as the console. The
# firmware is QEMU's own minimal Open Firmware (x-vof=on): it hands the kernel its device tree at
# once, where SLOF scans the PCI bus and waits for a boot menu. The Spectre mitigations' machine
# capabilities TCG cannot provide are declared absent (else qemu warns about each).
# Debian 12's own 6.1 (bookworm's point release, 6.1.0-50) is built without BTF, which the observer
# needs (its --check says so); bookworm-security's 6.12 has it. The root filesystem without
# bookworm-security: the mirror here serves a ppc64el index of it that does not match its Release
# file (343,384 bytes where 365,588 are listed, 2026-11-27), which fails mmdebstrap (and leaves
# apt without bookworm-security's ppc64el kernels: guest.py's apt_update goes on without them).
PPC64EL = Arch("ppc64el", "powerpc64le",
	       {"6.1": "linux-image-powerpc64le", "6.12": "linux-image-6.12-powerpc64le"},
	       21, "qemu-system-ppc64", "qemu-system-ppc",
	       ["-M", "pseries,x-vof=on,cap-cfpc=broken,cap-sbbc=broken,cap-ibs=broken,"
		"cap-ccf-assist=off", "-cpu", "POWER9"], "console=hvc0", "vmlinux",
	       security=False)
ARCHES = (ARM64, PPC64EL)


def of(kernel):
	"""The Arch of KERNEL (a name or an exact version), None for the host's (x86-64)."""
	return next((a for a in ARCHES if a.is_kernel(kernel)), None)


def by_name(name):
	return next((a for a in ARCHES if a.name == name), None)


def made(stamp):
	"""True if a root filesystem is there with today's PACKAGES (its stamp lists them)."""
	try:
		with open(stamp) as f:
			return f.read().split() == PACKAGES
	except OSError:
		return False


def finish(root):
	"""What the packages' maintainer scripts would have made (none ran: the extract variant):
	the users and groups, and awk. (The dynamic linker finds the libraries without a cache:
	Debian's searches the multiarch directories by default.)"""
	for name in ("passwd", "group"):
		dst = os.path.join(root, "etc", name)
		if not os.path.exists(dst):
			shutil.copy(os.path.join(root, "usr/share/base-passwd", name + ".master"), dst)
	awk = os.path.join(root, "usr/bin/awk")
	if not os.path.lexists(awk):
		os.symlink("mawk", awk)


EM_X86_64 = 62


def elf_machine(path):
	"""The ELF e_machine of PATH (62: x86-64, 183: aarch64, 21: ppc64), or None."""
	try:
		with open(path, "rb") as f:
			head = f.read(20)
	except OSError:
		return None
	return int.from_bytes(head[18:20], "little") if head[:4] == b"\x7fELF" else None


if __name__ == "__main__":
	arch = by_name(sys.argv[2]) if len(sys.argv) == 3 and sys.argv[1] == "sysroot" else None
	if not arch:
		print("usage: foreign.py sysroot %s" % "|".join(a.name for a in ARCHES),
		      file=sys.stderr)
		sys.exit(64)
	try:
		print(arch.sysroot())
	except Skip as e:
		print("SKIP: %s" % e, flush=True)
		sys.exit(77)
