# SPDX-License-Identifier: MIT
"""lltools.units reads durations, rates and counts through loadlens-driver (--print-plan): on a
list of values, good and bad, the tools take exactly what the driver takes, with the same
figure, and refuse exactly what it refuses (its exit 64), in its words. Needs the built driver
(LOADLENS_BIN, set by ctest); no root, no network."""
import subprocess
import unittest

from lltools import procs, units

# (units' reader, the driver's option, the plan's key, [(text, value)], [bad text])
CASES = [
	(units.duration_s, "--delay", "delay_s",
	 [("30s", 30.0), ("250ms", 0.25), ("2m", 120.0), ("1h", 3600.0), ("1.5", 1.5),
	  ("500us", 0.0005), ("100ns", 1e-7), ("0", 0.0)],
	 ["", "1x", "-1s", "1e3s", " 30s", "30 s", "s", "0x10", "1.5.2s", "9" * 400 + "h"]),
	(units.rate, "--rate", "rate",
	 [("200", 200.0), ("60k", 60000.0), ("1.5M", 1.5e6), ("0.5", 0.5), ("1e8", 1e8)],
	 ["", "0", "1G", "60k/s", "abc", "-5", "2e8", " 10", "inf", "nan"]),
	(units.count, "-c", "connections",
	 [("1", 1), ("64", 64), ("10k", 10000), ("1M", 1000000)],
	 ["", "0", "1.5", "x", "-1", "10K0", " 4", "1000001", "2M", "99999999999"]),
]


def driver(opt, text):
	"""The driver's own exit status and plan (None unless 0) for OPT TEXT."""
	r = subprocess.run([procs.binary("loadlens-driver"), "--print-plan", "tcp://127.0.0.1:9",
			    "-n", "1", opt, text], capture_output=True, text=True, timeout=30)
	return r.returncode, r.stderr


class Units(unittest.TestCase):
	def test_good_values_are_the_drivers(self):
		for read, opt, key, good, _ in CASES:
			for text, want in good:
				with self.subTest(opt=opt, text=text):
					self.assertAlmostEqual(read(text), want, delta=abs(want) * 1e-12)
					self.assertEqual(driver(opt, text)[0], 0)

	def test_bad_values_refused_in_the_drivers_words(self):
		for read, opt, key, _, bad in CASES:
			for text in bad:
				with self.subTest(opt=opt, text=text):
					rc, err = driver(opt, text)
					self.assertEqual(rc, 64, err)
					with self.assertRaises(ValueError) as e:
						read(text)
					self.assertEqual(str(e.exception), err.strip().splitlines()[-1])

	def test_lists(self):
		self.assertEqual(units.int_list("1, 2,4"), [1, 2, 4])
		self.assertEqual(units.num_list("100,1.5k"), [100.0, 1500.0])
		with self.assertRaisesRegex(ValueError, "-c 0"):
			units.int_list("1,0")
		with self.assertRaisesRegex(ValueError, "--rate x"):
			units.num_list("100,x")


if __name__ == "__main__":
	unittest.main()
