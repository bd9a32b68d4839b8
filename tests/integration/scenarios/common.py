"""What every module of the scenario harness shares: paths, timing constants, outcomes."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("LOADLENS_BIN") or os.path.normpath(os.path.join(HERE, "../../../build/bin"))
PY = "/usr/bin/python3"
SERVERS = os.path.join(HERE, "servers.py")
INTERVAL = 0.5	# observer --interval, s
SLACK = 0.1	# scheduling jitter allowed on top of 2 intervals, s
# How late after the onset a sick scenario's finding may come: 2 intervals + SLACK. Under an
# emulated CPU (qemu TCG: LL_EMULATED_CPU=1, set by tools/kernels/guest.py) one interval more:
# there a freshly started server can take 0.5 s to accept its first connections, so the first
# requests wait in the accept queue, which the client sees and the socket-queue rules do not
# (docs/kernels.md, "Two timing limits are loosened").
EMULATED_CPU = os.environ.get("LL_EMULATED_CPU") == "1"
LATE_LIMIT = (3 if EMULATED_CPU else 2) * INTERVAL + SLACK
POLL = 0.05	# onset probes' period, s


class Skip(Exception):
	"""A prerequisite is truly absent: exit 77 with the reason."""


class Fail(Exception):
	"""The scenario could not run as written (not a finding's fault): exit 1."""


def log(msg):
	print(msg, flush=True)
