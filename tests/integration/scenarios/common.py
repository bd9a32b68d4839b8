"""What every module of the scenario harness shares: paths, timing constants, outcomes."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
BIN = os.environ.get("LOADLENS_BIN") or os.path.normpath(os.path.join(HERE, "../../../build/bin"))
PY = "/usr/bin/python3"
SERVERS = os.path.join(HERE, "servers.py")
INTERVAL = 0.5	# observer --interval, s
SLACK = 0.1	# scheduling jitter allowed on top of 2 intervals, s
POLL = 0.05	# onset probes' period, s


class Skip(Exception):
	"""A prerequisite is truly absent: exit 77 with the reason."""


class Fail(Exception):
	"""The scenario could not run as written (not a finding's fault): exit 1."""


def log(msg):
	print(msg, flush=True)
