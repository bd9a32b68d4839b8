# SPDX-License-Identifier: MIT
"""python3 -m kube image build | k8s test ...: exit 0 ok, 1 failure, 64 usage, 77 skipped."""
import sys

from . import Usage, Failure, Skip, say


def main(argv):
	if not argv or argv[0] not in ("image", "k8s"):
		raise Usage("usage: tools/loadlens image build | tools/loadlens k8s test|pods")
	if argv[0] == "image":
		from . import image
		return image.main(argv[1:])
	from . import podtest
	return podtest.main(argv[1:])


if __name__ == "__main__":
	try:
		sys.exit(main(sys.argv[1:]))
	except Usage as e:
		say(str(e))
		sys.exit(64)
	except Skip as e:
		print("SKIP: %s" % e, flush=True)
		sys.exit(77)
	except Failure as e:
		say(str(e))
		sys.exit(1)
