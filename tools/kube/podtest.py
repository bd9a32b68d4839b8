# SPDX-License-Identifier: MIT
"""loadlens k8s test: packaging/kubernetes/'s pod templates run here under podman, from the very
YAML files, as the kubelet would run them (pods.py), on loopback:

  1. a refserver (the image's, as its user) on 127.0.0.1:PORT, its counts written at SIGTERM;
  2. the observer DaemonSet's pod with the template's capabilities, seccomp, hostPID, mounts
     and memory limit (the node's tracefs: the host's, or one mounted here for the test), its
     PORT from the ConfigMap set to the refserver's;
  3. the driver Job's N pods at once, each with JOB_COMPLETION_INDEX set as the Job controller
     sets it and the ConfigMap loadlens-run pointed at the refserver, one START_AT;
  4. the merge Job's pod over the same results folder (the PersistentVolumeClaim);
then it exits 0 only when the merged requests = the refserver's responses = the observer's
loadlens_requests_total on the port, with merged_from = N, no error, every shard non-empty, and
the observer running as loadlens with no capability. Every wait is bounded.

  loadlens k8s caps: the observer's pod once with its capability set, then once without each of
  them and once with each of CAP_NET_ADMIN, CAP_SYS_RESOURCE, CAP_SYS_ADMIN more, and once under
  the runtime's default seccomp profile: what each run did (README's table).
"""
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

from . import say, podman_run, Parser, Usage, Failure, Skip
from . import pods

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MANIFESTS = os.path.join(ROOT, "packaging", "kubernetes")
LABEL = "loadlens-k8s-test"
TRACEFS = "/sys/kernel/tracing"


def free_port():
	with socket.socket() as s:
		s.bind(("127.0.0.1", 0))
		return s.getsockname()[1]


def port_free(port):
	with socket.socket() as s:
		# as a server binds: TIME_WAIT of an earlier scrape does not make it busy
		s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
		try:
			s.bind(("127.0.0.1", port))
			return True
		except OSError:
			return False


def sh(cmd, timeout=60, check=True):
	try:
		p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
				   timeout=timeout)
	except subprocess.TimeoutExpired:
		raise Failure("%s did not finish in %d s" % (" ".join(cmd[:3]), timeout)) from None
	if check and p.returncode != 0:
		raise Failure("%s failed (exit %d): %s" % (" ".join(cmd[:4]), p.returncode,
							   p.stdout.strip()[-800:]))
	return p


class Node:
	"""One test's containers, folders and tracefs, all removed at the end."""

	def __init__(self, runtime, keep):
		self.runtime = runtime
		self.keep = keep
		self.work = tempfile.mkdtemp(prefix="loadlens-k8s.")
		os.chmod(self.work, 0o755)
		self.names = []
		self.mounted = None

	def tracefs(self):
		"""The node's /sys/kernel/tracing: the host's if tracefs is mounted there (systemd does
		it on a node), else one mounted for this test (hostPath source)."""
		with open("/proc/self/mounts") as f:
			if any(l.split()[1] == TRACEFS and l.split()[2] == "tracefs" for l in f):
				return {}
		d = os.path.join(self.work, "tracefs")
		os.makedirs(d)
		sh(["mount", "-t", "tracefs", "nodev", d])
		self.mounted = d
		return {TRACEFS: d}

	def start(self, name, args):
		self.names.append(name)
		sh(podman_run(self.runtime) + ["-d", "--label", LABEL] + args, timeout=60)

	def state(self, name):
		out = sh(["podman", "inspect", "--format", "{{.State.Status}} {{.State.ExitCode}} "
			  "{{.State.Pid}} {{.State.CgroupPath}}", name]).stdout.split()
		return out[0], int(out[1]), int(out[2]), (out[3] if len(out) > 3 else "")

	def logs(self, name):
		return sh(["podman", "logs", name], check=False).stdout

	def wait(self, names, deadline, peaks):
		"""Wait for NAMES to exit, each 0, sampling their memory peaks; by DEADLINE."""
		left = list(names)
		while left:
			for n in list(left):
				status, code, pid, cg = self.state(n)
				if status in ("exited", "stopped"):
					if code != 0:
						raise Failure("pod %s exited %d:\n%s" % (n, code, self.logs(n)[-1500:]))
					left.remove(n)
				else:
					peak = memory_peak(cg)
					if peak:
						peaks[n] = max(peaks.get(n, 0), peak)
			if left and time.monotonic() > deadline:
				raise Failure("pods %s still running at the deadline" % ", ".join(left))
			time.sleep(0.3)

	def stop(self, name, timeout=20):
		sh(["podman", "stop", "-t", str(timeout), name], timeout=timeout + 30)

	def close(self):
		for n in self.names:
			subprocess.run(["podman", "rm", "-f", n], stdout=subprocess.DEVNULL,
				       stderr=subprocess.DEVNULL)
		if self.mounted:
			subprocess.run(["umount", self.mounted])
		if self.keep:
			say("kept %s" % self.work)
		else:
			shutil.rmtree(self.work, ignore_errors=True)


def memory_peak(cgroup):
	"""A running container's memory high-water mark in bytes (cgroup v2 memory.peak, v1
	memory.max_usage_in_bytes), or None."""
	if not cgroup:
		return None
	for f in ("/sys/fs/cgroup/%s/memory.peak" % cgroup.strip("/"),
		  "/sys/fs/cgroup/memory/%s/memory.max_usage_in_bytes" % cgroup.strip("/")):
		try:
			with open(f) as fh:
				return int(fh.read())
		except (OSError, ValueError):
			continue
	return None


def scrape(port, timeout=2):
	with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=timeout) as r:
		return r.read().decode()


def metric_sum(text, name, **labels):
	"""The sum of NAME's samples whose labels include LABELS."""
	total, seen = 0.0, False
	for line in text.splitlines():
		if not line.startswith(name + "{") and not line.startswith(name + " "):
			continue
		m = re.match(r"^(\w+)(?:\{(.*)\})?\s+(\S+)", line)
		if not m or m.group(1) != name:
			continue
		have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2) or ""))
		if all(have.get(k) == str(v) for k, v in labels.items()):
			total += float(m.group(3))
			seen = True
	return total if seen else None


def proc_status(pid):
	"""{Uid, CapEff, ...} of a host pid."""
	out = {}
	with open("/proc/%d/status" % pid) as f:
		for line in f:
			k, _, v = line.partition(":")
			out[k] = v.split()
	return out


def prerequisites(args):
	if os.geteuid() != 0:
		raise Skip("not root: the observer's pod loads BPF programs")
	for tool in ("podman", args.runtime):
		if not shutil.which(tool):
			raise Skip("%s is not installed (tools/loadlens k8s test installs it)" % tool)
	if pods.yaml is None:
		raise Skip("python3-yaml is not installed (tools/loadlens k8s test installs it)")


def image_present(tag):
	return subprocess.run(["podman", "image", "exists", tag]).returncode == 0


def templates(docs):
	job = pods.get(docs, "Job", "loadlens-drivers")
	merge = pods.get(docs, "Job", "loadlens-merge")
	ds = pods.get(docs, "DaemonSet", "loadlens-observer")
	if job["spec"].get("completionMode") != "Indexed":
		raise Usage("Job loadlens-drivers is not Indexed")
	n = job["spec"]["completions"]
	if job["spec"].get("parallelism") != n:
		raise Usage("Job loadlens-drivers: parallelism %s != completions %s" % (
			job["spec"].get("parallelism"), n))
	return job, merge, ds, n


def observer_pod(node, docs, ds, port, host_paths, name, cap_change=None, seccomp=None):
	"""podman args of the DaemonSet's pod watching PORT; CAP_CHANGE (drop, add) alters its
	capabilities, SECCOMP its profile (the caps measurement)."""
	spec = json.loads(json.dumps(ds["spec"]["template"]["spec"]))
	c = spec["containers"][0]
	if cap_change:
		caps = c["securityContext"]["capabilities"]
		drop, add = cap_change
		caps["add"] = [x for x in caps.get("add", []) if x != drop] + ([add] if add else [])
	if seccomp:
		c["securityContext"]["seccompProfile"] = {"type": seccomp}
	cms = {"loadlens-observer": dict(pods.get(docs, "ConfigMap", "loadlens-observer")["data"])}
	cms["loadlens-observer"]["PORT"] = str(port)
	# hostNetwork: the pod's IP and the node's are the node's; here the node is loopback
	env = pods.environment(c, cms, {"status.hostIP": "127.0.0.1", "status.podIP": "127.0.0.1",
					 "metadata.name": name, "spec.nodeName": "localhost"})
	return pods.podman_args(spec, c, env, {}, host_paths, name=name)


def metrics_port(ds):
	args = ds["spec"]["template"]["spec"]["containers"][0].get("args", [])
	for i, a in enumerate(args[:-1]):
		if a == "--metrics":
			return int(args[i + 1].rsplit(":", 1)[1])
	raise Usage("the observer's args have no --metrics ADDR:PORT")


def wait_metrics(node, name, port, deadline):
	while True:
		status = node.state(name)[0]
		if status != "running":
			raise Failure("the observer's pod is %s:\n%s" % (status, node.logs(name)[-1500:]))
		try:
			return scrape(port)
		except OSError:
			if time.monotonic() > deadline:
				raise Failure("the observer served no /metrics on 127.0.0.1:%d in time" % port)
			time.sleep(0.3)


def test(args):
	prerequisites(args)
	t0 = time.monotonic()
	deadline = t0 + args.timeout
	docs = pods.load(args.manifests)
	job, merge, ds, n = templates(docs)
	image = job["spec"]["template"]["spec"]["containers"][0]["image"]
	if args.build_image or not image_present(image):
		from . import image as img
		say("building %s first" % image)
		img.build(img.main_args(["build", "--build", args.build, "--runtime", args.runtime]))
	if not image_present(image):
		raise Failure("%s is not in podman after the build: the manifests name another tag"
			      % image)
	mport = metrics_port(ds)
	if not port_free(mport):
		raise Failure("127.0.0.1:%d is in use: the observer's pod listens there (hostNetwork)"
			      % mport)
	node = Node(args.runtime, args.keep)
	try:
		results = os.path.join(node.work, "results")  # the PersistentVolumeClaim
		os.makedirs(results)
		fsgroup = job["spec"]["template"]["spec"].get("securityContext", {}).get("fsGroup")
		if fsgroup is not None:  # the kubelet makes a volume writable by fsGroup
			os.chown(results, 0, fsgroup)
			os.chmod(results, 0o2775)
		claims = {"loadlens-results": results}
		host_paths = node.tracefs()
		port = free_port()
		tag = "%d-%d" % (os.getpid(), port)

		say("refserver on 127.0.0.1:%d" % port)
		rs = "ll-refserver-" + tag
		node.start(rs, ["--network", "host", "--name", rs, "--user", "%d:%d" % (fsgroup, fsgroup),
				"--cap-drop=all", "-v", "%s:/results" % results, image,
				"/usr/bin/loadlens-refserver", "--proto", "http", "--listen",
				"127.0.0.1:%d" % port, "--json", "/results/refserver.json"])

		say("the observer DaemonSet's pod (its template's capabilities only)")
		obs = "ll-observer-" + tag
		node.start(obs, observer_pod(node, docs, ds, port, host_paths, obs))
		wait_metrics(node, obs, mport, min(deadline, time.monotonic() + 60))
		ostat = proc_status(node.state(obs)[2])

		cms = {"loadlens-run": dict(pods.get(docs, "ConfigMap", "loadlens-run")["data"])}
		start_at = int(time.time()) + args.lead
		cms["loadlens-run"].update(TARGET="http://127.0.0.1:%d/" % port, START_AT=str(start_at),
					   CONNECTIONS=str(args.connections), RATE=args.rate,
					   DURATION=args.duration)
		spec = job["spec"]["template"]["spec"]
		c = spec["containers"][0]
		say("the driver Job's %d pods, start at %d (in %d s): %s total over %s" % (
			n, start_at, args.lead, args.rate, args.duration))
		names, peaks = [], {}
		for i in range(n):
			name = "ll-driver-%d-%s" % (i, tag)
			env = pods.environment(c, cms, {"metadata.name": name},
					       extra={"JOB_COMPLETION_INDEX": str(i)})
			node.start(name, pods.podman_args(spec, c, env, claims, name=name))
			names.append(name)
		node.wait(names, deadline, peaks)

		say("the merge Job's pod")
		mspec = merge["spec"]["template"]["spec"]
		mc = mspec["containers"][0]
		mname = "ll-merge-" + tag
		node.start(mname, pods.podman_args(mspec, mc, pods.environment(mc, {}, {}), claims,
						   name=mname))
		node.wait([mname], deadline, peaks)
		print(node.logs(mname).rstrip())

		with open(os.path.join(results, "merged.json")) as f:
			merged = json.load(f)
		shards = []
		for i in range(n):
			with open(os.path.join(results, "shard-%d.json" % i)) as f:
				shards.append(json.load(f)["requests"])
		# the observer ticks once a second: its count settles within a few
		observed, until = None, time.monotonic() + 10
		while time.monotonic() < until:
			observed = metric_sum(scrape(mport), "loadlens_requests_total", port=port)
			if observed == merged["requests"]:
				break
			time.sleep(0.5)
		fds = metric_sum(scrape(mport), "loadlens_process_open_fds")
		opeak = memory_peak(node.state(obs)[3])
		node.stop(obs)
		node.stop(rs)
		with open(os.path.join(results, "refserver.json")) as f:
			served = json.load(f)["responses"]

		peaks_mb = {k.split("-" + tag)[0]: round(v / 2 ** 20, 1) for k, v in peaks.items()}
		if opeak:
			peaks_mb["observer"] = round(opeak / 2 ** 20, 1)
		report = {"shards": shards, "merged": merged["requests"],
			  "merged_from": merged.get("merged_from"), "errors": merged.get("errors_total"),
			  "refserver": served, "observer": observed, "observer_uid": ostat["Uid"],
			  "observer_capeff": ostat["CapEff"][0], "observer_fds_seen": fds is not None,
			  "memory_peak_mib": peaks_mb, "seconds": round(time.monotonic() - t0, 1)}
		print(json.dumps(report))
		problems = []
		if merged.get("merged_from") != n:
			problems.append("merged_from %s, not %d" % (merged.get("merged_from"), n))
		if any(s == 0 for s in shards):
			problems.append("a shard made no request: %s" % shards)
		if merged.get("errors_total") != 0:
			problems.append("%s errors" % merged.get("errors_total"))
		if not (merged["requests"] == served == observed):
			problems.append("merged %s, refserver %s, observer %s: not equal" % (
				merged["requests"], served, observed))
		if sum(shards) != merged["requests"]:
			problems.append("the shards add to %d, the merge says %d" % (sum(shards), merged["requests"]))
		if any(u != str(pods_uid(ds)) for u in ostat["Uid"]):
			problems.append("the observer runs as uid %s, not loadlens" % ostat["Uid"])
		if int(ostat["CapEff"][0], 16) != 0:
			problems.append("the observer kept capabilities %s" % ostat["CapEff"][0])
		if fds is None:
			problems.append("the observer sees no process's fds (hostPID)")
		if problems:
			raise Failure("; ".join(problems))
		say("ok: %d shards, merged %d = refserver %d = observer %d, in %.0f s" % (
			n, merged["requests"], served, observed, time.monotonic() - t0))
	finally:
		node.close()
	return 0


def pods_uid(ds):
	"""The user the observer changes to: the image's loadlens."""
	from .image import LOADLENS_UID
	return LOADLENS_UID


def caps(args):
	"""The observer's pod with one capability less, or one more, each: exit and last line."""
	prerequisites(args)
	docs = pods.load(args.manifests)
	_, _, ds, _ = templates(docs)
	have = ds["spec"]["template"]["spec"]["containers"][0]["securityContext"]["capabilities"]["add"]
	node = Node(args.runtime, args.keep)
	rows = []
	try:
		host_paths = node.tracefs()
		port = free_port()
		trials = [("template", None, None)]
		trials += [("without CAP_%s" % c, (c, None), None) for c in have]
		trials += [("with CAP_%s more" % c, (None, c), None)
			   for c in ("NET_ADMIN", "SYS_RESOURCE", "SYS_ADMIN") if c not in have]
		trials += [("seccomp RuntimeDefault", None, "RuntimeDefault"),
			   ("seccomp RuntimeDefault, CAP_SYS_ADMIN more", (None, "SYS_ADMIN"),
			    "RuntimeDefault")]
		for i, (what, change, seccomp) in enumerate(trials):
			name = "ll-caps-%d-%d" % (os.getpid(), i)
			argv = observer_pod(node, docs, ds, port, host_paths, name, change, seccomp)
			# one short run, its summary at --duration, no /metrics
			cut = argv.index("--metrics")
			argv = argv[:cut] + argv[cut + 2:] + ["--duration", "2s"]
			node.names.append(name)
			p = sh(podman_run(args.runtime) + argv, timeout=90, check=False)
			lines = [l for l in p.stdout.splitlines() if "loadlens-observer:" in l
				 and "note:" not in l] or p.stdout.strip().splitlines()[-1:]
			rows.append({"run": what, "exit": p.returncode,
				     "said": (lines[-1] if p.returncode else "ran; summary written")})
			print(json.dumps(rows[-1]), flush=True)
	finally:
		node.close()
	return 0


def main(argv):
	p = Parser(prog="loadlens k8s", description=(
		"run packaging/kubernetes/'s pod templates under podman as a kubelet would"))
	sub = p.add_subparsers(dest="cmd")
	for cmd in ("test", "caps"):
		s = sub.add_parser(cmd)
		s.add_argument("--manifests", default=MANIFESTS, help="the manifests' folder")
		s.add_argument("--runtime", default="runc", help="podman's OCI runtime (default runc)")
		s.add_argument("--keep", action="store_true", help="keep the work folder")
	t = sub.choices["test"]
	t.add_argument("--build", default=os.environ.get("LOADLENS_BUILD", os.path.join(ROOT, "build")),
		       help="the build tree the image is made from when it is missing (default build/)")
	t.add_argument("--build-image", action="store_true", help="build the image even if present")
	t.add_argument("--rate", default="4k", help="total rate over all shards (default 4k)")
	t.add_argument("--duration", default="3s", help="each shard's -d (default 3s)")
	t.add_argument("--connections", type=int, default=8, help="each shard's -c (default 8)")
	t.add_argument("--lead", type=int, default=8,
		       help="seconds from now to the common --start-at (default 8)")
	t.add_argument("--timeout", type=int, default=240, help="the whole test's bound (default 240 s)")
	args = p.parse_args(argv)
	if args.cmd is None:
		raise Usage("usage: tools/loadlens k8s test|caps [options]")
	if args.cmd == "test":
		if not 1 <= args.lead <= 120 or not 10 <= args.timeout <= 3600 or args.connections < 1:
			raise Usage("--lead 1..120, --timeout 10..3600, --connections >= 1")
		return test(args)
	return caps(args)
