# SPDX-License-Identifier: MIT
"""loadlens image build, loadlens k8s test: the image and the Kubernetes manifests
(packaging/kubernetes/), run here under podman as a kubelet would (tools/loadlens)."""
import argparse
import sys


class Usage(Exception):
	"""Bad input: one line, exit 64."""


class Failure(Exception):
	"""A step failed: its message, exit 1."""


class Skip(Exception):
	"""A prerequisite is truly missing: its reason, exit 77."""


class Parser(argparse.ArgumentParser):
	def error(self, message):
		raise Usage("%s: %s" % (self.prog, message))


def say(msg):
	print("loadlens: %s" % msg, file=sys.stderr, flush=True)


def podman_run(runtime="runc"):
	"""`podman run` with RUNTIME (runc: crun cannot set rlimits in some sandboxes) and the
	rlimits a container starts with given explicitly: this process's RLIMIT_NOFILE, and 4096
	processes (podman's default, the host's own limits, is refused where raising them is)."""
	import resource
	_, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
	return ["podman", "run", "--runtime", runtime, "--ulimit", "nofile=%d:%d" % (hard, hard),
		"--ulimit", "nproc=4096:4096"]
