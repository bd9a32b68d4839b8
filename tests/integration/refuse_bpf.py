#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Run a command where the kernel refuses every BPF program: bpf(BPF_PROG_LOAD, ...) fails with
an errno (EACCES by default: what the verifier or a security module answers), every other call
as usual. A seccomp filter (Debian's python3-seccomp), so nothing on the host changes.

  refuse_bpf.py [--errno NAME] -- CMD ARGS..."""

import errno
import os
import sys

import seccomp

BPF_PROG_LOAD = 5  # enum bpf_cmd, include/uapi/linux/bpf.h


def main(argv):
	err = errno.EACCES
	if argv[:1] == ["--errno"]:
		err = getattr(errno, argv[1], None)
		if not isinstance(err, int):
			print(f"refuse_bpf.py: no errno named {argv[1]!r}", file=sys.stderr)
			return 64
		argv = argv[2:]
	if argv[:1] == ["--"]:
		argv = argv[1:]
	if not argv:
		print(__doc__.strip().splitlines()[-1], file=sys.stderr)
		return 64
	f = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
	f.add_rule(seccomp.ERRNO(err), "bpf", seccomp.Arg(0, seccomp.EQ, BPF_PROG_LOAD))
	f.load()
	os.execvp(argv[0], argv)
	return 127


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
