# SPDX-License-Identifier: MIT
"""The driver's input files where the driver's user can read them.

As root, `loadlens run` and `sweep` run the driver as another user (procs.driver_identity()).
A file named on the driver's command line (after --) may sit where that user cannot read it: a
root checkout, a private temporary directory. Each such file is copied into the driver's own
directory (procs.driver_dir()), owned by that user, mode 0600 in a 0700 folder, and its option
names the copy; a file the user can read is left where it is. --proto-file brings the .proto
files of its folder (the driver imports from there), --import-path the .proto files below it."""

import os
import shutil
import subprocess
import sys

from .shown import shown

# the driver's options that name a file it reads, and those that name a folder of .proto files
FILE_OPTIONS = ("--payload", "--requests-file", "--body-file", "--message-file",
		"--bind-password-file", "--cacert", "--proto-file")
PROTO_DIR_OPTIONS = ("--import-path",)
MAX_PROTO_FILES = 2000  # .proto files copied from one folder
MAX_WALK = 20000  # entries looked at below one folder


class InputError(ValueError):
	"""An input cannot be made readable for the driver: a usage error (exit 64)."""


def _named(extra):
	"""[(index, option, value, joined)]: each file or folder option in EXTRA, as '--opt VALUE'
	(joined False) or '--opt=VALUE' (joined True)."""
	found = []
	i = 0
	while i < len(extra):
		arg = extra[i]
		opt, eq, val = arg.partition("=")
		if opt in FILE_OPTIONS or opt in PROTO_DIR_OPTIONS:
			if eq:
				found.append((i, opt, val, True))
			elif i + 1 < len(extra):
				found.append((i + 1, opt, extra[i + 1], False))
				i += 1
		i += 1
	return found


def unreadable(paths, ident):
	"""The PATHS the user ident = (uid, gid, name) cannot read (a folder: cannot list), asked of
	a child that runs as that user, from this working directory."""
	if not paths:
		return set()
	probe = ("import os, sys\n"
		 "for p in sys.argv[1:]:\n"
		 "    ok = os.access(p, os.R_OK | (os.X_OK if os.path.isdir(p) else 0))\n"
		 "    print('1' if ok else '0')\n")
	r = subprocess.run([sys.executable, "-c", probe, *paths], user=ident[0], group=ident[1],
			   extra_groups=[], capture_output=True, encoding="utf-8", timeout=30,
			   stdin=subprocess.DEVNULL)
	said = r.stdout.split()
	if r.returncode != 0 or len(said) != len(paths):
		raise InputError(f"cannot ask what {ident[2]} can read: {r.stderr.strip()[-200:]}")
	return {p for p, ok in zip(paths, said) if ok == "0"}


def _copy_file(src, dst, ident, what):
	try:
		shutil.copyfile(src, dst)
		os.chmod(dst, 0o600)
		os.chown(dst, ident[0], ident[1])
	except OSError as e:
		raise InputError(f"driver options: {what} {shown(src)}: {e.strerror}") from None


def _copy_protos(src, dst, ident, what):
	"""The .proto files below SRC into DST, with their relative paths; bounded."""
	copied = seen = 0
	for top, dirs, names in os.walk(src):
		seen += len(dirs) + len(names)
		if seen > MAX_WALK or copied > MAX_PROTO_FILES:
			raise InputError(f"driver options: {what} {shown(src)}: more than {MAX_WALK:,} "
					 f"entries or {MAX_PROTO_FILES:,} .proto files below it to copy for "
					 "the driver's user; make the folder readable by that user, or run "
					 "with sudo as your own user")
		dirs[:] = sorted(d for d in dirs if not d.startswith("."))
		rel = os.path.relpath(top, src)
		for n in sorted(names):
			if not n.endswith(".proto"):
				continue
			os.makedirs(os.path.join(dst, rel), mode=0o700, exist_ok=True)
			_copy_file(os.path.join(top, n), os.path.join(dst, rel, n), ident, what)
			copied += 1
	for top, dirs, _ in os.walk(dst):
		for d in dirs + ["."]:
			os.chown(os.path.join(top, d), ident[0], ident[1])
	return copied


def stage(extra, driver_dir, ident):
	"""EXTRA with each input the user ident cannot read replaced by a copy it can read, under
	DRIVER_DIR; returns (new extra, [(option, original path)] copied). Nothing changes without
	a change of user (ident None)."""
	if not ident or not driver_dir:
		return list(extra), []
	named = _named(extra)
	closed = unreadable(sorted({os.path.abspath(v) for _, _, v, _ in named}), ident)
	out = list(extra)
	copied = []
	box = os.path.join(driver_dir, "inputs")
	for n, (i, opt, val, joined) in enumerate(named):
		src = os.path.abspath(val)
		if src not in closed:
			continue
		if not os.path.exists(src):
			continue  # the driver says so in its own words
		if not os.path.isdir(box):
			os.mkdir(box, 0o700)
			os.chown(box, ident[0], ident[1])
		slot = os.path.join(box, str(n))
		os.mkdir(slot, 0o700)
		if opt in PROTO_DIR_OPTIONS:
			_copy_protos(src, slot, ident, opt)
			dst = slot
		elif opt == "--proto-file":
			_copy_protos(os.path.dirname(src), slot, ident, f"{opt}'s folder")
			dst = os.path.join(slot, os.path.basename(src))
			if not os.path.exists(dst):  # not named .proto: copied on its own
				_copy_file(src, dst, ident, opt)
		else:
			dst = os.path.join(slot, os.path.basename(src))
			_copy_file(src, dst, ident, opt)
		os.chown(slot, ident[0], ident[1])
		out[i] = f"{opt}={dst}" if joined else dst
		copied.append((opt, val))
	return out, copied
