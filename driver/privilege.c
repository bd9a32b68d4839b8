// SPDX-License-Identifier: MIT
/* Dropping root and every capability before the first connection (see privilege.h). */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>
#include "loadlens/parse.h"
#include "privilege.h"

#define X_NOBODY 65534 /* when the passwd database has no "nobody" */

bool drv_priv_pick(const char *sudo_uid, const char *sudo_gid, uid_t nobody_uid,
		   gid_t nobody_gid, uid_t *uid, gid_t *gid)
{
	uint64_t u, g;

	if (sudo_uid && sudo_gid && !ll_parse_u64(sudo_uid, 1, 0xfffffffeULL, &u) &&
	    !ll_parse_u64(sudo_gid, 0, 0xfffffffeULL, &g)) {
		*uid = (uid_t)u;
		*gid = (gid_t)g;
		return true;
	}
	*uid = nobody_uid;
	*gid = nobody_gid;
	return false;
}

void drv_priv_target(struct drv_priv *p)
{
	struct passwd *pw = getpwnam("nobody");

	memset(p, 0, sizeof(*p));
	p->root = geteuid() == 0;
	p->from_sudo = drv_priv_pick(getenv("SUDO_UID"), getenv("SUDO_GID"),
				     pw ? pw->pw_uid : X_NOBODY, pw ? pw->pw_gid : X_NOBODY,
				     &p->uid, &p->gid);
}

/* The three sets of this process, 64 bits each. */
static int capget(uint64_t *eff, uint64_t *prm, uint64_t *inh)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	if (syscall(SYS_capget, &h, d))
		return -errno;
	*eff = d[0].effective | (uint64_t)d[1].effective << 32;
	*prm = d[0].permitted | (uint64_t)d[1].permitted << 32;
	*inh = d[0].inheritable | (uint64_t)d[1].inheritable << 32;
	return 0;
}

static int capclear(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

static int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
	int n = 63;

	if (f) {
		if (fscanf(f, "%d", &n) != 1 || n < 0 || n > 63)
			n = 63;
		fclose(f);
	}
	return n;
}

/* Empty the bounding set (needs CAP_SETPCAP: root has it; others may not, then it stays). */
static int drop_bounding(void)
{
	int c, last = last_cap(), err = 0;

	for (c = 0; c <= last; c++) {
		if (prctl(PR_CAPBSET_READ, c, 0, 0, 0) <= 0)
			continue;
		if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) && !err)
			err = -errno;
	}
	return err;
}

static int fail(char *msg, size_t len, const char *what, int err)
{
	snprintf(msg, len, "cannot drop privileges: %s: %s", what, strerror(-err));
	return err;
}

int drv_priv_drop(const struct drv_priv *p, char *msg, size_t len)
{
	uint64_t eff = 0, prm = 0, inh = 0;
	uid_t ru, eu, su;
	int err, bound;

	msg[0] = '\0';
	err = capget(&eff, &prm, &inh);
	if (err)
		return fail(msg, len, "capget", err);
	if (!p->root && !eff && !prm && !inh) {
		/* nothing held; keep it that way for anything this process might exec */
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
			return fail(msg, len, "PR_SET_NO_NEW_PRIVS", -errno);
		return 0;
	}
	bound = drop_bounding();
	if (bound && p->root)
		return fail(msg, len, "PR_CAPBSET_DROP", bound);
	(void)prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); /* EINVAL before 4.3 */
	if (p->root) {
		if (setgroups(1, &p->gid))
			return fail(msg, len, "setgroups", -errno);
		if (setresgid(p->gid, p->gid, p->gid))
			return fail(msg, len, "setresgid", -errno);
		if (setresuid(p->uid, p->uid, p->uid))
			return fail(msg, len, "setresuid", -errno);
	}
	err = capclear();
	if (err)
		return fail(msg, len, "capset", err);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return fail(msg, len, "PR_SET_NO_NEW_PRIVS", -errno);
	/* check, do not trust: no capability, no way back to root */
	err = capget(&eff, &prm, &inh);
	if (err || eff || prm || inh)
		return fail(msg, len, "capabilities still held", err ? err : -EPERM);
	if (p->root && (getresuid(&ru, &eu, &su) || ru != p->uid || eu != p->uid ||
			su != p->uid || !setuid(0)))
		return fail(msg, len, "uid check", -EPERM);
	if (p->root)
		snprintf(msg, len,
			 "started as root: running as uid %u gid %u (%s), no capabilities, "
			 "no_new_privs",
			 (unsigned)p->uid, (unsigned)p->gid,
			 p->from_sudo ? "SUDO_UID/SUDO_GID" : "nobody");
	else
		snprintf(msg, len, "dropped every capability%s, no_new_privs",
			 bound ? " (the bounding set kept its own: no CAP_SETPCAP)" : "");
	return 0;
}
