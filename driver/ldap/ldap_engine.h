/* SPDX-License-Identifier: MIT */
/*
 * --proto ldap on the TCP slots (ldap_engine.c): the bind at connect, the searches, their
 * outcome, and StartTLS, as the slots' protocol steps (tcp_ext.h).
 */
#ifndef LOADLENS_DRV_LDAP_ENGINE_H
#define LOADLENS_DRV_LDAP_ENGINE_H

#include "protocols/tcp_ext.h"

extern const struct drv_tcp_ext drv_ldap_tcp;

#endif /* LOADLENS_DRV_LDAP_ENGINE_H */
