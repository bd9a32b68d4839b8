# SPDX-License-Identifier: MIT
"""A pod template of packaging/kubernetes/*.yaml as the podman command a kubelet's work would be.

Pure logic, no podman run here (tests/tools/test_kube.py): the manifests' documents by kind and
name, a container's environment (value, configMapKeyRef, fieldRef, the Job controller's
JOB_COMPLETION_INDEX), the kubelet's $(VAR) expansion of command and args, and the flags for
its securityContext, resources and volumes. What a kubelet does that this does not: the pod's
own network namespace (every pod here shares the host's, for loopback), image pulls, probes.
"""
import glob
import os
import re

from . import Usage

try:
	import yaml
except ImportError:  # Debian's python3-yaml; the caller says how to install it
	yaml = None


def load(folder):
	"""{(kind, name): document} of every YAML file in FOLDER."""
	if yaml is None:
		raise Usage("python3-yaml is not installed (apt-get install python3-yaml)")
	docs = {}
	files = sorted(glob.glob(os.path.join(folder, "*.yaml")))
	if not files:
		raise Usage("no manifest (*.yaml) in %s" % folder)
	for f in files:
		with open(f) as fh:
			for d in yaml.safe_load_all(fh):
				if d:
					docs[(d["kind"], d["metadata"]["name"])] = d
	return docs


def get(docs, kind, name):
	try:
		return docs[(kind, name)]
	except KeyError:
		raise Usage("no %s %s in the manifests" % (kind, name)) from None


_VAR = re.compile(r"\$(\$|\(([A-Za-z_][A-Za-z0-9_.-]*)\))")


def expand(s, env):
	"""The kubelet's expansion of a command or argument: $(NAME) becomes NAME's value when the
	container defines it and stays as written when not; $$ is a literal $."""
	def one(m):
		if m.group(1) == "$":
			return "$"
		name = m.group(2)
		return env[name] if name in env else m.group(0)
	return _VAR.sub(one, s)


def field(path, pod):
	"""A fieldRef's value from POD (metadata.name, status.hostIP ...)."""
	if path not in pod:
		raise Usage("fieldRef %s: not one this emulation sets (%s)" % (path, ", ".join(sorted(pod))))
	return pod[path]


def environment(container, configmaps, pod, extra=None):
	"""The container's variables in order, as the kubelet resolves them: value (with $(VAR) of
	those before it expanded), configMapKeyRef from CONFIGMAPS {name: data}, fieldRef from POD;
	EXTRA (the Job controller's JOB_COMPLETION_INDEX) first."""
	env = dict(extra or {})
	for e in container.get("env", []):
		name = e["name"]
		if "value" in e:
			env[name] = expand(str(e["value"]), env)
			continue
		src = e.get("valueFrom", {})
		if "configMapKeyRef" in src:
			ref = src["configMapKeyRef"]
			data = configmaps.get(ref["name"])
			if data is None or ref["key"] not in data:
				raise Usage("env %s: configMap %s has no key %s" % (name, ref["name"], ref["key"]))
			env[name] = str(data[ref["key"]])
		elif "fieldRef" in src:
			env[name] = field(src["fieldRef"]["fieldPath"], pod)
		else:
			raise Usage("env %s: only value, configMapKeyRef and fieldRef are emulated" % name)
	return env


_QUANTITY = re.compile(r"^([0-9.]+)([a-zA-Z]*)$")
_SUFFIX = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "Ki": 1024, "Mi": 1024 ** 2, "Gi": 1024 ** 3,
	   "m": 1e-3}


def quantity(q):
	"""A Kubernetes resource quantity as a number: 256Mi -> 268435456, 500m -> 0.5."""
	m = _QUANTITY.match(str(q))
	if not m or m.group(2) not in _SUFFIX:
		raise Usage("resource quantity %r: not understood" % q)
	return float(m.group(1)) * _SUFFIX[m.group(2)]


def security_flags(pod_spec, container):
	"""podman flags for the pod's and the container's securityContext (the container's wins)."""
	psc = pod_spec.get("securityContext", {})
	csc = container.get("securityContext", {})

	def pick(key):
		return csc[key] if key in csc else psc.get(key)
	if pick("privileged"):
		raise Usage("container %s is privileged: not emulated (and not wanted)" % container["name"])
	flags = []
	uid, gid = pick("runAsUser"), pick("runAsGroup")
	if uid is not None:
		flags += ["--user", "%d:%d" % (uid, gid if gid is not None else uid)]
	if pick("runAsNonRoot") and uid == 0:
		raise Usage("container %s: runAsNonRoot with runAsUser 0" % container["name"])
	caps = csc.get("capabilities", {})
	for c in caps.get("drop", []):
		flags.append("--cap-drop=" + ("all" if c == "ALL" else "CAP_" + c))
	if caps.get("add"):
		flags.append("--cap-add=" + ",".join("CAP_" + c for c in caps["add"]))
	if csc.get("allowPrivilegeEscalation") is False:
		flags += ["--security-opt", "no-new-privileges"]
	if csc.get("readOnlyRootFilesystem"):
		flags.append("--read-only")
	seccomp = (pick("seccompProfile") or {}).get("type", "RuntimeDefault")
	if seccomp == "Unconfined":
		flags += ["--security-opt", "seccomp=unconfined"]
	elif seccomp != "RuntimeDefault":
		raise Usage("seccompProfile %s: not emulated" % seccomp)
	if pod_spec.get("hostPID"):
		flags += ["--pid", "host"]
	return flags


def resource_flags(container):
	"""--memory and --cpus from the container's limits, as the kubelet sets its cgroup."""
	limits = container.get("resources", {}).get("limits", {})
	flags = []
	if "memory" in limits:
		flags += ["--memory", "%d" % quantity(limits["memory"])]
	if "cpu" in limits:
		flags += ["--cpus", "%g" % quantity(limits["cpu"])]
	return flags


def volume_flags(pod_spec, container, claims, host_paths=None):
	"""-v flags for the container's mounts: a persistentVolumeClaim from CLAIMS {claim: dir},
	a hostPath from the host (or HOST_PATHS {path: where this host has it})."""
	vols = {v["name"]: v for v in pod_spec.get("volumes", [])}
	flags = []
	for m in container.get("volumeMounts", []):
		v = vols.get(m["name"])
		if v is None:
			raise Usage("volumeMount %s: no such volume" % m["name"])
		if "persistentVolumeClaim" in v:
			claim = v["persistentVolumeClaim"]["claimName"]
			if claim not in claims:
				raise Usage("volume %s: claim %s is not provided" % (m["name"], claim))
			src = claims[claim]
		elif "hostPath" in v:
			path = v["hostPath"]["path"]
			src = (host_paths or {}).get(path, path)
		else:
			raise Usage("volume %s: only persistentVolumeClaim and hostPath are emulated" % m["name"])
		flags += ["-v", "%s:%s%s" % (src, m["mountPath"], ":ro" if m.get("readOnly") else "")]
	return flags


def command(pod_spec, container, env):
	"""The process the container runs: command and args expanded (no image ENTRYPOINT here)."""
	argv = [expand(str(a), env) for a in container.get("command", []) + container.get("args", [])]
	if not argv:
		raise Usage("container %s has no command: the image's CMD is not what it should run"
			    % container["name"])
	return argv


def podman_args(pod_spec, container, env, claims, host_paths=None, name=None):
	"""Everything after `podman run` for one container of POD_SPEC, up to the image's last arg."""
	flags = ["--network", "host"]
	if name:
		flags += ["--name", name]
	for k, v in env.items():
		flags += ["--env", "%s=%s" % (k, v)]
	flags += security_flags(pod_spec, container) + resource_flags(container)
	flags += volume_flags(pod_spec, container, claims, host_paths)
	return flags + [container["image"]] + command(pod_spec, container, env)
