// SPDX-License-Identifier: MIT
/*
 * A protocol over TLS on the TCP slots (proto_tcp_tls.h: LDAP's ldaps:// and --starttls). From
 * the connect (ldaps://): the handshake starts once the TCP connection is up. After StartTLS: the
 * protocol's request for it goes first in the clear (tcp_ext.h's starttls), its answer framed
 * like any of its replies; the protocol says whether it accepted (starttls_done), which starts
 * the handshake, or fails the connection as a tls error with its reason. The protocol's greeting
 * then goes over TLS. A handshake that fails is a tls error with OpenSSL's reason, so a run where
 * every connection fails stops at once (failfast.h).
 *
 * Records out: OpenSSL writes them into its memory BIO; here they are moved to pend and written by
 * the stream base's writer (stream_conn.h: what the socket does not take goes through the slot's
 * one uv_write_t, and what is made meanwhile waits in pend for its end: drv__tcp_tls_flush).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "base/errors.h"
#include "config/config.h"
#include "config/app.h"
#include "framing/frame.h"
#include "protocols/proto_tcp_tls.h"

#define TLS_PLAIN_BUF (64 * 1024)

int drv__tcp_tls_init(struct tcp_thread *tt, struct drv_worker *w)
{
	char msg[512];

	if (!drv_config_app_tls(w->cfg))
		return 0;
	tt->tls_ctx = drv_tls_ctx_new(w->cfg, NULL, 0, msg, sizeof(msg)); /* no ALPN */
	if (!tt->tls_ctx) {
		fprintf(stderr, "%s: %s\n", DRV_PROG, msg);
		return -EINVAL;
	}
	tt->plain_len = TLS_PLAIN_BUF;
	tt->plain = malloc(tt->plain_len);
	return tt->plain ? 0 : -ENOMEM;
}

void drv__tcp_tls_fini(struct tcp_thread *tt)
{
	drv_tls_ctx_free(tt->tls_ctx);
	tt->tls_ctx = NULL;
	free(tt->plain);
	tt->plain = NULL;
}

int drv__tcp_tls_slot_init(struct tcp_conn *c)
{
	if (!c->tt->tls_ctx)
		return 0;
	c->tl = calloc(1, sizeof(*c->tl));
	return c->tl ? 0 : -ENOMEM;
}

void drv__tcp_tls_slot_release(struct tcp_conn *c)
{
	if (!c->tl)
		return;
	drv_tls_fini(&c->tl->tls);
	drv_stream_out_free(&c->tl->o);
	free(c->tl);
	c->tl = NULL;
}

int drv__tcp_tls_flush(struct tcp_conn *c)
{
	struct tcp_tls *tl = c->tl;
	size_t n = tl->tls.ssl ? drv_tls_out_pending(&tl->tls) : 0;
	char *p;

	if (n) {
		p = drv_buf_room(&tl->o.pend, n);
		if (!p)
			return -ENOMEM;
		tl->o.pend.len += drv_tls_out_take(&tl->tls, p, n);
	}
	return drv_stream_write_pend(&c->sc, &tl->o); /* its end comes back here (written) */
}

int drv__tcp_tls_send(struct tcp_conn *c, const uv_buf_t *b, unsigned nb)
{
	unsigned i;
	int err;

	for (i = 0; i < nb; i++) {
		err = drv_tls_write(&c->tl->tls, b[i].base, b[i].len);
		if (err)
			return err;
	}
	return drv__tcp_tls_flush(c);
}

/* The handshake's next step, its records out: 0, 1 (over), or DRV_E_TLS. */
static int handshake(struct tcp_conn *c)
{
	int r = drv_tls_handshake(&c->tl->tls);
	int err;

	if (r < 0)
		r = DRV_E_TLS; /* no ALPN offered: never not_h2 */
	err = drv__tcp_tls_flush(c); /* a failed handshake's alert too */
	if (r < 0 || err)
		return r < 0 ? r : err;
	if (r == 1)
		c->tl->step = TCP_TLS_UP;
	return r;
}

static int start_handshake(struct tcp_conn *c)
{
	const struct drv_config *cfg = c->sc.base.w->cfg;

	if (drv_tls_init(&c->tl->tls, c->tt->tls_ctx, cfg->url.host, !cfg->insecure))
		return -ENOMEM;
	c->tl->step = TCP_TLS_HANDSHAKE;
	return handshake(c); /* the ClientHello: never over at once */
}

int drv__tcp_tls_connected(struct tcp_conn *c)
{
	struct tcp_tls *tl = c->tl;
	const char *req;
	size_t n;
	char *p;

	tl->o.pend.len = 0;
	n = c->tt->app->starttls(c, &req); /* the protocol's StartTLS, or none (ldaps) */
	if (!n)
		return start_handshake(c) < 0 ? DRV_E_TLS : 0;
	p = drv_buf_room(&tl->o.pend, n);
	if (!p)
		return -ENOMEM;
	memcpy(p, req, n);
	tl->o.pend.len += n;
	tl->step = TCP_TLS_STARTTLS;
	return drv__tcp_tls_flush(c);
}

/* The StartTLS reply, in the clear: 0 (more to come, or the handshake begun) or a failure. */
static int starttls_in(struct tcp_conn *c, const char *p, size_t n)
{
	char why[96];
	int err = drv_frame_feed(&c->tt->rule, &c->frame, p, n);

	if (err || !c->frame.done)
		return err;
	err = c->tt->app->starttls_done(c, why, sizeof(why));
	if (err) {
		drv_worker_why(c->sc.base.w, why);
		return err;
	}
	/* nothing may follow the response before our ClientHello: any rest is not taken */
	return start_handshake(c);
}

int drv__tcp_tls_in(struct tcp_conn *c, const char *p, size_t n)
{
	struct tcp_tls *tl = c->tl;

	if (tl->step == TCP_TLS_STARTTLS)
		return starttls_in(c, p, n);
	if (!tl->tls.ssl || drv_tls_feed(&tl->tls, p, n))
		return DRV_E_TLS;
	return tl->step == TCP_TLS_HANDSHAKE ? handshake(c) : 0;
}

int drv__tcp_tls_plain(struct tcp_conn *c)
{
	if (!c->tl->tls.done)
		return 0;
	return drv_tls_read(&c->tl->tls, c->tt->plain, c->tt->plain_len);
}

void drv__tcp_tls_close(struct tcp_conn *c)
{
	drv_tls_fini(&c->tl->tls);
	c->tl->step = TCP_TLS_UP;
	c->tl->o.pend.len = 0;
}

void drv__tcp_tls_why(struct tcp_conn *c, int err)
{
	if (err != DRV_E_TLS)
		return;
	if (c->tl->tls.why)
		drv_worker_why(c->sc.base.w, c->tl->tls.why);
	else if (c->tl->step == TCP_TLS_STARTTLS)
		drv_worker_why(c->sc.base.w, "the server closed the connection before it answered "
					  "StartTLS");
	else
		drv_worker_why(c->sc.base.w, "the server closed the connection during the TLS "
					  "handshake");
}
