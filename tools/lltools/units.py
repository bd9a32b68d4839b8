# SPDX-License-Identifier: MIT
"""Parsing durations, counts and lists on the command line. Pure."""

import re

_DUR = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "": 1.0}
_SUFFIX = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}


def _scaled(text, pattern, scale, bad, limit, big):
	"""A number with a unit suffix (PATTERN's groups 1 and 2) times SCALE[unit], at most LIMIT."""
	m = re.fullmatch(pattern, str(text))
	if not m:
		raise ValueError(bad.format(text))
	v = float(m.group(1)) * scale[m.group(2)]
	if v > limit:
		raise ValueError(big.format(text))
	return v


def duration_s(text):
	"""'30s', '250ms', '2m', '1.5' (seconds) -> seconds; ValueError on anything else."""
	return _scaled(text, r"\s*([0-9]*\.?[0-9]+)\s*(ns|us|ms|s|m|h|)\s*", _DUR,
		       "bad duration '{}' (e.g. 30s, 250ms, 2m)", 1e9, "duration '{}' is too long")


def number(text):
	"""'60k', '1.5M', '200' -> float; ValueError on anything else or a negative number."""
	return _scaled(text, r"\s*([0-9]*\.?[0-9]+)\s*([kKMG]?)\s*(/s)?\s*", _SUFFIX,
		       "bad number '{}' (e.g. 200, 60k, 1.5M)", 1e15, "number '{}' is too large")


def int_list(text, most=None):
	"""'1,2,4' -> [1, 2, 4]; every item a positive integer, at most `most`."""
	out = []
	for part in str(text).split(","):
		v = number(part)
		if v < 1 or v != int(v):
			raise ValueError(f"bad count '{part}' in '{text}' (positive integers)")
		if most is not None and v > most:
			raise ValueError(f"count {part.strip()} in '{text}' is more than {most:,}")
		out.append(int(v))
	return out


def num_list(text, most=None):
	out = [number(p) for p in str(text).split(",")]
	if any(v <= 0 for v in out):
		raise ValueError(f"bad list '{text}' (positive numbers)")
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
