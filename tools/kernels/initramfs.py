"""A guest kernel's initramfs (tools/kernels/guest.py builds one per kernel): busybox, init.sh and
the kernel's own modules for INITRAMFS_MODULES, dependencies first, in the kernel's cpio 'newc'
archive, gzip-compressed."""
import gzip
import lzma
import os
import re
import shutil
import subprocess

INITRAMFS_MODULES = ["virtio_pci", "9pnet_virtio", "9p", "overlay"]


class Skip(Exception):
	"""A prerequisite is missing on this host: exit 77 with the reason."""


def module_chain(root, kver):
	"""The .ko files under root to insmod for INITRAMFS_MODULES, dependencies first, each once."""
	chain = []
	for m in INITRAMFS_MODULES:
		out = subprocess.run(["modprobe", "-d", root, "-S", kver, "--show-depends", m],
				     check=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
				     text=True).stdout
		for line in out.splitlines():
			w = line.split()
			if len(w) >= 2 and w[0] == "insmod" and w[1] not in chain:
				chain.append(w[1])
	return chain


def module_bytes(path):
	"""A module file uncompressed (insmod in busybox reads plain .ko files)."""
	if path.endswith(".ko"):
		with open(path, "rb") as f:
			return f.read()
	if path.endswith(".ko.xz"):
		with lzma.open(path) as f:
			return f.read()
	if path.endswith(".ko.gz"):
		with gzip.open(path) as f:
			return f.read()
	if path.endswith(".ko.zst"):
		if not shutil.which("zstd"):
			raise Skip("%s is zstd-compressed: apt-get install zstd" % path)
		return subprocess.run(["zstd", "-qdc", path], check=True,
				      stdout=subprocess.PIPE).stdout
	raise RuntimeError("unknown module format: " + path)


def cpio_newc(entries):
	"""An archive in the kernel's initramfs format (cpio 'newc'): (name, mode, data, rdev)."""
	out = bytearray()

	def pad():
		out.extend(b"\0" * (-len(out) % 4))

	for ino, (name, mode, data, rdev) in enumerate(entries + [("TRAILER!!!", 0, b"",
								      (0, 0))], 1):
		bname = name.encode() + b"\0"
		fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1], len(bname), 0)
		out += b"070701" + "".join("%08X" % v for v in fields).encode() + bname
		pad()
		out += data
		pad()
	return bytes(out)


def build(root, kver, init_sh, out, busybox="/bin/busybox"):
	"""Write out (an initramfs) for the kernel kver unpacked under root, with the static
	busybox of its architecture; returns the modules' names, in load order."""
	d, x, chardev = 0o040755, 0o100755, 0o020600
	entries = [(n, d, b"", (0, 0)) for n in ("bin", "dev", "proc", "sys", "mod", "lower",
						  "upper", "newroot")]
	entries.append(("dev/console", chardev, b"", (5, 1)))
	with open(busybox, "rb") as f:
		entries.append(("bin/busybox", x, f.read(), (0, 0)))
	entries.append(("bin/sh", 0o120777, b"busybox", (0, 0)))
	with open(init_sh, "rb") as f:
		entries.append(("init", x, f.read(), (0, 0)))
	names = []
	for i, path in enumerate(module_chain(root, kver)):
		name = re.sub(r"\.ko(\..*)?$", "", os.path.basename(path))
		names.append(name)
		# the init loads mod/*.ko in name order: the dependency order
		entries.append(("mod/%02d-%s.ko" % (i, name), 0o100644, module_bytes(path), (0, 0)))
	tmp = out + ".tmp"
	with open(tmp, "wb") as f:
		f.write(gzip.compress(cpio_newc(entries), 1))
	os.replace(tmp, out)
	return names
