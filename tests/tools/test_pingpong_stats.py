# SPDX-License-Identifier: MIT
"""bench/pingpong.py's statistics: its buckets are the driver's (include/loadlens/hist.h), its
pooled quantiles and bootstrap interval behave on hand-made rounds."""
import collections
import importlib.util
import os
import random
import unittest

_PATH = os.path.join(os.path.dirname(__file__), "..", "..", "bench", "pingpong.py")
_SPEC = importlib.util.spec_from_file_location("pingpong", _PATH)
pp = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(pp)


class Buckets(unittest.TestCase):
	def test_exact_below_128(self):
		for v in (0, 1, 127):
			self.assertEqual(pp.bucket(v), v)
			self.assertEqual(pp.bucket_mid(v), v)

	def test_hist_h_values(self):
		# ll_hist_bucket(): 128 -> 128, 255 -> 255, 256 -> 256 (width 2), 257 -> 256,
		# 17,000 ns: msb 14, shift 7, (8 << 7) + (132 - 128) = 1028, low 16,896, width 128
		self.assertEqual([pp.bucket(v) for v in (128, 255, 256, 257, 258)],
				 [128, 255, 256, 256, 257])
		self.assertEqual(pp.bucket(17000), 1028)
		self.assertEqual(pp.bucket_mid(1028), 16896 + 64)

	def test_every_value_in_its_bucket(self):
		rng = random.Random(3)
		for _ in range(2000):
			v = rng.randrange(1, 10**9)
			i = pp.bucket(v)
			width = 1 if i < 128 else 1 << ((i >> 7) - 1)
			self.assertLessEqual(abs(pp.bucket_mid(i) - v), width / 2, v)
			self.assertEqual(pp.bucket(pp.bucket_mid(i)), i)


class Pooled(unittest.TestCase):
	def rounds(self, values):
		return [collections.Counter(pp.bucket(v) for v in r) for r in values]

	def test_quantiles_of_the_pool(self):
		# two rounds at two levels: the pool's p50 is the boundary, each round's is its level
		r = self.rounds([[17000] * 60 + [23000] * 40, [17000] * 40 + [23000] * 60])
		pool = pp.pooled(r)
		self.assertAlmostEqual(pp.quantile(pool, 0.1), 16.96, places=2)
		self.assertAlmostEqual(pp.quantile(pool, 0.5), 16.96, places=2)
		self.assertAlmostEqual(pp.quantile(pool, 0.51), 22.976, places=2)
		self.assertAlmostEqual(pp.quantile(r[1], 0.5), 22.976, places=2)

	def test_bootstrap_same_client_is_one(self):
		r = self.rounds([[17000] * 10, [23000] * 10, [19000] * 10])
		self.assertEqual(pp.bootstrap(r, r, 0.5, random.Random(1), n=200), (1.0, 1.0))

	def test_bootstrap_brackets_a_shift(self):
		# the second client 5% slower in every round, the rounds themselves far apart
		base = [[17000 + 13 * k for k in range(50)], [23000 + 11 * k for k in range(50)]] * 5
		slow = [[v * 1.05 for v in r] for r in base]
		lo, hi = pp.bootstrap(self.rounds(slow), self.rounds(base), 0.5, random.Random(2), n=300)
		self.assertLess(lo, hi)
		self.assertGreater(lo, 1.0)
		self.assertLessEqual(lo, 1.05 + 0.01)
		self.assertGreaterEqual(hi, 1.05 - 0.01)


if __name__ == "__main__":
	unittest.main()
