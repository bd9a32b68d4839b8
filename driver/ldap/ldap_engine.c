// SPDX-License-Identifier: MIT
/*
 * --proto ldap on the TCP slots (ldap_engine.h), as their protocol steps (tcp_ext.h). A
 * connection binds first (anonymous, or simple with --bind-dn): messageID 1, then each search
 * takes the next. The bind is not a request: it is timed by no histogram, counted by its
 * resultCode (stats.h's app.hello[]), and a failed one fails the request waiting for the connection
 * (ldap_bind class), which backs off as after a failed connect: the slot counts as connected only
 * once bound. --starttls: first RFC 4511's ExtendedRequest for 1.3.6.1.4.1.1466.20037 (messageID
 * 1) in the clear, its ExtendedResponse framed like any LDAP reply; another resultCode than
 * success fails the connection as a tls error whose reason is the code's name. The bind then
 * takes messageID 2.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "base/errors.h"
#include "config/config.h"
#include "ldap/ldap_request.h"
#include "framing/frame.h"
#include "ldap/ldap_frame.h"
#include "ldap/ldap_codes.h"
#include "ldap/ldap_engine.h"
#include "protocols/tcp_conn.h"
#include "scheduling/slot.h"
#include "scheduling/timing.h"

/* LDAPMessage { messageID 1, [APPLICATION 23] { [0] "1.3.6.1.4.1.1466.20037" } } */
static const char starttls_req[] = "\x30\x1d\x02\x01\x01\x77\x18\x80\x16"
				   "1.3.6.1.4.1.1466.20037";

/* A thread's part (tt->app_data). */
struct ldap_thread {
	const struct drv_ldap_cfg *lc;
	struct drv_ldap_req req; /* its search templates */
};

static struct ldap_thread *thread_of(const struct tcp_thread *tt)
{
	return tt->app_data;
}

static int init(struct tcp_thread *tt, struct drv_worker *w)
{
	const struct drv_config *cfg = w->cfg;
	struct ldap_thread *lt = malloc(sizeof(*lt));

	if (!lt)
		return -ENOMEM;
	lt->lc = cfg->ldap;
	if (drv_ldap_req_init(&lt->req, cfg->ldap, cfg->seed, w->id, (uint32_t)cfg->threads)) {
		free(lt);
		return -ENOMEM;
	}
	tt->app_data = lt;
	return 0;
}

static void fini(struct tcp_thread *tt)
{
	struct ldap_thread *lt = thread_of(tt);

	if (!lt)
		return;
	drv_ldap_req_fini(&lt->req);
	free(lt);
	tt->app_data = NULL;
}

static size_t max_len(const struct tcp_thread *tt)
{
	return thread_of(tt)->lc->max_len;
}

/* The connection is up: the BindRequest into *b (c->mbuf), the slot now binding. */
static int ldap_bind(struct tcp_conn *c, uv_buf_t *b)
{
	const struct drv_ldap_cfg *lc = thread_of(c->tt)->lc;
	long n;

	c->msgid = lc->tls == DRV_LDAP_TLS_STARTTLS ? 2 : 1; /* StartTLS took 1 */
	n = drv_ldap_bind(lc, c->msgid, c->mbuf, lc->max_len);
	if (n < 0)
		return (int)n;
	drv_frame_reset(&c->tt->rule, &c->frame);
	drv_ldap_reset(drv_ldap_of(&c->frame), c->msgid, true);
	c->binding = true;
	c->sc.base.deadline = uv_hrtime() + c->tt->th.timeout_ns;
	*b = uv_buf_init(c->mbuf, (unsigned int)n);
	return 0;
}

/* Bytes of the BindResponse: 0 more to come, 1 bound (the slot connected), or a failure. */
static int bound(struct tcp_conn *c, const char *p, size_t n)
{
	const struct drv_ldap_state *s = drv_ldap_of(&c->frame);
	int err = drv_frame_feed(&c->tt->rule, &c->frame, p, n);

	if (err)
		return err;
	if (!c->frame.done)
		return 0;
	if (c->sc.writing) /* an answer before the whole bind was written */
		return DRV_E_MALFORMED;
	tcp_conn_stats(c)->app.hello[drv_ldap_code_slot(s->code)]++;
	if (s->code)
		return DRV_E_LDAP_BIND;
	c->binding = false;
	c->sc.base.deadline = 0;
	drv_slot_connected(&c->sc.base);
	return 1;
}

/* The next SearchRequest into *b (c->mbuf), the framing told its messageID. */
static int search(struct tcp_conn *c, uv_buf_t *b)
{
	struct ldap_thread *lt = thread_of(c->tt);
	long n;

	c->msgid = drv_ldap_next_id(c->msgid);
	n = drv_ldap_search(&lt->req, c->msgid, c->mbuf, lt->lc->max_len, NULL, 0);
	if (n < 0)
		return (int)n;
	drv_ldap_reset(drv_ldap_of(&c->frame), c->msgid, false);
	*b = uv_buf_init(c->mbuf, (unsigned int)n);
	return 0;
}

/* A search done: its resultCode, entries and references */
static void outcome(const struct drv_frame *f, struct drv_timing_reply *r)
{
	const struct drv_ldap_state *s = drv_ldap_of_const(f);

	r->err = drv_frame_verdict_err(f);
	r->app_code = s->code;
	r->app_items = s->entries;
	r->app_refs = s->refs;
}

static size_t starttls(struct tcp_conn *c, const char **req)
{
	if (thread_of(c->tt)->lc->tls == DRV_LDAP_TLS_LDAPS)
		return 0;
	drv_frame_reset(&c->tt->rule, &c->frame);
	drv_ldap_reset_extended(drv_ldap_of(&c->frame), 1);
	*req = starttls_req;
	return sizeof(starttls_req) - 1;
}

static int starttls_done(struct tcp_conn *c, char *why, size_t len)
{
	const struct drv_ldap_state *s = drv_ldap_of(&c->frame);
	char name[32];

	if (!s->code)
		return 0;
	snprintf(why, len, "the server refused StartTLS: %s",
		 drv_ldap_code_name(drv_ldap_code_slot(s->code), name, sizeof(name)));
	return DRV_E_TLS;
}

const struct drv_tcp_ext drv_ldap_tcp = {
	.init = init, .fini = fini, .max_len = max_len, .hello = ldap_bind, .hello_in = bound,
	.request = search, .outcome = outcome, .starttls = starttls,
	.starttls_done = starttls_done,
};
