# SPDX-License-Identifier: MIT
"""tools/kernels/guest.py's pure parts (names, the guest's script), foreign.py's, and initramfs.py's
archive."""
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../tools/kernels"))
import foreign  # noqa: E402
import guest  # noqa: E402
import initramfs  # noqa: E402
import matrix  # noqa: E402


class CpioTest(unittest.TestCase):
	def entries(self):
		return [("bin", 0o040755, b"", (0, 0)),
			("bin/hello", 0o100755, b"#!/bin/sh\necho hello\n", (0, 0)),
			("bin/sh", 0o120777, b"busybox", (0, 0)),
			("odd", 0o100644, b"x" * 5, (0, 0)),  # a length that needs padding
			("dev/console", 0o020600, b"", (5, 1))]

	def test_headers_and_padding(self):
		a = initramfs.cpio_newc(self.entries())
		self.assertEqual(a[:6], b"070701")
		self.assertEqual(len(a) % 4, 0)
		self.assertIn(b"TRAILER!!!\0", a)
		# each header: 6 + 13 * 8 hex digits; the file size of bin/hello is its length
		i = a.index(b"bin/hello\0") - 110
		self.assertEqual(int(a[i + 54:i + 62], 16), len(b"#!/bin/sh\necho hello\n"))
		i = a.index(b"dev/console\0") - 110
		self.assertEqual((int(a[i + 78:i + 86], 16), int(a[i + 86:i + 94], 16)), (5, 1))

	@unittest.skipUnless(shutil.which("cpio") or os.path.exists("/bin/busybox"),
			     "no cpio to read the archive back")
	def test_cpio_reads_it_back(self):
		cpio = ["cpio"] if shutil.which("cpio") else ["/bin/busybox", "cpio"]
		with tempfile.TemporaryDirectory() as d:
			p = subprocess.run(cpio + ["-i", "--make-directories"] if cpio == ["cpio"]
					   else cpio + ["-i", "-d"], cwd=d,
					   input=initramfs.cpio_newc(self.entries()[:4]),
					   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
			self.assertEqual(p.returncode, 0, p.stderr)
			with open(os.path.join(d, "bin/hello"), "rb") as f:
				self.assertEqual(f.read(), b"#!/bin/sh\necho hello\n")
			self.assertEqual(os.readlink(os.path.join(d, "bin/sh")), "busybox")
			self.assertEqual(os.path.getsize(os.path.join(d, "odd")), 5)
			self.assertTrue(os.access(os.path.join(d, "bin/hello"), os.X_OK))


class NamesTest(unittest.TestCase):
	def test_series(self):
		self.assertEqual(guest.series("6.1.0-56-amd64"), "6.1")
		self.assertEqual(guest.series("6.12.117+deb12-amd64"), "6.12")
		# 6.1 and 6.12 are different series: pruning one never removes the other
		self.assertNotEqual(guest.series("6.1.0-56-amd64"), guest.series("6.12.1+deb12-amd64"))

	def test_exact_versions_pass_garbage_is_refused(self):
		self.assertEqual(guest.resolve("6.1.0-56-amd64"), "6.1.0-56-amd64")
		self.assertEqual(guest.resolve("6.12.117+deb12-amd64"), "6.12.117+deb12-amd64")
		self.assertEqual(guest.resolve("6.1.0-56-arm64"), "6.1.0-56-arm64")
		self.assertEqual(guest.resolve("6.1.0-50-powerpc64le"), "6.1.0-50-powerpc64le")
		for bad in ("5", "latest", "6.1; rm -rf /", "../x-amd64", "6.1.0-56-ppc64el",
			    "arm64:5.10", "arm64:latest", "arm64:../x-arm64", "ppc64el:5.10",
			    "ppc64el:../x-powerpc64le"):
			with self.assertRaises(ValueError):
				guest.resolve(bad)

	def test_foreign_names(self):
		for k in ("arm64:6.1", "arm64:6.12", "6.1.0-56-arm64", "6.12.117+deb12-arm64"):
			self.assertIs(foreign.of(k), foreign.ARM64, k)
		for k in ("ppc64el:6.1", "ppc64el:6.12", "6.1.0-50-powerpc64le"):
			self.assertIs(foreign.of(k), foreign.PPC64EL, k)
		for k in ("6.1", "6.12", "6.1.0-56-amd64", "5.10"):
			self.assertIsNone(foreign.of(k), k)
		self.assertEqual(foreign.ARM64.series_of("arm64:6.12"), "6.12")
		self.assertEqual(foreign.ARM64.series_of("6.1.0-56-arm64"), "6.1.0-56-arm64")
		self.assertEqual(foreign.PPC64EL.series_of("ppc64el:6.1"), "6.1")
		# the kernel image: ppc64el's is vmlinux, an ELF
		self.assertTrue(guest.vmlinuz("6.1.0-50-powerpc64le").endswith(
			"/boot/vmlinux-6.1.0-50-powerpc64le"))
		self.assertTrue(guest.vmlinuz("6.1.0-56-arm64").endswith("/boot/vmlinuz-6.1.0-56-arm64"))
		# a foreign kernel runs emulated, whatever the host's KVM
		for k in ("6.1.0-56-arm64", "6.1.0-50-powerpc64le"):
			self.assertEqual(guest.accelerator(None, k), "tcg")
			with self.assertRaises(ValueError):
				guest.accelerator("kvm", k)

	def test_prune_keeps_the_other_architecture(self):
		with tempfile.TemporaryDirectory() as d:
			old, guest.CACHE = guest.CACHE, d
			try:
				for k in ("6.1.0-55-amd64", "6.1.0-55-arm64", "6.1.0-49-powerpc64le",
			  "6.12.1+deb12-amd64"):
					os.makedirs(os.path.join(d, k))
					open(os.path.join(d, k, "ready"), "w").close()
				guest.prune("6.1.0-56-amd64")
			finally:
				guest.CACHE = old
			self.assertEqual(sorted(os.listdir(d)), ["6.1.0-49-powerpc64le", "6.1.0-55-arm64",
							       "6.12.1+deb12-amd64"])

	def test_sysroot_stamp_follows_the_package_list(self):
		with tempfile.TemporaryDirectory() as d:
			stamp = os.path.join(d, "stamp")
			self.assertFalse(foreign.made(stamp))
			with open(stamp, "w") as f:
				f.write(" ".join(foreign.PACKAGES) + "\n")
			self.assertTrue(foreign.made(stamp))
			with open(stamp, "w") as f:
				f.write(" ".join(foreign.PACKAGES[1:]) + "\n")
			self.assertFalse(foreign.made(stamp))

	def test_elf_machine(self):
		self.assertIsNone(foreign.elf_machine(__file__))
		self.assertIsNotNone(foreign.elf_machine(sys.executable))
		if os.uname().machine == "x86_64":
			self.assertEqual(foreign.elf_machine(sys.executable), foreign.EM_X86_64)
			for a in foreign.ARCHES:
				self.assertNotEqual(foreign.elf_machine(sys.executable), a.em)

	def test_static_elf(self):
		static_busybox = subprocess.run(
			["dpkg-query", "-W", "-f=${Status}", "busybox-static"], stdout=subprocess.PIPE,
			stderr=subprocess.DEVNULL, text=True).stdout.endswith("ok installed")
		if static_busybox:  # what the initramfs is built from
			self.assertTrue(guest.static_elf("/bin/busybox"))
		self.assertFalse(guest.static_elf(sys.executable))  # a dynamic executable
		self.assertFalse(guest.static_elf(__file__))  # not ELF at all


class ScriptTest(unittest.TestCase):
	def test_argv_is_quoted_a_string_is_shell(self):
		s = guest.guest_script(["echo", "a b", "$HOME"], "/tmp/x y", {"LL_A": "1 2"})
		self.assertIn("cd '/tmp/x y' || exit 125", s)
		self.assertIn("export LL_A='1 2'", s)
		self.assertTrue(s.rstrip().endswith("echo 'a b' '$HOME'"))
		s = guest.guest_script(["uname -r; id"], "/", {})
		self.assertTrue(s.rstrip().endswith("uname -r; id"))

	def test_printk_lines(self):
		self.assertTrue(guest.is_printk("[    1.234567] virtio_net: probe\n"))
		self.assertFalse(guest.is_printk("ok   check   --check exit 0\n"))


class LaneTest(unittest.TestCase):
	def test_lanes_at_once_with_a_core_per_vcpu(self):
		lanes, at_once = matrix.plan(["5.10", "6.1,6.12"], 2, 1, False)
		self.assertEqual(lanes, [["5.10"], ["6.1", "6.12"]])
		self.assertTrue(at_once)
		self.assertFalse(matrix.plan(["5.10", "6.1,6.12"], 2, 2, False)[1])  # 4 vCPUs
		self.assertFalse(matrix.plan(["5.10", "6.1", "6.12"], 2, 1, False)[1])  # 3 lanes
		self.assertFalse(matrix.plan(["5.10", "6.1,6.12"], 2, 1, True)[1])  # --serial
		self.assertFalse(matrix.plan(["6.1,6.12"], 16, 1, False)[1])  # one lane

	def test_debian_versions_keep_their_plus(self):
		lanes, _ = matrix.plan(["6.12.117+deb12-amd64,arm64:6.12"], 2, 1, False)
		self.assertEqual(lanes, [["6.12.117+deb12-amd64", "arm64:6.12"]])

	def test_an_empty_kernel_is_refused(self):
		for bad in (["6.1,"], [",6.1"], ["6.1,,6.12"], [""]):
			with self.assertRaises(ValueError):
				matrix.plan(bad, 2, 1, False)


class UsableTest(unittest.TestCase):
	"""Which kernels of the lanes can run: fake builds (an ELF header of the right machine) in a
	temporary folder, a fake fetch."""

	class G:
		Skip = initramfs.Skip
		SRC = "/nonexistent"

		def __init__(self, unfetchable=()):
			self.unfetchable = unfetchable

		def fetch(self, k):
			if k in self.unfetchable:
				raise self.Skip("cannot download " + k)
			return k

	def build(self, em):
		d = tempfile.mkdtemp()
		self.addCleanup(shutil.rmtree, d)
		for b in ("loadlens-observer", "loadlens-driver", "loadlens-refserver"):
			path = os.path.join(d, b)
			with open(path, "wb") as f:
				f.write(b"\x7fELF" + bytes(14) + em.to_bytes(2, "little"))
			os.chmod(path, 0o755)
		return d

	def args(self, bindir, skip_unbuilt):
		class A:
			pass
		a = A()
		a.bin, a.skip_unbuilt = bindir, skip_unbuilt
		return a

	def test_bin_applies_to_its_architecture_only(self):
		host = self.build(foreign.EM_X86_64)
		arm = self.build(foreign.ARM64.em)
		g = self.G()
		self.assertEqual(matrix.bin_for(self.args(host, False), g, "6.1"), host)
		self.assertNotEqual(matrix.bin_for(self.args(host, False), g, "arm64:6.12"), host)
		self.assertEqual(matrix.bin_for(self.args(arm, False), g, "arm64:6.12"), arm)
		self.assertNotEqual(matrix.bin_for(self.args(arm, False), g, "6.1"), arm)
		empty = tempfile.mkdtemp()
		self.addCleanup(shutil.rmtree, empty)  # not built: the host's, so the error names it
		self.assertEqual(matrix.bin_for(self.args(empty, False), g, "6.1"), empty)

	def test_an_unbuilt_foreign_kernel_is_left_out_with_skip_unbuilt(self):
		host = self.build(foreign.EM_X86_64)
		os.environ["LOADLENS_ARM64_BIN"] = "/nonexistent/build-arm64/bin"
		self.addCleanup(os.environ.pop, "LOADLENS_ARM64_BIN")
		lanes = [["5.10", "arm64:6.12"], ["6.1", "6.12"]]
		kept, out, fail = matrix.usable(self.args(host, True), self.G(), lanes)
		self.assertIsNone(fail)
		self.assertEqual(kept, [["5.10"], ["6.1", "6.12"]])
		self.assertEqual(len(out), 1)
		self.assertIn("arm64:6.12", out[0])
		self.assertIn("tools/loadlens cross arm64", out[0])
		# without --skip-unbuilt it fails, naming the build
		kept, out, fail = matrix.usable(self.args(host, False), self.G(), lanes)
		self.assertIn("/nonexistent/build-arm64/bin/loadlens-observer is not built", fail)

	def test_an_unbuilt_host_build_fails_even_with_skip_unbuilt(self):
		empty = tempfile.mkdtemp()
		self.addCleanup(shutil.rmtree, empty)
		_, _, fail = matrix.usable(self.args(empty, True), self.G(), [["6.1"]])
		self.assertIn("is not built", fail)

	def test_the_wrong_architecture_fails(self):
		arm = self.build(foreign.ARM64.em)
		os.environ["LOADLENS_BIN"] = arm
		self.addCleanup(os.environ.pop, "LOADLENS_BIN")
		_, _, fail = matrix.usable(self.args(None, True), self.G(), [["6.1"]])
		self.assertIn("is not built for 6.1's architecture", fail)

	def test_a_bin_for_no_kernel_given_is_refused(self):
		a = self.args(self.build(foreign.ARM64.em), True)
		a.kernels, a.cpus, a.serial = ["6.1,6.12"], 1, False
		with self.assertRaisesRegex(ValueError, "built for no kernel given"):
			matrix.test(a, self.G())

	def test_an_unfetchable_kernel_is_left_out_and_an_empty_lane_goes(self):
		host = self.build(foreign.EM_X86_64)
		kept, out, fail = matrix.usable(self.args(host, True), self.G(("5.10",)),
						[["5.10"], ["6.1", "6.12"]])
		self.assertEqual((kept, fail), ([["6.1", "6.12"]], None))
		self.assertEqual(out, ["5.10: cannot download 5.10"])


if __name__ == "__main__":
	unittest.main()
