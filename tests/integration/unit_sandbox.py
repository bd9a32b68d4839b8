#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Run a command under the sandbox of a systemd unit file, where systemd itself cannot start it
(no systemd as PID 1): the unit's CapabilityBoundingSet, NoNewPrivileges, and a seccomp filter
built the way systemd builds one from SystemCallFilter= (groups expanded by
`systemd-analyze syscall-filter`), SystemCallErrorNumber=, RestrictAddressFamilies= (socket()'s
first argument) and MemoryDenyWriteExecute= (no writable and executable mapping).

  unit_sandbox.py UNIT [--without SYSCALL]... -- CMD ARGS...

--without takes a call out of the allow list (the test's sick case: the filter holds).
Python's standard library and Debian's python3-seccomp (libseccomp's binding)."""

import ctypes
import errno
import os
import socket
import subprocess
import sys

import seccomp

PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PROT_WRITE, PROT_EXEC = 0x2, 0x4
CAPS = {"CAP_CHOWN": 0, "CAP_DAC_OVERRIDE": 1, "CAP_DAC_READ_SEARCH": 2, "CAP_FOWNER": 3,
	"CAP_FSETID": 4, "CAP_KILL": 5, "CAP_SETGID": 6, "CAP_SETUID": 7, "CAP_SETPCAP": 8,
	"CAP_NET_BIND_SERVICE": 10, "CAP_NET_ADMIN": 12, "CAP_NET_RAW": 13, "CAP_IPC_LOCK": 14,
	"CAP_SYS_MODULE": 16, "CAP_SYS_CHROOT": 18, "CAP_SYS_PTRACE": 19, "CAP_SYS_ADMIN": 21,
	"CAP_SYS_RESOURCE": 24, "CAP_SYSLOG": 34, "CAP_PERFMON": 38, "CAP_BPF": 39,
	"CAP_CHECKPOINT_RESTORE": 40}


def unit_settings(path):
	"""{key: [values of each line]} of the [Service] section."""
	out, section = {}, None
	with open(path, encoding="utf-8") as f:
		for line in f:
			line = line.strip()
			if not line or line[0] in "#;":
				continue
			if line.startswith("["):
				section = line
				continue
			if section == "[Service]" and "=" in line:
				k, _, v = line.partition("=")
				out.setdefault(k.strip(), []).append(v.strip())
	return out


def groups():
	"""{@group: [members]} from systemd-analyze syscall-filter."""
	text = subprocess.run(["systemd-analyze", "syscall-filter"], capture_output=True,
			      text=True, check=True).stdout
	out, cur = {}, None
	for line in text.splitlines():
		if line.startswith("@"):
			cur = out.setdefault(line.strip(), [])
		elif cur is not None and line.strip() and not line.strip().startswith("#"):
			cur.append(line.strip())
	return out


def expand(names, g, seen=None):
	seen = set() if seen is None else seen
	out = set()
	for n in names:
		if n.startswith("@"):
			if n not in seen:
				seen.add(n)
				out |= expand(g.get(n, []), g, seen)
		else:
			out.add(n)
	return out


def syscall_sets(lines, g):
	"""(allowed, denied) from SystemCallFilter= lines: the first line without ~ is the allow
	list, lines with ~ take calls away (systemd's semantics for an allow-list filter)."""
	allow, deny = set(), set()
	for v in lines:
		if v.startswith("~"):
			deny |= expand(v[1:].split(), g)
		else:
			allow |= expand(v.split(), g)
	return allow - deny


def main(argv):
	if "--" not in argv or len(argv) < 3:
		print(__doc__, file=sys.stderr)
		return 64
	i = argv.index("--")
	opts, cmd = argv[:i], argv[i + 1:]
	unit = opts[0]
	without = {opts[k + 1] for k in range(1, len(opts) - 1) if opts[k] == "--without"}
	s = unit_settings(unit)
	libc = ctypes.CDLL(None, use_errno=True)
	# the capability bounding set
	last = int(open("/proc/sys/kernel/cap_last_cap").read())
	if "CapabilityBoundingSet" in s:
		keep = {CAPS[c] for v in s["CapabilityBoundingSet"] for c in v.split()}
	else:  # systemd's default: the bounding set as it is
		keep = set(range(last + 1))
	for cap in range(last + 1):
		if cap not in keep and libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0):
			raise OSError(ctypes.get_errno(), f"PR_CAPBSET_DROP {cap}")
	if s.get("NoNewPrivileges", ["no"])[-1] == "yes":
		if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0):
			raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
	err = getattr(errno, s.get("SystemCallErrorNumber", ["EPERM"])[-1])
	f = seccomp.SyscallFilter(defaction=seccomp.ERRNO(err))
	# no SystemCallFilter=: every known call, less what other settings restrict
	allowed = syscall_sets(s.get("SystemCallFilter", ["@known"]), groups()) - without
	families = [getattr(socket, fam) for v in s.get("RestrictAddressFamilies", [])
		    for fam in v.split()]
	special = {"socket", "mmap", "mprotect", "pkey_mprotect"}
	unknown = 0
	for name in sorted(allowed - special):
		try:
			f.add_rule(seccomp.ALLOW, name)
		except (RuntimeError, ValueError, OSError):
			unknown += 1  # a name this libseccomp does not know: not callable here either
	if "socket" in allowed:
		if families:
			for fam in families:
				f.add_rule(seccomp.ALLOW, "socket", seccomp.Arg(0, seccomp.EQ, fam))
			f.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket",
				   seccomp.Arg(0, seccomp.GT, max(families)))
			for fam in range(max(families)):
				if fam not in families:
					f.add_rule(seccomp.ERRNO(errno.EAFNOSUPPORT), "socket",
						   seccomp.Arg(0, seccomp.EQ, fam))
		else:
			f.add_rule(seccomp.ALLOW, "socket")
	wx = s.get("MemoryDenyWriteExecute", ["no"])[-1] == "yes"
	for name in ("mmap", "mprotect", "pkey_mprotect"):
		if name not in allowed:
			continue
		if not wx:
			f.add_rule(seccomp.ALLOW, name)
		elif name == "mmap":  # not both writable and executable
			f.add_rule(seccomp.ALLOW, name,
				   seccomp.Arg(2, seccomp.MASKED_EQ, PROT_WRITE | PROT_EXEC, 0))
			f.add_rule(seccomp.ALLOW, name,
				   seccomp.Arg(2, seccomp.MASKED_EQ, PROT_WRITE | PROT_EXEC, PROT_WRITE))
			f.add_rule(seccomp.ALLOW, name,
				   seccomp.Arg(2, seccomp.MASKED_EQ, PROT_WRITE | PROT_EXEC, PROT_EXEC))
		else:  # never made executable later
			f.add_rule(seccomp.ALLOW, name, seccomp.Arg(2, seccomp.MASKED_EQ, PROT_EXEC, 0))
	print(f"unit_sandbox: {len(allowed)} system calls allowed ({unknown} unknown here), "
	      f"address families {sorted(int(x) for x in families)}, bounding set {sorted(keep)}, "
	      f"no_new_privs {s.get('NoNewPrivileges', ['no'])[-1]}, W^X {wx}", file=sys.stderr,
	      flush=True)
	f.load()
	os.execv(cmd[0], cmd)


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
