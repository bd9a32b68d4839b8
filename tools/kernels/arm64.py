#!/usr/bin/python3
"""arm64 guests for tools/kernels/guest.py, and the arm64 root filesystem they boot on.

    arm64.py sysroot      make the arm64 root filesystem (cached), print its path

Kernels are named arm64:6.1 (the one linux-image-arm64 depends on) and arm64:6.12 (the one
linux-image-6.12-arm64 depends on, from bookworm-security), or by an exact version such as
6.1.0-56-arm64. apt reads bookworm's arm64 package lists through a private APT_CONFIG under the
kernel cache (never the host's sources or architectures). The root filesystem is Debian 12 arm64
unpacked by mmdebstrap (--variant=extract: nothing of it runs on the host) with the -dev packages
the build needs and what tests/kernels/suite.py runs in the guest; the same tree is the cross
build's sysroot (cmake/toolchain-arm64.cmake, `tools/loadlens cross arm64`). The guest boots it
read-only over 9p under a tmpfs overlay, and sees the source tree (the arm64 build included) at
its host path over a second 9p share. qemu-system-aarch64 -M virt -cpu max under TCG.
"""
import fcntl
import os
import shutil
import subprocess
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
from initramfs import Skip  # noqa: E402

PREFIX = "arm64:"
CACHE = os.environ.get("LOADLENS_KERNEL_CACHE", "/var/cache/loadlens/kernels")
SYSROOT = os.environ.get("LOADLENS_ARM64_SYSROOT", os.path.join(CACHE, "sysroot-arm64"))
# a kernel series -> the Debian metapackage whose dependency names the exact kernel package
SERIES = {"6.1": "linux-image-arm64", "6.12": "linux-image-6.12-arm64"}
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
# qemu's virt board: a PCI bus for the virtio-9p shares, the PL011 UART as the console. -cpu max
# with the implementation-defined pointer authentication: the architected one (QARMA) costs TCG
# most of its time in every function's prologue and epilogue.
QEMU = "qemu-system-aarch64"
MACHINE = ["-M", "virt", "-cpu", "max,pauth-impdef=on"]
CONSOLE = "console=ttyAMA0"


def is_arm64(kernel):
	return kernel.startswith(PREFIX) or kernel.endswith("-arm64")


def series_of(kernel):
	"""arm64:6.12 -> 6.12"""
	return kernel[len(PREFIX):] if kernel.startswith(PREFIX) else kernel


def apt_config():
	"""apt.conf lines of the private configuration: arm64 only."""
	return 'APT::Architecture "arm64";\nAPT::Architectures { "arm64"; };\n'


def say(msg):
	print("arm64: " + msg, file=sys.stderr, flush=True)


def sysroot():
	"""The arm64 root filesystem, made once (mmdebstrap), again when PACKAGES change; its
	path. Raises Skip."""
	stamp = os.path.join(SYSROOT, ".loadlens-ready")
	if made(stamp):
		return SYSROOT
	if not shutil.which("mmdebstrap"):
		raise Skip("mmdebstrap is not installed (tools/loadlens cross arm64 installs it)")
	os.makedirs(os.path.dirname(SYSROOT), exist_ok=True)
	with open(SYSROOT + ".lock", "w") as lock:
		fcntl.flock(lock, fcntl.LOCK_EX)  # a second caller waits for the first's tree
		if made(stamp):
			return SYSROOT
		t = time.monotonic()
		tmp = SYSROOT + ".tmp"
		shutil.rmtree(tmp, ignore_errors=True)
		say("unpacking Debian 12 arm64 into %s (mmdebstrap, %d packages and their "
		    "dependencies)" % (SYSROOT, len(PACKAGES)))
		p = subprocess.run(["mmdebstrap", "--variant=extract", "--architectures=arm64",
				    "--include=" + ",".join(PACKAGES), "bookworm", tmp] + list(MIRRORS),
				   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
		if p.returncode != 0:
			raise Skip("mmdebstrap failed (exit %d): %s" % (
				p.returncode, (p.stdout.strip().splitlines() or ["no output"])[-1]))
		finish(tmp)
		shutil.rmtree(SYSROOT, ignore_errors=True)
		os.rename(tmp, SYSROOT)
		with open(stamp, "w") as f:
			f.write(" ".join(PACKAGES) + "\n")
		say("%s ready in %.0f s" % (SYSROOT, time.monotonic() - t))
	return SYSROOT


def made(stamp):
	"""True if the root filesystem is there with today's PACKAGES (its stamp lists them)."""
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


EM_AARCH64 = 183


def elf_machine(path):
	"""The ELF e_machine of PATH (183: aarch64, 62: x86-64), or None."""
	try:
		with open(path, "rb") as f:
			head = f.read(20)
	except OSError:
		return None
	return int.from_bytes(head[18:20], "little") if head[:4] == b"\x7fELF" else None


def qemu_args(shares):
	"""The machine's arguments, and the 9p shares besides the exchange directory: the root
	filesystem (tag hostroot, as init.sh mounts it) and SHARES' (tag, host path) pairs, which
	init.sh mounts read-only at the same path (ll.share=TAG:PATH)."""
	args = list(MACHINE)
	fs = [("hostroot", sysroot())] + list(shares)
	for tag, path in fs:
		args += ["-fsdev", "local,id=%s,path=%s,readonly=on,security_model=none,"
			 "multidevs=remap" % (tag, path),
			 "-device", "virtio-9p-pci,fsdev=%s,mount_tag=%s" % (tag, tag)]
	cmdline = " ".join("ll.share=%s:%s" % s for s in shares)
	return args, cmdline


if __name__ == "__main__":
	if sys.argv[1:] != ["sysroot"]:
		print("usage: arm64.py sysroot", file=sys.stderr)
		sys.exit(64)
	try:
		print(sysroot())
	except Skip as e:
		print("SKIP: %s" % e, flush=True)
		sys.exit(77)
