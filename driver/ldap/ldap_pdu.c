// SPDX-License-Identifier: MIT
/* The inside of an LDAP reply, walked element by element (ldap_pdu.h). */
#include <errno.h>
#include <stdbool.h>
#include "ldap/ldap_pdu.h"

/* Universal and context tags inside the replies (RFC 4511, 4.1.1 to 4.13). */
#define T_BOOLEAN 0x01
#define T_OCTETS 0x04
#define T_ENUMERATED 0x0a
#define T_SEQUENCE 0x30
#define T_SET 0x31
#define T_REFERRAL 0xa3	       /* LDAPResult's referral [3] */
#define T_SASL_CREDS 0x87      /* BindResponse's serverSaslCreds [7] */
#define T_EXT_NAME 0x8a	       /* ExtendedResponse's responseName [10] */
#define T_EXT_VALUE 0x8b       /* ExtendedResponse's responseValue [11] */
#define T_INTER_NAME 0x80      /* IntermediateResponse's responseName [0] */
#define T_INTER_VALUE 0x81     /* IntermediateResponse's responseValue [1] */

/* Bytes still to walk, inside one element. */
struct rd {
	const uint8_t *p, *end;
};

static bool done(const struct rd *r)
{
	return r->p == r->end;
}

/* The next element: its one-byte tag into *tag, its contents into *in. 0 or -EBADMSG. */
static int next(struct rd *r, uint8_t *tag, struct rd *in)
{
	size_t left = (size_t)(r->end - r->p), len, k, i;

	if (left < 2 || (r->p[0] & 0x1f) == 0x1f) /* no length, or a tag past 30 */
		return -EBADMSG;
	*tag = r->p[0];
	len = r->p[1];
	r->p += 2;
	left -= 2;
	if (len & 0x80) {
		k = len & 0x7f; /* 0: the indefinite form, which LDAP does not allow */
		if (!k || k > 4 || k > left)
			return -EBADMSG;
		for (len = 0, i = 0; i < k; i++)
			len = len << 8 | r->p[i];
		r->p += k;
		left -= k;
	}
	if (len > left)
		return -EBADMSG;
	in->p = r->p;
	in->end = r->p + len;
	r->p += len;
	return 0;
}

/* The next element, of tag want. */
static int expect(struct rd *r, uint8_t want, struct rd *in)
{
	uint8_t tag;

	if (next(r, &tag, in))
		return -EBADMSG;
	return tag == want ? 0 : -EBADMSG;
}

/* An OPTIONAL element of tag want: 1 (there, in *in), 0 (absent) or -EBADMSG. */
static int optional(struct rd *r, uint8_t want, struct rd *in)
{
	if (done(r) || r->p[0] != want)
		return 0;
	return expect(r, want, in) ? -EBADMSG : 1;
}

/* One or more OCTET STRINGs, and nothing else: a SEQUENCE OF URI, a SET OF value (0 allowed). */
static int strings(struct rd *r, bool one)
{
	struct rd s;

	if (one && done(r))
		return -EBADMSG;
	while (!done(r))
		if (expect(r, T_OCTETS, &s))
			return -EBADMSG;
	return 0;
}

/* LDAPResult's fields: resultCode ENUMERATED, matchedDN, diagnosticMessage, referral [3]. */
static int result(struct rd *r, int32_t *code)
{
	struct rd e, s;
	uint32_t v = 0;
	int ref;

	if (expect(r, T_ENUMERATED, &e) || done(&e) || e.end - e.p > 4 || (*e.p & 0x80))
		return -EBADMSG; /* (a code under 0 is not one) */
	while (!done(&e))
		v = v << 8 | *e.p++;
	if (expect(r, T_OCTETS, &s) || expect(r, T_OCTETS, &s))
		return -EBADMSG;
	ref = optional(r, T_REFERRAL, &s);
	if (ref < 0 || (ref && strings(&s, true)))
		return -EBADMSG;
	*code = (int32_t)v;
	return 0;
}

/* SearchResultEntry: objectName, then attributes: SEQUENCE OF {type, SET OF value}. */
static int entry(struct rd *r)
{
	struct rd name, attrs, attr, type, vals;

	if (expect(r, T_OCTETS, &name) || expect(r, T_SEQUENCE, &attrs) || !done(r))
		return -EBADMSG;
	while (!done(&attrs)) {
		if (expect(&attrs, T_SEQUENCE, &attr) || expect(&attr, T_OCTETS, &type) ||
		    expect(&attr, T_SET, &vals) || !done(&attr) || strings(&vals, false))
			return -EBADMSG;
	}
	return 0;
}

int drv_ldap_op_check(unsigned long op, const uint8_t *p, size_t n, int32_t *code)
{
	struct rd r = {p, p + n}, s;

	switch (op) {
	case DRV_LDAP_OP_BIND_RESP:
		if (result(&r, code) || optional(&r, T_SASL_CREDS, &s) < 0)
			return -EBADMSG;
		break;
	case DRV_LDAP_OP_DONE:
		if (result(&r, code))
			return -EBADMSG;
		break;
	case DRV_LDAP_OP_EXTENDED_RESP:
		if (result(&r, code) || optional(&r, T_EXT_NAME, &s) < 0 ||
		    optional(&r, T_EXT_VALUE, &s) < 0)
			return -EBADMSG;
		break;
	case DRV_LDAP_OP_ENTRY:
		return entry(&r);
	case DRV_LDAP_OP_REFERENCE:
		return strings(&r, true);
	case DRV_LDAP_OP_INTERMEDIATE:
		if (optional(&r, T_INTER_NAME, &s) < 0 || optional(&r, T_INTER_VALUE, &s) < 0)
			return -EBADMSG;
		break;
	default:
		return -EINVAL;
	}
	return done(&r) ? 0 : -EBADMSG;
}

int drv_ldap_controls_check(const uint8_t *p, size_t n)
{
	struct rd r = {p, p + n}, ctl, s;
	int crit;

	while (!done(&r)) {
		/* Control: controlType, criticality BOOLEAN DEFAULT FALSE, controlValue OPTIONAL */
		if (expect(&r, T_SEQUENCE, &ctl) || expect(&ctl, T_OCTETS, &s))
			return -EBADMSG;
		crit = optional(&ctl, T_BOOLEAN, &s);
		if (crit < 0 || (crit && s.end - s.p != 1) || optional(&ctl, T_OCTETS, &s) < 0 ||
		    !done(&ctl))
			return -EBADMSG;
	}
	return 0;
}
