"""The test scripts' failure messages say the failed command's own exit status.

`cmd || { cat out; fail "cmd exited $?"; }` prints cat's status (0), not cmd's: the status is
taken first (`{ st=$?; cat out; fail "... $st"; }`). Read over every shell script of tests/ and
bench/, and checked on a sample of each form.
"""
import os
import re
import subprocess
import unittest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
# a brace group after || whose first command is not the status capture, and which reads $? later
LATE = re.compile(r"\|\|\s*\{\s*(?!\w+=\$\?)[^{}]*?;[^{}]*\$\?[^{}]*\}")


def late_status(text):
	"""The lines of text where $? is read after another command of an || { ...; } group."""
	return [text.count("\n", 0, m.start()) + 1 for m in LATE.finditer(text)]


class ShellStatus(unittest.TestCase):
	def test_samples(self):
		self.assertEqual(late_status('x || { cat o; fail "x exited $?"; }\n'), [1])
		self.assertEqual(late_status('a\nx ||\n\t{ tail -2 o; fail "rc $?"; }\n'), [2])
		self.assertEqual(late_status('x || { st=$?; cat o; fail "x exited $st"; }\n'), [])
		self.assertEqual(late_status('x || fail "x exited $?: $(cat o)"\n'), [])
		self.assertEqual(late_status('x || { echo "$?"; }\n'), [])

	def test_scripts(self):
		files = subprocess.run(["git", "-C", REPO, "ls-files", "-z", "tests", "bench", "tools"],
				       check=True, stdout=subprocess.PIPE).stdout.decode().split("\0")
		bad = []
		for f in files:
			if not (f.endswith(".sh") or f == "tools/loadlens"):
				continue
			with open(os.path.join(REPO, f), errors="replace") as fh:
				bad += ["%s:%d" % (f, n) for n in late_status(fh.read())]
		self.assertEqual(bad, [], "a failure message reads $? after another command")


if __name__ == "__main__":
	unittest.main()
