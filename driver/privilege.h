/* SPDX-License-Identifier: MIT */
/*
 * Least privilege. The driver needs none: it connects, binds --source-addr addresses with port 0,
 * and reads its files before the run. Started as root, it becomes SUDO_UID/SUDO_GID (the user
 * behind sudo) or nobody before any connection, with no capability left in any set (bounding
 * and ambient included) and PR_SET_NO_NEW_PRIVS, so nothing it runs can gain any back.
 */
#ifndef LOADLENS_DRV_PRIVILEGE_H
#define LOADLENS_DRV_PRIVILEGE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

struct drv_priv {
	bool root;	 /* started with euid 0: uid and gid are where it goes */
	bool from_sudo;	 /* the target came from SUDO_UID/SUDO_GID, not nobody */
	uid_t uid;
	gid_t gid;
};

/*
 * Where a root start goes: SUDO_UID/SUDO_GID when both are decimal ids and the uid is not 0,
 * else nobody_uid/nobody_gid. Pure: for tests. Returns true when taken from sudo.
 */
bool drv_priv_pick(const char *sudo_uid, const char *sudo_gid, uid_t nobody_uid,
		   gid_t nobody_gid, uid_t *uid, gid_t *gid);
/* Fill p from the process (euid) and its environment. */
void drv_priv_target(struct drv_priv *p);
/*
 * Drop: the bounding and ambient sets emptied, then groups, gid, uid (when root), every
 * capability set cleared, PR_SET_NO_NEW_PRIVS, and a check that it all held. 0 with the line to
 * log in msg (empty when there was nothing to drop), or a negative errno with one line in msg.
 */
int drv_priv_drop(const struct drv_priv *p, char *msg, size_t len);

#endif /* LOADLENS_DRV_PRIVILEGE_H */
