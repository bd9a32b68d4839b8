// SPDX-License-Identifier: MIT
/* Privileged start-up: mounts, prerequisite checks, tracepoint probes, privilege drop. */
#include <errno.h>
#include <glob.h>
#include <grp.h>
#include <pwd.h>
#include <sched.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <jansson.h>
#include "loadlens/cli.h"
#include "loadlens/observer.h"
#include "loadlens/reqtime.h"
#include "kernel/startup.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON 38
#endif
#ifndef CAP_BPF
#define CAP_BPF 39
#endif
#define TRACEFS_MAGIC 0x74726163
#define BPF_FS_MAGIC 0xcafe4a11

static const char *tracefs_path;
static bool own_mntns; /* we moved to a mount namespace of our own, for the mounts we make */
static struct btf *vmlinux_btf;
static bool vmlinux_btf_tried;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return vfprintf(stderr, fmt, ap);
}

static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	return 0;
}

void obs_startup_libbpf_log(bool verbose)
{
	libbpf_set_print(verbose ? libbpf_print : libbpf_quiet);
}

/* Capability sets, as two 32-bit words each (version 3). */
struct caps {
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
};

static int capget(struct caps *c)
{
	memset(c, 0, sizeof(*c));
	c->hdr.version = _LINUX_CAPABILITY_VERSION_3;
	c->hdr.pid = 0;
	return syscall(SYS_capget, &c->hdr, c->data) ? -errno : 0;
}

static int capset(struct caps *c)
{
	c->hdr.version = _LINUX_CAPABILITY_VERSION_3;
	c->hdr.pid = 0;
	return syscall(SYS_capset, &c->hdr, c->data) ? -errno : 0;
}

static bool cap_effective(const struct caps *c, int cap)
{
	return c->data[cap / 32].effective & (1u << (cap % 32));
}

bool obs_startup_have_bpf_privilege(void)
{
	struct caps c;

	if (capget(&c))
		return false;
	if (cap_effective(&c, CAP_SYS_ADMIN))
		return true;
	return cap_effective(&c, CAP_BPF) && cap_effective(&c, CAP_PERFMON);
}

static bool is_fs(const char *path, long magic)
{
	struct statfs st;

	return statfs(path, &st) == 0 && (long)st.f_type == magic;
}

/*
 * Mounts the observer makes live in a mount namespace of its own (and its helper's), slave to the
 * host's: the host's mount table never changes, and they are undone when the observer exits, even
 * when it is killed. Unsharing needs a single thread: this runs first thing in main().
 */
static int own_mount_namespace(void)
{
	if (own_mntns)
		return 0;
	if (unshare(CLONE_NEWNS))
		return -errno;
	own_mntns = true;
	/* nothing mounted here propagates back to the host */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL))
		return -errno;
	return 0;
}

/* Mount fstype at path unless it is there already, saying so once. Returns 0 or -errno. */
static int ensure_mounted(const char *prog, const char *fstype, const char *path, long magic)
{
	int err;

	if (is_fs(path, magic))
		return 0;
	err = own_mount_namespace();
	if (err)
		return err;
	if (mount(fstype, path, fstype, 0, NULL))
		return -errno;
	if (!is_fs(path, magic))
		return -ENODEV;
	ll_warn(prog, "note: %s was not mounted; mounted it at %s for this run only, in the "
		      "observer's own mount namespace (the host's mounts are unchanged, and it is "
		      "gone when the observer exits)", fstype, path);
	return 0;
}

static int find_tracefs(const char *prog)
{
	int err;

	if (is_fs(OBS_TRACEFS, TRACEFS_MAGIC)) {
		tracefs_path = OBS_TRACEFS;
		return 0;
	}
	if (is_fs(OBS_TRACEFS_OLD, TRACEFS_MAGIC)) {
		tracefs_path = OBS_TRACEFS_OLD;
		return 0;
	}
	err = ensure_mounted(prog, "tracefs", OBS_TRACEFS, TRACEFS_MAGIC);
	if (err) {
		ll_warn(prog,
			"tracefs is not mounted and mounting it at %s failed (%s); run "
			"'mount -t tracefs tracefs %s' as root, or use a kernel with CONFIG_TRACING",
			OBS_TRACEFS, strerror(-err), OBS_TRACEFS);
		return -ENOENT;
	}
	tracefs_path = OBS_TRACEFS;
	return 0;
}

int obs_startup_check(const char *prog, unsigned int needs)
{
	int err = 0, e;

	if (!obs_startup_have_bpf_privilege()) {
		ll_warn(prog, "needs root, or CAP_BPF and CAP_PERFMON (CAP_SYS_ADMIN on older "
			      "kernels), to load BPF programs; run it with sudo");
		/* nothing else can be checked or mounted without privilege */
		return -EPERM;
	}
	if (access(OBS_VMLINUX_BTF, R_OK)) {
		ll_warn(prog,
			"kernel BTF is missing (%s: %s); use a kernel built with "
			"CONFIG_DEBUG_INFO_BTF=y (5.4 or newer)",
			OBS_VMLINUX_BTF, strerror(errno));
		err = -ENOENT;
	}
	if (needs & OBS_NEED_TRACEFS) {
		e = find_tracefs(prog);
		if (e)
			err = e;
	}
	if (needs & OBS_NEED_BPFFS) {
		e = ensure_mounted(prog, "bpf", OBS_BPFFS, BPF_FS_MAGIC);
		if (e)
			ll_warn(prog, "note: bpffs is not mounted at %s and mounting it failed (%s)",
				OBS_BPFFS, strerror(-e));
	}
	return err;
}

const char *obs_startup_tracefs(void)
{
	return tracefs_path;
}

const char *obs_startup_tracefs_find(bool mount)
{
	if (mount)
		find_tracefs("loadlens-observer");
	else if (is_fs(OBS_TRACEFS, TRACEFS_MAGIC))
		tracefs_path = OBS_TRACEFS;
	return tracefs_path;
}

bool obs_startup_tracepoint_exists(const char *category, const char *name)
{
	char path[512];
	struct stat st;

	if (!tracefs_path)
		return false;
	snprintf(path, sizeof(path), "%s/events/%s/%s", tracefs_path, category, name);
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

static const struct btf *startup_vmlinux_btf(void)
{
	if (!vmlinux_btf_tried) {
		vmlinux_btf_tried = true;
		/* NULL on failure: then nothing is reported present */
		vmlinux_btf = btf__load_vmlinux_btf();
	}
	return vmlinux_btf;
}

bool obs_startup_btf_tracepoint_exists(const char *name)
{
	const struct btf *btf = startup_vmlinux_btf();
	char type[256];

	if (!btf)
		return false;
	snprintf(type, sizeof(type), "btf_trace_%s", name);
	return btf__find_by_name_kind(btf, type, BTF_KIND_TYPEDEF) > 0;
}

int obs_startup_btf_tracepoint_nargs(const char *name)
{
	const struct btf *btf = startup_vmlinux_btf();
	const struct btf_type *t;
	char type[256];
	int id;

	if (!btf)
		return -1;
	snprintf(type, sizeof(type), "btf_trace_%s", name);
	id = btf__find_by_name_kind(btf, type, BTF_KIND_TYPEDEF);
	if (id <= 0)
		return -1;
	/* typedef -> pointer -> function prototype (void *ctx, the tracepoint's arguments...) */
	t = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!t || !btf_is_ptr(t))
		return -1;
	t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_func_proto(t) || btf_vlen(t) < 1)
		return -1;
	return btf_vlen(t) - 1;
}

bool obs_startup_btf_enum_exists(const char *name)
{
	const struct btf *btf = startup_vmlinux_btf();

	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_ENUM) > 0;
}

bool obs_startup_btf_func_exists(const char *name)
{
	const struct btf *btf = startup_vmlinux_btf();

	return btf && btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) > 0;
}

int obs_startup_fentry_probe(const char *func)
{
	/* r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	const struct btf *btf = startup_vmlinux_btf();
	int id, fd, link, err = 0;

	id = btf ? btf__find_by_name_kind(btf, func, BTF_KIND_FUNC) : -ENOENT;
	if (id <= 0)
		return -ENOENT;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = (__u32)id);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ll_fentry", "GPL", insns, 2, &o);
	if (fd < 0)
		return -errno;
	/* loading is not enough: a kernel without trampolines refuses only the attach */
	link = bpf_raw_tracepoint_open(NULL, fd);
	if (link < 0)
		err = -errno;
	else
		close(link);
	close(fd);
	return err;
}

bool obs_startup_tracing_helper_known(int func_id, int attach_type, const char *target)
{
	/* call func_id (its arguments whatever the registers hold); r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{.code = BPF_JMP | BPF_CALL, .imm = func_id},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	const struct btf *btf = startup_vmlinux_btf();
	static char log[4096];
	int id, fd;

	id = btf ? btf__find_by_name_kind(btf, target, attach_type == BPF_TRACE_ITER ? BTF_KIND_FUNC
									     : BTF_KIND_TYPEDEF)
		 : -ENOENT;
	if (id <= 0)
		return false;
	log[0] = 0;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = (enum bpf_attach_type)attach_type,
		    .attach_btf_id = (__u32)id,
		    .log_buf = log, .log_size = sizeof(log), .log_level = 1);
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ll_helper", "GPL", insns, 3, &o);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	/* refused for its arguments (the helper is there), or for not knowing it: "unknown func"
	 * (not allowed in this program type), "invalid func" (past the kernel's last helper) */
	return !strstr(log, "unknown func") && !strstr(log, "invalid func");
}

bool obs_startup_atomics_known(void)
{
	/* *(u64 *)(r10 - 8) = 0; r0 = 0; r1 = 1; r0 = cmpxchg(r10 - 8, r0, r1); r0 = 0; exit */
	const struct bpf_insn insns[] = {
		{.code = BPF_ST | BPF_MEM | BPF_DW, .dst_reg = BPF_REG_10, .off = -8, .imm = 0},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1, .imm = 1},
		{.code = BPF_STX | BPF_ATOMIC | BPF_DW, .dst_reg = BPF_REG_10, .src_reg = BPF_REG_1,
		 .off = -8, .imm = BPF_CMPXCHG},
		{.code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0},
		{.code = BPF_JMP | BPF_EXIT},
	};
	static char log[1024];
	int fd;

	log[0] = 0;
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = sizeof(log), .log_level = 1);
	fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ll_atomic", "GPL", insns, 6, &o);
	if (fd >= 0) {
		close(fd);
		return true;
	}
	return !strstr(log, "reserved fields") && !strstr(log, "unknown atomic");
}

int obs_startup_drop_privileges(int (*verify)(void *arg), void *arg)
{
	return obs_startup_drop_privileges_keep(verify, arg, 0);
}

/* Empty the bounding set (needs CAP_SETPCAP, so before anything else goes; a process started
 * without it, with CAP_BPF and CAP_PERFMON only, keeps its set: no-new-privs still holds). */
static int clear_bounding(const struct caps *c)
{
	int cap;

	if (!cap_effective(c, CAP_SETPCAP))
		return 0;

	for (cap = 0; cap <= 63; cap++) {
		if (prctl(PR_CAPBSET_READ, cap, 0, 0, 0) <= 0)
			continue; /* not in the set, or past the kernel's last capability */
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0))
			return -errno;
	}
	return 0;
}

static int drop(int (*verify)(void *arg), void *arg, uint64_t keep, const struct obs_user *u)
{
	struct caps c, saved;
	int err, i;

	err = capget(&saved);
	if (err)
		return err;
	/* ambient capabilities would come back on exec; clear them while we still can */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -errno;

	/* step 1: with an empty effective set, can the caller still work? If not, undo. */
	c = saved;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		c.data[i].effective = 0;
		c.data[i].inheritable = 0;
	}
	err = capset(&c);
	if (err)
		return err;
	if (verify) {
		err = verify(arg);
		if (err) {
			capset(&saved);
			return u ? 1 : err;
		}
	}
	/* step 2, no way back from here: the bounding set, then the uid (keeping the permitted
	 * set across it), then permitted and effective down to `keep` */
	err = capset(&saved);
	if (!err)
		err = clear_bounding(&saved);
	if (!err && u) {
		if (setgroups(0, NULL) || setresgid(u->gid, u->gid, u->gid) ||
		    prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) || setresuid(u->uid, u->uid, u->uid))
			err = -errno;
		prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	}
	if (err)
		return err;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		uint32_t k = (uint32_t)(keep >> (32 * i)) & saved.data[i].permitted;

		c.data[i].permitted = k;
		c.data[i].effective = k;
		c.data[i].inheritable = 0;
	}
	err = capset(&c);
	if (err)
		return err;
	/* and exec cannot grant any (setuid, file capabilities, root's implicit set) */
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	return 0;
}

int obs_startup_thread_keep_caps(uint64_t keep)
{
	struct caps c;
	int err, i;

	err = capget(&c);
	if (!err)
		err = clear_bounding(&c);
	if (err)
		return err;
	for (i = 0; i < _LINUX_CAPABILITY_U32S_3; i++) {
		c.data[i].permitted &= (uint32_t)(keep >> (32 * i));
		c.data[i].effective = c.data[i].permitted;
		c.data[i].inheritable = 0;
	}
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) && errno != EINVAL)
		return -errno;
	err = capset(&c);
	if (!err && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		err = -errno;
	return err;
}

int obs_startup_drop_privileges_keep(int (*verify)(void *arg), void *arg, uint64_t keep)
{
	return drop(verify, arg, keep, NULL);
}

int obs_startup_unprivileged_user(struct obs_user *u)
{
	static const char *const names[] = {OBS_USER, "nobody"};
	struct passwd *pw;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		pw = getpwnam(names[i]);
		if (pw && pw->pw_uid) {
			u->uid = pw->pw_uid;
			u->gid = pw->pw_gid;
			snprintf(u->name, sizeof(u->name), "%s", names[i]);
			return 0;
		}
	}
	/* no such user in the passwd database: the overflow ids */
	u->uid = 65534;
	u->gid = 65534;
	snprintf(u->name, sizeof(u->name), "uid 65534");
	return 0;
}

int obs_startup_drop_to_user(int (*verify)(void *arg), void *arg, uint64_t keep,
			     const struct obs_user *u)
{
	return drop(verify, arg, keep, u);
}

void obs_startup_cleanup(void)
{
	btf__free(vmlinux_btf);
	vmlinux_btf = NULL;
	vmlinux_btf_tried = false;
	tracefs_path = NULL;
}

int obs_startup_libbpf_refused(const char *prog, const char *what, int err)
{
	if (err)
		ll_warn(prog, "cannot %s: %s; rerun with -v for libbpf's log", what, strerror(-err));
	return err;
}
