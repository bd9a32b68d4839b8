/* SPDX-License-Identifier: MIT */
/*
 * LDAP replies (RFC 4511): a stream of BER LDAPMessages, framed by liblber's own incremental
 * reader (ber_get_next over a Sockbuf that reads the bytes being fed); each message's inside is
 * checked whole (ldap_pdu.h) before it counts. A search is complete at its SearchResultDone; its
 * SearchResultEntry and SearchResultReference messages are counted on the way, and the Done's
 * resultCode is its outcome. A bind is complete at its BindResponse. A reply with another
 * messageID, or an operation that does not answer the request, is malformed (DRV_E_MALFORMED); a
 * message whose inside does not hold is DRV_E_LDAP_MALFORMED; a Notice of Disconnection
 * (messageID 0) ends the request with its resultCode and the connection. Parsing only
 * (ldap_frame.c).
 */
#ifndef LOADLENS_DRV_LDAP_FRAME_H
#define LOADLENS_DRV_LDAP_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "framing/frame.h"
#include "framing/frame_app.h"
#include "framing/frame_ext.h"

#define DRV_LDAP_MAX_MESSAGE (16ULL << 20) /* one LDAPMessage (an entry), at most */

struct sockbuf;
struct berelement;

struct drv_ldap_state {
	struct sockbuf *sb;	/* liblber's reader, over in/left; made on first use, kept */
	struct berelement *ber; /* the message being read */
	const uint8_t *in;	/* the bytes being fed, not yet taken */
	size_t left;
	int32_t msgid;		/* the request's messageID */
	bool bind;		/* the request is a bind, else a search */
	bool extended;		/* the request is an ExtendedRequest (StartTLS) */
	bool notice;		/* a Notice of Disconnection came: the server closes */
	uint32_t entries;	/* SearchResultEntry messages of this search */
	uint32_t refs;		/* SearchResultReference messages */
	int32_t code;		/* the resultCode of the Done (BindResponse); -1 before */
};

/* A connection's LDAP state: its frame's protocol state (frame_ext.h). */
static inline struct drv_ldap_state *drv_ldap_of(struct drv_frame *f)
{
	return (struct drv_ldap_state *)(void *)f->app.ext;
}

static inline const struct drv_ldap_state *drv_ldap_of_const(const struct drv_frame *f)
{
	return (const struct drv_ldap_state *)(const void *)f->app.ext;
}

/* The LDAP framing (rule DRV_RESP_LDAP) over a frame's state, for the protocol's table. */
extern const struct drv_frame_ext drv_ldap_frame;

/* Before a request: what answers it (bind or search, and its messageID). */
void drv_ldap_reset(struct drv_ldap_state *s, int32_t msgid, bool bind);
/* Before an ExtendedRequest (StartTLS): its ExtendedResponse, of messageID msgid, answers it. */
void drv_ldap_reset_extended(struct drv_ldap_state *s, int32_t msgid);
/*
 * Feed n bytes; returns the bytes used (<= n, all of them unless the response completed). *res is
 * 0 while the response is incomplete, 1 once it is complete (then *verdict and s->code are set),
 * DRV_E_MALFORMED (also a message over DRV_LDAP_MAX_MESSAGE: liblber says ERANGE for that as for
 * a zero length), DRV_E_LDAP_MALFORMED (a message whose inner lengths or fields do not hold) or
 * -ENOMEM.
 */
size_t drv_ldap_feed(struct drv_ldap_state *s, const uint8_t *p, size_t n, int *res,
		     enum drv_app_verdict *verdict);
/* Free liblber's objects (a connection slot's end); the state can be used again. */
void drv_ldap_state_free(struct drv_ldap_state *s);

#endif /* LOADLENS_DRV_LDAP_FRAME_H */
