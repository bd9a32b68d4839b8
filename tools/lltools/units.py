# SPDX-License-Identifier: MIT
"""Durations, rates and counts on the command line, read by loadlens-driver itself (its
--print-plan, procs.driver_plan): the driver's parser (lib/parse.c) is the one for the tools too,
so a value these tools take is one the driver takes, and a bad one is refused in the driver's own
line (its exit 64). The lists and doublings built of them are here."""

from . import procs

# a target the driver takes without a lookup; --print-plan sends nothing
_TARGET = "tcp://127.0.0.1:9"


def _driver(opt, text, key):
	"""The plan's KEY for the driver's OPT TEXT; ValueError (procs.PlanRefused) in the driver's
	words where it refuses TEXT."""
	return procs.driver_plan([_TARGET, "-n", "1", opt, str(text)])[key]


def duration_s(text):
	"""'30s', '250ms', '2m', '1.5' (seconds) -> seconds, as the driver reads --delay."""
	return float(_driver("--delay", text, "delay_s"))


def rate(text):
	"""'60k', '1.5M', '200' -> per second, as the driver reads --rate (0.001 to 1e8)."""
	return float(_driver("--rate", text, "rate"))


def count(text):
	"""'64', '10k' -> a whole number of connections, as the driver reads -c."""
	return int(_driver("-c", text, "connections"))


def int_list(text, most=None):
	"""'1,2,4' -> [1, 2, 4]: each a count (count()), at most `most`."""
	out = []
	for part in str(text).split(","):
		v = count(part.strip())
		if most is not None and v > most:
			raise ValueError(f"count {part.strip()} in '{text}' is more than {most:,}")
		out.append(v)
	return out


def num_list(text, most=None):
	"""'100,1k' -> [100.0, 1000.0]: each a rate (rate()), at most `most`."""
	out = [rate(p.strip()) for p in str(text).split(",")]
	if most is not None and any(v > most for v in out):
		raise ValueError(f"'{text}': each at most {most:,g}")
	return out


def duration_in(text, lo, hi):
	"""duration_s(text), refused outside [lo, hi] seconds."""
	v = duration_s(text)
	if not lo <= v <= hi:
		raise ValueError(f"duration '{text}' out of range ({lo:g} s to {hi:g} s)")
	return v


MAX_STEPS = 64


def doubling(start, stop):
	"""start, 2*start, ... up to and including stop (stop itself last if not a power step).
	ValueError unless 0 < start <= stop and the steps are at most MAX_STEPS: never a loop."""
	if not (start > 0 and stop > 0):
		raise ValueError(f"a doubling from {start:g} to {stop:g}: both must be above 0")
	if start > stop:
		raise ValueError(f"a doubling from {start:g} to {stop:g}: the first is above the last")
	out = []
	v = start
	while v < stop:
		out.append(v)
		v *= 2
		if len(out) >= MAX_STEPS:
			raise ValueError(f"a doubling from {start:g} to {stop:g}: more than "
					 f"{MAX_STEPS} steps")
	out.append(stop)
	return out
