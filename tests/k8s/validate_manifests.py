#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""ctest k8s/validate: packaging/kubernetes/validate's Go test, which decodes every manifest
strictly into k8s.io/api's types (go.mod pins v0.37.x) and checks that a typo fails. Modules come
from the Go module proxy (cached under GOMODCACHE). Exit 77 with the reason when no `go` is
installed; an older go than go.mod asks is a failure that says so (Go 1.21+ fetches the toolchain
itself unless GOTOOLCHAIN=local)."""
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DIR = os.path.join(os.path.dirname(os.path.dirname(HERE)), "packaging", "kubernetes", "validate")


def find_go():
	for cand in (shutil.which("go"), "/usr/local/go/bin/go", "/usr/lib/go/bin/go"):
		if cand and os.access(cand, os.X_OK):
			return cand
	return None


def main():
	go = find_go()
	if go is None:
		print("SKIP: no go command (apt-get install golang-go, or Go from go.dev in /usr/local/go)")
		return 77
	version = subprocess.run([go, "version"], stdout=subprocess.PIPE, text=True).stdout.strip()
	print("using %s: %s" % (go, version), flush=True)
	env = dict(os.environ, GOFLAGS="-mod=readonly")
	p = subprocess.run([go, "test", "-count=1", "-v", "./..."], cwd=DIR, env=env)
	return 0 if p.returncode == 0 else 1


if __name__ == "__main__":
	sys.exit(main())
