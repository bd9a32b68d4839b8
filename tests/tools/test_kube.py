# SPDX-License-Identifier: MIT
"""tools/kube: the kubelet's $(VAR) expansion and env resolution, quantities, the podman flags
of a pod template, the image's Depends and ld.so parsing; and the real manifests' templates."""
import os
import unittest

from kube import Usage, image, pods

MANIFESTS = os.path.join(os.path.dirname(__file__), "..", "..", "packaging", "kubernetes")


class Expand(unittest.TestCase):
	def test_defined_undefined_and_escaped(self):
		env = {"I": "3", "N": "4"}
		self.assertEqual(pods.expand("$(I)/$(N)", env), "3/4")
		self.assertEqual(pods.expand("$(NOPE)-$(I)", env), "$(NOPE)-3")
		self.assertEqual(pods.expand("$$(I) $$", env), "$(I) $")

	def test_environment_in_order(self):
		c = {"env": [{"name": "A", "value": "x"}, {"name": "B", "value": "$(A)-$(C)"},
			     {"name": "C", "valueFrom": {"configMapKeyRef": {"name": "m", "key": "k"}}},
			     {"name": "D", "valueFrom": {"fieldRef": {"fieldPath": "status.hostIP"}}}]}
		env = pods.environment(c, {"m": {"k": "v"}}, {"status.hostIP": "10.0.0.1"},
				       extra={"JOB_COMPLETION_INDEX": "2"})
		self.assertEqual(env, {"JOB_COMPLETION_INDEX": "2", "A": "x", "B": "x-$(C)", "C": "v",
				       "D": "10.0.0.1"})
		with self.assertRaises(Usage):
			pods.environment(c, {"m": {}}, {"status.hostIP": "1"})


class Flags(unittest.TestCase):
	def test_quantity(self):
		self.assertEqual(pods.quantity("256Mi"), 256 * 2 ** 20)
		self.assertEqual(pods.quantity("500m"), 0.5)
		with self.assertRaises(Usage):
			pods.quantity("12parsecs")

	def test_security(self):
		spec = {"securityContext": {"runAsUser": 10001, "seccompProfile": {"type": "RuntimeDefault"}},
			"hostPID": True}
		c = {"name": "x", "securityContext": {"runAsUser": 0, "allowPrivilegeEscalation": False,
						      "capabilities": {"drop": ["ALL"], "add": ["BPF", "PERFMON"]},
						      "seccompProfile": {"type": "Unconfined"}}}
		f = pods.security_flags(spec, c)
		self.assertIn("0:0", f)
		self.assertIn("--cap-drop=all", f)
		self.assertIn("--cap-add=CAP_BPF,CAP_PERFMON", f)
		self.assertIn("seccomp=unconfined", f)
		self.assertIn("no-new-privileges", f)
		self.assertEqual(f[f.index("--pid") + 1], "host")
		with self.assertRaises(Usage):
			pods.security_flags({}, {"name": "p", "securityContext": {"privileged": True}})


class Manifests(unittest.TestCase):
	def setUp(self):
		if pods.yaml is None:
			self.skipTest("python3-yaml is not installed")
		self.docs = pods.load(MANIFESTS)

	def test_driver_pod_as_the_kubelet_runs_it(self):
		job = pods.get(self.docs, "Job", "loadlens-drivers")
		spec = job["spec"]["template"]["spec"]
		c = spec["containers"][0]
		cms = {"loadlens-run": pods.get(self.docs, "ConfigMap", "loadlens-run")["data"]}
		env = pods.environment(c, cms, {}, extra={"JOB_COMPLETION_INDEX": "3"})
		argv = pods.podman_args(spec, c, env, {"loadlens-results": "/tmp/r"})
		n = job["spec"]["completions"]
		self.assertIn("3/%d" % n, argv)
		self.assertIn("/results/shard-3.json", argv)
		self.assertNotIn("$(", " ".join(argv[argv.index(c["image"]):]))
		self.assertIn("/tmp/r:/results", argv)

	def test_observer_pod_has_no_sys_admin(self):
		ds = pods.get(self.docs, "DaemonSet", "loadlens-observer")
		c = ds["spec"]["template"]["spec"]["containers"][0]
		f = pods.security_flags(ds["spec"]["template"]["spec"], c)
		self.assertIn("--cap-drop=all", f)
		self.assertNotIn("SYS_ADMIN", " ".join(f))


class Image(unittest.TestCase):
	def test_depends(self):
		self.assertEqual(image.depends("adduser, libc6 (>= 2.34), libssl3 | libssl1.1, zlib1g:amd64"),
				 ["libc6", "libssl3", "zlib1g"])

	def test_ld_so_list(self):
		out = ("\tlinux-vdso.so.1 (0x00007ffd)\n\tlibuv.so.1 => /lib/x86_64-linux-gnu/libuv.so.1 (0x1)\n"
		       "\tlibfoo.so.2 => not found\n\t/lib64/ld-linux-x86-64.so.2 (0x2)\n")
		found, missing = image.needed_libraries(out)
		self.assertEqual(found, ["/lib/x86_64-linux-gnu/libuv.so.1", "/lib64/ld-linux-x86-64.so.2"])
		self.assertEqual(missing, ["libfoo.so.2"])


if __name__ == "__main__":
	unittest.main()
