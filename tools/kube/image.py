# SPDX-License-Identifier: MIT
"""loadlens image build: the OCI image localhost/loadlens:VERSION, with no registry pull.

The project's .deb is made by cpack from a build tree; mmdebstrap unpacks (--variant=extract:
nothing of it runs) Debian 12 packages its Depends name, adduser left out (the image has its
users in /etc/passwd already, written here); the .deb's files are unpacked on top; what no
container reads goes (docs, man pages, locales, apt's lists, the systemd unit, completion).
Every binary's libraries are resolved inside the tree by its own dynamic loader (ld.so --list,
what ldd does): one not found fails the build. `podman import` makes the image; its user is
loadlens (LOADLENS_UID) by default, so only a pod that asks to be root is.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from . import say, podman_run, Parser, Usage, Failure

IMAGE = "localhost/loadlens"
LOADLENS_UID = 10001  # the image's default user; the manifests' runAsUser
NOBODY_UID = 65534
BINARIES = ("usr/bin/loadlens-driver", "usr/bin/loadlens-refserver", "usr/sbin/loadlens-observer")
MIRRORS = ("http://deb.debian.org/debian bookworm main",
	   "http://deb.debian.org/debian bookworm-updates main",
	   "http://deb.debian.org/debian-security bookworm-security main")
# Depends of the .deb that no container needs: the package's postinst makes its user with it
NOT_IN_IMAGE = {"adduser"}
# paths under the root filesystem that nothing in a container reads
DROP = ("usr/share/doc", "usr/share/man", "usr/share/info", "usr/share/locale",
	"usr/share/lintian", "usr/share/bash-completion", "usr/share/common-licenses",
	"usr/lib/systemd", "lib/systemd", "var/lib/apt/lists", "var/cache/apt", "var/cache/debconf",
	"var/log", "usr/share/zoneinfo", "usr/share/gcc", "usr/share/gdb")
LD_SO = "/lib64/ld-linux-x86-64.so.2"
# loaded by name at run time, never listed by ld.so: glibc's NSS modules (the observer looks up
# the user loadlens) and its loader
KEEP_LIBRARIES = ("libnss_", "ld-linux")


def depends(field):
	"""Package names of a Depends field: version constraints and alternatives after the first
	dropped, NOT_IN_IMAGE left out. 'libc6 (>= 2.34), a | b' -> ['libc6', 'a']"""
	names = []
	for item in field.split(","):
		item = item.strip()
		if not item:
			continue
		name = re.split(r"[\s(|:]", item.split("|")[0].strip(), maxsplit=1)[0]
		if name and name not in NOT_IN_IMAGE:
			names.append(name)
	return names


def needed_libraries(listing):
	"""(resolved paths, names not found) from `ld.so --list` output."""
	found, missing = [], []
	for line in listing.splitlines():
		line = line.strip()
		if "=> not found" in line:
			missing.append(line.split()[0])
		elif "=>" in line:
			path = line.split("=>", 1)[1].split("(")[0].strip()
			if path:
				found.append(path)
		elif line.startswith("/"):
			found.append(line.split()[0])
	return found, missing


def run(cmd, **kw):
	p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
	if p.returncode != 0:
		tail = "\n".join(p.stdout.strip().splitlines()[-15:])
		raise Failure("%s failed (exit %d):\n%s" % (cmd[0], p.returncode, tail))
	return p.stdout


def make_deb(build, out):
	"""cpack's .deb from BUILD into OUT; its path."""
	cfg = os.path.join(build, "CPackConfig.cmake")
	if not os.path.exists(cfg):
		raise Usage("no CPackConfig.cmake in %s: build it first (tools/loadlens setup)" % build)
	say("making the .deb (cpack, from %s)" % build)
	run(["cpack", "--config", cfg, "-B", out], cwd=build)
	debs = [f for f in os.listdir(out) if f.startswith("loadlens_") and f.endswith(".deb")]
	if len(debs) != 1:
		raise Failure("cpack made %d .deb files in %s, not one" % (len(debs), out))
	return os.path.join(out, debs[0])


def deb_field(deb, field):
	return run(["dpkg-deb", "-f", deb, field]).strip()


def write_users(root):
	"""/etc/passwd, group, nsswitch.conf: root, loadlens (the default user; the observer drops
	to it after attaching) and nobody; no shell, no home."""
	etc = os.path.join(root, "etc")
	os.makedirs(etc, exist_ok=True)
	files = {
		"passwd": "root:x:0:0:root:/root:/usr/sbin/nologin\n"
			  "loadlens:x:%d:%d:loadlens:/nonexistent:/usr/sbin/nologin\n"
			  "nobody:x:%d:%d:nobody:/nonexistent:/usr/sbin/nologin\n"
			  % (LOADLENS_UID, LOADLENS_UID, NOBODY_UID, NOBODY_UID),
		"group": "root:x:0:\nloadlens:x:%d:\nnogroup:x:%d:\n" % (LOADLENS_UID, NOBODY_UID),
		"nsswitch.conf": "passwd: files\ngroup: files\nhosts: files dns\n",
	}
	for name, text in files.items():
		with open(os.path.join(etc, name), "w") as f:
			f.write(text)
	for d, mode in (("tmp", 0o1777), ("results", 0o755), ("var/lib/loadlens", 0o755)):
		p = os.path.join(root, d)
		os.makedirs(p, exist_ok=True)
		os.chmod(p, mode)
	os.chown(os.path.join(root, "results"), LOADLENS_UID, LOADLENS_UID)


def prune(root):
	"""Remove DROP, and every file dpkg's database lists only for documentation."""
	for rel in DROP:
		p = os.path.join(root, rel)
		if os.path.isdir(p) and not os.path.islink(p):
			shutil.rmtree(p)
		elif os.path.lexists(p):
			os.unlink(p)
	for rel in ("etc/default/loadlens-observer",):
		p = os.path.join(root, rel)
		if os.path.lexists(p):
			os.unlink(p)


def check_libraries(root):
	"""Every binary's libraries resolve inside ROOT (its own loader, chrooted); the set of them.
	Raises Failure naming a missing one."""
	needed = set()
	for rel in BINARIES:
		if not os.path.exists(os.path.join(root, rel)):
			raise Failure("the image lacks /%s (is it in the .deb?)" % rel)
		out = run(["chroot", root, LD_SO, "--list", "/" + rel])
		found, missing = needed_libraries(out)
		if missing:
			raise Failure("/%s needs %s, not in the image" % (rel, ", ".join(missing)))
		needed.update(inside(root, p) for p in found)
	return needed


def inside(root, path):
	"""PATH's real path under ROOT, its symbolic links followed as a chroot would (an absolute
	target is ROOT's, not the host's)."""
	parts = [p for p in path.split("/") if p]
	done = root
	hops = 0
	while parts:
		part = parts.pop(0)
		if part == "..":
			done = os.path.dirname(done) if done != root else root
			continue
		cand = os.path.join(done, part)
		if os.path.islink(cand):
			hops += 1
			if hops > 40:
				raise Failure("too many symbolic links resolving %s" % path)
			target = os.readlink(cand)
			if target.startswith("/"):
				done = root
			parts = [p for p in target.split("/") if p] + parts
		else:
			done = cand
	return done


def unneeded_libraries(root, needed):
	"""Shared objects in ROOT that no binary loads (what the packages' own dependencies brought)."""
	extra = []
	for d in ("usr/lib/x86_64-linux-gnu", "lib/x86_64-linux-gnu"):
		top = os.path.join(root, d)
		if not os.path.isdir(top) or os.path.islink(top):
			continue
		for dirpath, _, names in os.walk(top):
			for n in names:
				p = os.path.join(dirpath, n)
				if (".so" in n and not os.path.islink(p) and p not in needed and
				    not n.startswith(KEEP_LIBRARIES)):
					extra.append(p)
	return extra


def tree_bytes(root):
	total = 0
	for dirpath, _, names in os.walk(root):
		for n in names:
			p = os.path.join(dirpath, n)
			if not os.path.islink(p):
				total += os.lstat(p).st_size
	return total


def build(args):
	for tool in ("mmdebstrap", "podman", "cpack", "dpkg-deb", "chroot"):
		if not shutil.which(tool):
			raise Usage("%s is not installed (tools/loadlens image build installs it as root)"
				    % tool)
	if os.geteuid() != 0:
		raise Usage("image build unpacks a root filesystem: run it as root")
	t0 = time.monotonic()
	work = tempfile.mkdtemp(prefix="loadlens-image.")
	try:
		deb = args.deb or make_deb(os.path.abspath(args.build), os.path.join(work, "deb"))
		version = deb_field(deb, "Version")
		tag = "%s:%s" % (IMAGE, version)
		pkgs = depends(deb_field(deb, "Depends"))
		root = os.path.join(work, "rootfs")
		say("unpacking Debian 12 (mmdebstrap --variant=extract): %s" % " ".join(pkgs))
		run(["mmdebstrap", "--variant=extract", "--include=" + ",".join(pkgs), "bookworm",
		     root] + list(MIRRORS), stdin=subprocess.DEVNULL)
		say("adding %s" % os.path.basename(deb))
		run(["dpkg-deb", "-x", deb, root])
		write_users(root)
		prune(root)
		run(["ldconfig", "-r", root])
		needed = check_libraries(root)
		extra = unneeded_libraries(root, needed)
		for p in extra:
			os.unlink(p)
		if extra:
			say("removed %d shared objects no binary loads (%s)" % (len(extra), ", ".join(
				sorted({os.path.relpath(os.path.dirname(p), root) for p in extra}))))
		run(["ldconfig", "-r", root])
		check_libraries(root)
		tar = os.path.join(work, "rootfs.tar")
		run(["tar", "--numeric-owner", "--sort=name", "-C", root, "-cf", tar, "."])
		say("importing into podman as %s" % tag)
		changes = ["USER=%d:%d" % (LOADLENS_UID, LOADLENS_UID), "WORKDIR=/results",
			   "ENV=PATH=/usr/sbin:/usr/bin:/sbin:/bin",
			   'CMD ["loadlens-driver","--help"]',
			   "LABEL=org.opencontainers.image.version=%s" % version,
			   "LABEL=org.opencontainers.image.title=loadlens"]
		cmd = ["podman", "import"]
		for c in changes:
			cmd += ["--change", c]
		run(cmd + [tar, tag])
		inspect = json.loads(run(["podman", "image", "inspect", tag]))[0]
		user = inspect.get("Config", {}).get("User", "")
		if user != "%d:%d" % (LOADLENS_UID, LOADLENS_UID):
			raise Failure("the image's user is %r, not loadlens" % user)
		for rel in BINARIES:
			out = run(podman_run(args.runtime) + ["--rm", "--network", "none", tag, "/" + rel,
							      "--version"])
			say("  %s" % out.strip().splitlines()[0])
		gz = run(["sh", "-c", 'gzip -6 -c "$1" | wc -c', "sh", tar]).strip()
		size = {"image": tag, "bytes": inspect.get("Size"), "tar_bytes": os.path.getsize(tar),
			"gzip_bytes": int(gz), "libraries": len(needed), "removed_libraries": len(extra),
			"packages": pkgs, "seconds": round(time.monotonic() - t0, 1)}
		print(json.dumps(size) if args.json else
		      "%s: %.1f MB (%d bytes) in podman, %.1f MB gzipped (what a registry stores); "
		      "user %d (loadlens); %d libraries, all resolved; built in %.0f s" % (
			      tag, size["bytes"] / 1e6, size["bytes"], size["gzip_bytes"] / 1e6,
			      LOADLENS_UID, len(needed), size["seconds"]))
	finally:
		if not args.keep:
			shutil.rmtree(work, ignore_errors=True)
		else:
			say("kept %s" % work)
	return 0


def main_args(argv):
	"""The parsed arguments of `image build ...` (Usage on bad input)."""
	p = Parser(prog="loadlens image", description=(
		"build localhost/loadlens:VERSION from Debian 12 packages and the project's .deb"))
	sub = p.add_subparsers(dest="cmd")
	b = sub.add_parser("build", help="build the image")
	b.add_argument("--build", default=os.environ.get("LOADLENS_BUILD", "build"),
		       help="the build tree cpack makes the .deb from (default: build/)")
	b.add_argument("--deb", help="use this .deb instead of making one")
	b.add_argument("--runtime", default="runc", help="podman's OCI runtime (default runc)")
	b.add_argument("--json", action="store_true", help="print the sizes as one JSON object")
	b.add_argument("--keep", action="store_true", help="keep the work folder (rootfs, tar)")
	args = p.parse_args(argv)
	if args.cmd != "build":
		raise Usage("usage: tools/loadlens image build [--build DIR] [--deb FILE] [--json]")
	if args.deb and not os.path.isfile(args.deb):
		raise Usage("--deb %s: no such file" % args.deb)
	return args


def main(argv):
	return build(main_args(argv))
