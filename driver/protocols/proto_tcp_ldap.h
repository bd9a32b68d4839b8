/* SPDX-License-Identifier: MIT */
/*
 * --proto ldap on a TCP connection slot (proto_tcp_ldap.c): the bind once the connection is up,
 * its response, and each search's bytes with the next messageID. proto_tcp.c writes and reads;
 * this layer encodes, checks and counts the binds, and never ends a connection itself.
 */
#ifndef LOADLENS_DRV_PROTO_TCP_LDAP_H
#define LOADLENS_DRV_PROTO_TCP_LDAP_H

#include <stddef.h>
#include <uv.h>
#include "protocols/tcp_conn.h"
#include "scheduling/worker.h"

/* The thread's search state (tt->lreq) when the run is --proto ldap. 0 or -ENOMEM. */
int drv__tcp_ldap_init(struct tcp_thread *tt, struct drv_worker *w);
void drv__tcp_ldap_fini(struct tcp_thread *tt);
/* The connection is up: the BindRequest into *b (c->mbuf), the slot now binding. 0 or -errno. */
int drv__tcp_ldap_bind(struct tcp_conn *c, uv_buf_t *b);
/*
 * Bytes while binding: 0 (the BindResponse goes on), 1 (bound: send the search), or the failure
 * to count (DRV_E_LDAP_BIND with its resultCode counted, DRV_E_MALFORMED).
 */
int drv__tcp_ldap_bound(struct tcp_conn *c, const char *p, size_t n);
/* The next SearchRequest into *b (c->mbuf), the framing told its messageID. 0 or -errno. */
int drv__tcp_ldap_search(struct tcp_conn *c, uv_buf_t *b);

#endif /* LOADLENS_DRV_PROTO_TCP_LDAP_H */
