"""What every module of the scenario harness shares: paths, timing constants, outcomes."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("LOADLENS_BIN") or os.path.normpath(os.path.join(HERE, "../../../build/bin"))
PY = "/usr/bin/python3"
SERVERS = os.path.join(HERE, "servers.py")
SERVERS_SH = os.path.normpath(os.path.join(HERE, "../lib/servers.sh"))  # the tests' server set-ups
INTERVAL = 0.5	# observer --interval, s
SLACK = 0.1	# scheduling jitter allowed on top of 2 intervals, s
# How late after the onset a sick scenario's finding may come: 2 intervals + SLACK. Under an
# emulated CPU (qemu TCG: LL_EMULATED_CPU=1, set by tools/kernels/guest.py) one interval more:
# there a freshly started server can take 0.5 s to accept its first connections, so the first
# requests wait in the accept queue, which the client sees and the socket-queue rules do not
# (docs/kernels.md, "Three timing limits are loosened").
EMULATED_CPU = os.environ.get("LL_EMULATED_CPU") == "1"
LATE_LIMIT = (3 if EMULATED_CPU else 2) * INTERVAL + SLACK
POLL = 0.05	# onset probes' period, s
# Under an emulated CPU slower than the kernel matrix was sized for (tests/kernels/suite.py), a healthy
# scenario's open-loop rates are scaled by LL_LOAD_SCALE (tests/kernels/suite.py measures the
# guest and sets it): a load the host's server carries easily must not saturate the guest's for
# real, which would make a true worker_saturation of a scenario meant to be silent. Sick
# scenarios keep their load: a slower CPU only makes them sicker.
LOAD_SCALE = min(1.0, max(0.05, float(os.environ.get("LL_LOAD_SCALE", "1"))))


def scaled_loads(loads, scale):
	"""The loads with every driver's --rate times scale (at least 10/s), the others as given."""
	out = []
	for l in loads:
		a = list(l.get("args", []))
		if l.get("kind") == "driver" and scale < 1:
			for i in range(len(a) - 1):
				if a[i] == "--rate":
					a[i + 1] = str(max(10, int(float(a[i + 1]) * scale)))
		out.append(dict(l, args=a) if "args" in l else l)
	return out


class Skip(Exception):
	"""A prerequisite is truly absent: exit 77 with the reason."""


class Fail(Exception):
	"""The scenario could not run as written (not a finding's fault): exit 1."""


def log(msg):
	print(msg, flush=True)
