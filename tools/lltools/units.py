# SPDX-License-Identifier: MIT
"""Parsing durations, counts and lists on the command line. Pure."""

import re

_DUR = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0, "": 1.0}
_SUFFIX = {"": 1, "k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}


def duration_s(text):
	"""'30s', '250ms', '2m', '1.5' (seconds) -> seconds; ValueError on anything else."""
	m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*(ns|us|ms|s|m|h|)\s*", str(text))
	if not m:
		raise ValueError(f"bad duration '{text}' (e.g. 30s, 250ms, 2m)")
	return float(m.group(1)) * _DUR[m.group(2)]


def number(text):
	"""'60k', '1.5M', '200' -> float; ValueError on anything else or a negative number."""
	m = re.fullmatch(r"\s*([0-9]*\.?[0-9]+)\s*([kKMG]?)\s*(/s)?\s*", str(text))
	if not m:
		raise ValueError(f"bad number '{text}' (e.g. 200, 60k, 1.5M)")
	return float(m.group(1)) * _SUFFIX[m.group(2)]


def int_list(text):
	"""'1,2,4' -> [1, 2, 4]; every item a positive integer."""
	out = []
	for part in str(text).split(","):
		v = number(part)
		if v < 1 or v != int(v):
			raise ValueError(f"bad count '{part}' in '{text}' (positive integers)")
		out.append(int(v))
	return out


def num_list(text):
	out = [number(p) for p in str(text).split(",")]
	if any(v <= 0 for v in out):
		raise ValueError(f"bad list '{text}' (positive numbers)")
	return out


def doubling(start, stop):
	"""start, 2*start, ... up to and including stop (stop itself last if not a power step)."""
	out = []
	v = start
	while v < stop:
		out.append(v)
		v *= 2
	out.append(stop)
	return out
