// SPDX-License-Identifier: MIT
/*
 * LDAP request bytes with liblber (ldap_request.h). The shapes, RFC 4511 4.2 and 4.5.1:
 *   LDAPMessage   { messageID INTEGER, protocolOp }
 *   BindRequest   [APPLICATION 0] { version 3, name LDAPDN, simple [0] password }
 *   SearchRequest [APPLICATION 3] { baseObject, scope ENUMERATED, derefAliases ENUMERATED
 *                 (never), sizeLimit 0, timeLimit 0, typesOnly FALSE, filter, attributes }
 * as ldapsearch sends them. A BerElement per request; its bytes are copied out, so the caller's
 * buffer stays the one in flight.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <lber.h>
#include "ldap/ldap_filter.h"
#include "ldap/ldap_request.h"

#define OP_BIND 0x60UL	 /* [APPLICATION 0], constructed */
#define OP_SEARCH 0x63UL /* [APPLICATION 3], constructed */
#define AUTH_SIMPLE 0x80UL

int drv_ldap_req_init(struct drv_ldap_req *q, const struct drv_ldap_cfg *lc, uint64_t seed,
		      uint32_t worker, uint32_t nworkers)
{
	memset(q, 0, sizeof(*q));
	q->lc = lc;
	q->tc.rng = (seed ? seed : 0x5eed) * 0x9e3779b97f4a7c15ULL + worker + 1;
	q->tc.seq = worker;
	q->tc.stride = nworkers;
	q->base = calloc(1, lc->base.len + 1);
	q->filter = calloc(1, lc->filter.len + 1);
	if (!q->base || !q->filter) {
		drv_ldap_req_fini(q);
		return -ENOMEM;
	}
	return 0;
}

void drv_ldap_req_fini(struct drv_ldap_req *q)
{
	free(q->base);
	free(q->filter);
	q->base = q->filter = NULL;
}

/* ber's bytes into out[0..cap): the length, or -ENOBUFS; ber freed. */
static long flatten(BerElement *ber, char *out, size_t cap)
{
	struct berval bv;
	long n = -ENOMEM;

	if (ber_flatten2(ber, &bv, 0) == 0) {
		n = bv.bv_len <= cap ? (long)bv.bv_len : -ENOBUFS;
		if (n > 0)
			memcpy(out, bv.bv_val, bv.bv_len);
	}
	ber_free(ber, 1);
	return n;
}

long drv_ldap_search(struct drv_ldap_req *q, int32_t msgid, char *out, size_t cap, char *err,
		     size_t errlen)
{
	const struct drv_ldap_cfg *lc = q->lc;
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	size_t nb, nf;
	int r;

	if (!ber)
		return -ENOMEM;
	nb = drv_tpl_expand_short(&lc->base, &q->tc, q->base);
	nf = drv_tpl_expand_short(&lc->filter, &q->tc, q->filter);
	r = ber_printf(ber, "{it{oeeiib", (ber_int_t)msgid, (ber_tag_t)OP_SEARCH, q->base,
		       (ber_len_t)nb, (ber_int_t)lc->scope, (ber_int_t)0, (ber_int_t)0,
		       (ber_int_t)0, (ber_int_t)0) < 0 ? -ENOMEM : 0;
	if (!r)
		r = drv_ldap_put_filter(ber, q->filter, nf, err, errlen);
	if (!r && ber_printf(ber, "{v}}}", (char **)lc->attrs) < 0)
		r = -ENOMEM;
	if (r) {
		ber_free(ber, 1);
		return r;
	}
	return flatten(ber, out, cap);
}

long drv_ldap_bind(const struct drv_ldap_cfg *lc, int32_t msgid, char *out, size_t cap)
{
	BerElement *ber = ber_alloc_t(LBER_USE_DER);
	const char *dn = lc->bind_dn ? lc->bind_dn : "";

	if (!ber)
		return -ENOMEM;
	if (ber_printf(ber, "{it{ioto}}", (ber_int_t)msgid, (ber_tag_t)OP_BIND, (ber_int_t)3, dn,
		       (ber_len_t)strlen(dn), (ber_tag_t)AUTH_SIMPLE,
		       lc->password ? lc->password : "", (ber_len_t)lc->password_len) < 0) {
		ber_free(ber, 1);
		return -ENOMEM;
	}
	return flatten(ber, out, cap);
}
