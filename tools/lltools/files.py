# SPDX-License-Identifier: MIT
"""Files loadlens run/sweep/report write and read, safely when run as root in a directory that
another user can write (docs/loadlens.md, "Files"). The one place lltools opens a file it writes.

Writing: a new file is made under a random name in the target's directory with
O_CREAT|O_EXCL|O_NOFOLLOW (so nothing planted there, no symbolic link, is ever followed), mode
0600, given to the user behind sudo (SUDO_UID/SUDO_GID) when root, then renamed over the target;
rename() replaces a name and never writes through it. A target that is a symbolic link, not a
regular file, or (as root) a file with other hard links is refused, before any work
(check_output) and again when written.

Reading: only regular files, opened with O_NONBLOCK (a FIFO neither hangs the open nor is read),
at most a bounded number of bytes, decoded as UTF-8 with one clear error."""

import errno
import os
import secrets
import stat

from .shown import shown

READ_MAX = 256 << 20  # the largest input read (a sweep's JSON is a few MB)


class FileError(Exception):
	"""A file cannot be written or read safely: one line saying which and why."""


def _sudo_ids():
	if os.geteuid() != 0:
		return None
	u, g = os.environ.get("SUDO_UID", ""), os.environ.get("SUDO_GID", "")
	if u.isdigit() and g.isdigit() and int(u) != 0:
		return int(u), int(g)
	return None


def _refusal(st):
	"""Why an existing target is not written, or None."""
	if stat.S_ISLNK(st.st_mode):
		return "it is a symbolic link, which is never followed (name the file itself)"
	if stat.S_ISDIR(st.st_mode):
		return "it is a directory"
	if not stat.S_ISREG(st.st_mode):
		return "it exists and is not a regular file (a FIFO, device or socket)"
	if st.st_nlink > 1 and os.geteuid() == 0:
		return "it has other hard links, so writing it would change another file too"
	return None


def check_output(path, what, ours=False):
	"""Raise FileError unless path can be written safely; creates nothing (called at start).
	ours: a name lltools chose in its output directory, where whatever is found (a planted link,
	FIFO or hard link) is only a name to replace (rename() never opens it), not a file the user
	meant; only a directory there is refused."""
	try:
		st = os.lstat(path)
		if ours:
			why = "it is a directory" if stat.S_ISDIR(st.st_mode) else None
		else:
			why = _refusal(st)
	except FileNotFoundError:
		why = None
	except OSError as e:
		why = e.strerror
	if why:
		raise FileError(f"{what} {shown(path)}: {why}")
	parent = os.path.dirname(path) or "."
	if not os.path.isdir(parent):
		raise FileError(f"{what} {shown(path)}: no directory {shown(parent)}")
	if not os.access(parent, os.W_OK | os.X_OK):
		raise FileError(f"{what} {shown(path)}: cannot write in {shown(parent)}")


def _new_temp(dfd, name):
	"""(temp name, fd): a new 0600 file in the directory dfd, never an existing name or link."""
	for _ in range(64):
		tmp = f".{name[:64]}.{secrets.token_hex(8)}.tmp"
		try:
			return tmp, os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW |
					   os.O_CLOEXEC, 0o600, dir_fd=dfd)
		except FileExistsError:
			continue
	raise FileError(f"cannot make a temporary file next to {shown(name)}")


def _place(path, what, fill, owner=None, ours=False):
	"""Make path a new file: fill(file) writes it through a temporary, renamed over path; owned
	by owner (uid, gid) if given, else by the user behind sudo when root."""
	check_output(path, what, ours)
	name = os.path.basename(path)
	try:
		dfd = os.open(os.path.dirname(path) or ".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
	except OSError as e:
		raise FileError(f"{what} {shown(path)}: {e.strerror}") from None
	tmp = None
	try:
		tmp, fd = _new_temp(dfd, name)
		ids = owner or _sudo_ids()
		if ids:
			os.fchown(fd, *ids)
		f = os.fdopen(fd, "wb")
		try:
			fill(f)
		finally:
			f.close()
		# renamed over path only now: a link planted at path meanwhile is replaced, not followed
		os.rename(tmp, name, src_dir_fd=dfd, dst_dir_fd=dfd)
		tmp = None
	except OSError as e:
		raise FileError(f"cannot write {what} {shown(path)}: {e.strerror}") from None
	finally:
		if tmp:
			try:
				os.unlink(tmp, dir_fd=dfd)
			except OSError:
				pass
		os.close(dfd)


def write(path, data, what="output", ours=False):
	"""Replace path with data (str: UTF-8; bytes) as a new 0600 file (ours: check_output)."""
	if isinstance(data, str):
		data = data.encode("utf-8")
	_place(path, what, lambda f: f.write(data), ours=ours)


def create(path, what="output"):
	"""A new empty 0600 file at path, open for writing (binary), for a child's output; path is
	a name lltools chose (a link there is replaced, never followed)."""
	fd = []
	# the temporary is renamed into place empty; the fd kept open writes into that new file
	_place(path, what, lambda f: fd.append(os.dup(f.fileno())), ours=True)
	return os.fdopen(fd[0], "wb")


def clear(path, what="output"):
	"""Remove a name lltools is about to have a child create (a stale file or a planted link:
	unlink() never follows); a directory there is refused."""
	try:
		if stat.S_ISDIR(os.lstat(path).st_mode):
			raise FileError(f"{what} {shown(path)}: it is a directory")
		os.unlink(path)
	except FileNotFoundError:
		pass
	except OSError as e:
		raise FileError(f"{what} {shown(path)}: {e.strerror}") from None


def ensure_dir(path, what, follow=False):
	"""A directory to write into, made (0700 as root, else 0755) when missing. Refused when it is
	not a directory, or (follow=False: a directory lltools names itself) a symbolic link."""
	try:
		os.makedirs(path, 0o700 if os.geteuid() == 0 else 0o755)
		made = True
	except FileExistsError:
		made = False
	except OSError as e:
		raise FileError(f"{what} {shown(path)}: {e.strerror}") from None
	try:
		st = os.stat(path) if follow else os.lstat(path)
	except OSError as e:
		raise FileError(f"{what} {shown(path)}: {e.strerror}") from None
	if stat.S_ISLNK(st.st_mode):
		raise FileError(f"{what} {shown(path)}: it is a symbolic link, which is never followed")
	if not stat.S_ISDIR(st.st_mode):
		raise FileError(f"{what} {shown(path)}: it exists and is not a directory")
	ids = _sudo_ids()
	if made and ids:
		os.chown(path, *ids, follow_symlinks=False)
	return path


def read_bytes(path, what, limit=READ_MAX, follow=True):
	"""The bytes of a regular file of at most limit bytes; FileError for anything else (a FIFO,
	a device, a directory, a larger file; with follow=False, a symbolic link)."""
	return _read(path, what, limit, follow)[0]


def _read(path, what, limit, follow):
	"""(bytes, stat) of a regular file: read_bytes()."""
	flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
	if not follow:
		flags |= os.O_NOFOLLOW
	try:
		fd = os.open(path, flags)
	except OSError as e:
		if e.errno == errno.ELOOP and not follow:
			raise FileError(f"{what} {shown(path)}: a symbolic link, which is not followed") from None
		raise FileError(f"{what} {shown(path)}: {e.strerror}") from None
	try:
		st = os.fstat(fd)
		if stat.S_ISDIR(st.st_mode):
			raise FileError(f"{what} {shown(path)}: a directory, not a file")
		if not stat.S_ISREG(st.st_mode):
			raise FileError(f"{what} {shown(path)}: not a regular file (a FIFO or device is not read)")
		if st.st_size > limit:
			raise FileError(f"{what} {shown(path)}: {st.st_size:,} bytes, larger than the "
					f"{limit >> 20} MiB read")
		chunks, n = [], 0
		while n <= limit:
			b = os.read(fd, min(1 << 20, limit + 1 - n))
			if not b:
				break
			chunks.append(b)
			n += len(b)
		if n > limit:
			raise FileError(f"{what} {shown(path)}: larger than the {limit >> 20} MiB read")
		return b"".join(chunks), st
	except OSError as e:
		raise FileError(f"{what} {shown(path)}: {e.strerror}") from None
	finally:
		os.close(fd)


def read_text(path, what, limit=READ_MAX, follow=True):
	"""read_bytes() decoded as UTF-8; FileError naming the first bad byte's offset."""
	data = read_bytes(path, what, limit, follow)
	try:
		return data.decode("utf-8")
	except UnicodeDecodeError as e:
		raise FileError(f"{what} {shown(path)}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset "
				f"{e.start})") from None


def copy_in(src, dst, what):
	"""Copy a file another user wrote (src, never through a link, a regular file) to dst as a
	new file (write()) that keeps src's owner: who wrote it stays visible."""
	data, st = _read(src, what, READ_MAX, False)
	_place(dst, what, lambda f: f.write(data), (st.st_uid, st.st_gid), ours=True)
