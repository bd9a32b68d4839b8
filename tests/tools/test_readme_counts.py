# SPDX-License-Identifier: MIT
"""The README's scenario counts are the matrix's: "runs N scenarios", "The H healthy ones", "the S
sick" against tests/integration/scenarios/scenarios.py (harness.py --list)."""
import os
import re
import subprocess
import sys
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class ReadmeCounts(unittest.TestCase):
	def test_scenario_counts(self):
		names = subprocess.run([sys.executable, os.path.join(ROOT, "tests", "integration",
								"scenarios", "harness.py"), "--list"],
				       check=True, capture_output=True, text=True).stdout.split()
		with open(os.path.join(ROOT, "README.md")) as f:
			text = " ".join(f.read().split())
		said = {k: int(re.search(pat, text).group(1)) for k, pat in (
			("all", r"`ctest -L scenario` runs (\d+) scenarios"),
			("healthy", r"The (\d+) healthy ones"),
			("sick", r"the (\d+) sick ones"))}
		have = {"all": len(names),
			"healthy": sum(1 for n in names if n.startswith("healthy_")),
			"sick": sum(1 for n in names if n.startswith("sick_"))}
		self.assertEqual(said, have, "README.md's scenario counts against harness.py --list")


if __name__ == "__main__":
	unittest.main()
