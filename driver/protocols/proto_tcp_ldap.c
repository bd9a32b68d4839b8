// SPDX-License-Identifier: MIT
/*
 * --proto ldap on the TCP slots (proto_tcp_ldap.h). A connection binds first (anonymous, or
 * simple with --bind-dn): messageID 1, then each search takes the next. The bind is not a
 * request: it is timed by no histogram, counted by its resultCode (ldap_bind[]), and a failed one
 * fails the request waiting for the connection (ldap_bind class), which backs off as after a
 * failed connect: the slot counts as connected only once bound.
 */
#include <errno.h>
#include <stdlib.h>
#include "config/ldap_request.h"
#include "framing/frame.h"
#include "framing/ldap_codes.h"
#include "protocols/proto_tcp_ldap.h"
#include "scheduling/slot.h"

int drv__tcp_ldap_init(struct tcp_thread *tt, struct drv_worker *w)
{
	const struct drv_config *cfg = w->cfg;

	tt->ldap = cfg->ldap;
	tt->lreq = malloc(sizeof(*tt->lreq));
	if (!tt->lreq)
		return -ENOMEM;
	if (drv_ldap_req_init(tt->lreq, cfg->ldap, cfg->seed, w->id, (uint32_t)cfg->threads)) {
		free(tt->lreq);
		tt->lreq = NULL;
		return -ENOMEM;
	}
	return 0;
}

void drv__tcp_ldap_fini(struct tcp_thread *tt)
{
	if (!tt->lreq)
		return;
	drv_ldap_req_fini(tt->lreq);
	free(tt->lreq);
	tt->lreq = NULL;
}

int drv__tcp_ldap_bind(struct tcp_conn *c, uv_buf_t *b)
{
	long n;

	c->msgid = c->tt->ldap->tls == DRV_LDAP_TLS_STARTTLS ? 2 : 1; /* StartTLS took 1 */
	n = drv_ldap_bind(c->tt->ldap, c->msgid, c->mbuf, c->tt->ldap->max_len);
	if (n < 0)
		return (int)n;
	drv_frame_reset(&c->tt->rule, &c->frame);
	drv_ldap_reset(&c->frame.app.ldap, c->msgid, true);
	c->binding = true;
	c->sc.base.deadline = uv_hrtime() + c->tt->th.timeout_ns;
	*b = uv_buf_init(c->mbuf, (unsigned int)n);
	return 0;
}

int drv__tcp_ldap_bound(struct tcp_conn *c, const char *p, size_t n)
{
	const struct drv_ldap_state *s = &c->frame.app.ldap;
	int err = drv_frame_feed(&c->tt->rule, &c->frame, p, n);

	if (err)
		return err;
	if (!c->frame.done)
		return 0;
	if (c->sc.writing) /* an answer before the whole bind was written */
		return DRV_E_MALFORMED;
	tcp_conn_stats(c)->ldap_bind[drv_ldap_code_slot(s->code)]++;
	if (s->code)
		return DRV_E_LDAP_BIND;
	c->binding = false;
	c->sc.base.deadline = 0;
	drv_slot_connected(&c->sc.base);
	return 1;
}

int drv__tcp_ldap_search(struct tcp_conn *c, uv_buf_t *b)
{
	long n;

	c->msgid = drv_ldap_next_id(c->msgid);
	n = drv_ldap_search(c->tt->lreq, c->msgid, c->mbuf, c->tt->ldap->max_len, NULL, 0);
	if (n < 0)
		return (int)n;
	drv_ldap_reset(&c->frame.app.ldap, c->msgid, false);
	*b = uv_buf_init(c->mbuf, (unsigned int)n);
	return 0;
}
