// SPDX-License-Identifier: MIT
/*
 * LDAP replies (ldap_frame.h). liblber frames the stream: ber_get_next() reads one LDAPMessage
 * from a Sockbuf, keeping a partial tag, length and body between calls, and wants more with
 * EWOULDBLOCK. Its Sockbuf here has one I/O layer, mem_io, which reads from the bytes being fed,
 * so a reply split anywhere is framed as it comes and a byte past the response stays with the
 * caller (ber_get_next reads the header's 8 bytes at most, and only what the body still needs).
 * The message's messageID is read with ber_get_int; its protocolOp and controls are taken whole
 * with ber_skip_element (each within what is left of the message) and checked inside by
 * ldap_pdu.c, which also reads the resultCode.
 */
#include <errno.h>
#include <string.h>
#include <lber.h>
#include "base/errors.h"
#include "ldap/ldap_frame.h"
#include "ldap/ldap_pdu.h"

#define TAG_MESSAGE 0x30UL /* LDAPMessage: SEQUENCE */

static int mem_setup(Sockbuf_IO_Desc *d, void *arg)
{
	d->sbiod_pvt = arg;
	return 0;
}

static int mem_remove(Sockbuf_IO_Desc *d)
{
	d->sbiod_pvt = NULL;
	return 0;
}

static int mem_ctrl(Sockbuf_IO_Desc *d, int opt, void *arg)
{
	return 0; /* no option of ours */
}

/* What ber_get_next() asks for, from the bytes being fed; none left: EWOULDBLOCK. */
static ber_slen_t mem_read(Sockbuf_IO_Desc *d, void *buf, ber_len_t len)
{
	struct drv_ldap_state *s = d->sbiod_pvt;
	size_t k = len < s->left ? len : s->left;

	if (!k) {
		errno = EWOULDBLOCK;
		return -1;
	}
	memcpy(buf, s->in, k);
	s->in += k;
	s->left -= k;
	return (ber_slen_t)k;
}

static ber_slen_t mem_write(Sockbuf_IO_Desc *d, void *buf, ber_len_t len)
{
	errno = EBADF; /* the reader only reads */
	return -1;
}

static int mem_close(Sockbuf_IO_Desc *d)
{
	return 0;
}

static Sockbuf_IO mem_io = {
	.sbi_setup = mem_setup, .sbi_remove = mem_remove, .sbi_ctrl = mem_ctrl,
	.sbi_read = mem_read, .sbi_write = mem_write, .sbi_close = mem_close,
};

void drv_ldap_state_free(struct drv_ldap_state *s)
{
	if (s->ber)
		ber_free(s->ber, 1);
	if (s->sb)
		ber_sockbuf_free(s->sb);
	s->ber = NULL;
	s->sb = NULL;
}

static int make(struct drv_ldap_state *s)
{
	ber_len_t max = DRV_LDAP_MAX_MESSAGE;

	s->sb = ber_sockbuf_alloc();
	s->ber = ber_alloc_t(0);
	if (!s->sb || !s->ber ||
	    ber_sockbuf_add_io(s->sb, &mem_io, LBER_SBIOD_LEVEL_PROVIDER, s) ||
	    ber_sockbuf_ctrl(s->sb, LBER_SB_OPT_SET_MAX_INCOMING, &max) != 1) {
		drv_ldap_state_free(s);
		return -ENOMEM;
	}
	return 0;
}

/* The element is read: drop its buffer, ready for the next message. */
static void next_message(struct drv_ldap_state *s)
{
	ber_free_buf(s->ber);
	ber_init2(s->ber, NULL, 0);
}

void drv_ldap_reset(struct drv_ldap_state *s, int32_t msgid, bool bind)
{
	if (s->ber)
		next_message(s); /* a partial message of a broken connection */
	s->in = NULL;
	s->left = 0;
	s->msgid = msgid;
	s->bind = bind;
	s->extended = false;
	s->notice = false;
	s->entries = 0;
	s->refs = 0;
	s->code = -1;
}

void drv_ldap_reset_extended(struct drv_ldap_state *s, int32_t msgid)
{
	drv_ldap_reset(s, msgid, false);
	s->extended = true;
}

/* Does op, of messageID id, answer the request? (A notice: messageID 0, ExtendedResponse.) */
static bool answers(const struct drv_ldap_state *s, ber_int_t id, ber_tag_t op)
{
	if (id == 0 && op == DRV_LDAP_OP_EXTENDED_RESP)
		return true;
	if (id != s->msgid)
		return false;
	if (s->extended)
		return op == DRV_LDAP_OP_EXTENDED_RESP || op == DRV_LDAP_OP_INTERMEDIATE;
	switch (op) {
	case DRV_LDAP_OP_BIND_RESP:
		return s->bind;
	case DRV_LDAP_OP_ENTRY:
	case DRV_LDAP_OP_REFERENCE:
	case DRV_LDAP_OP_DONE:
		return !s->bind;
	case DRV_LDAP_OP_INTERMEDIATE:
		return true;
	default:
		return false;
	}
}

/* What follows the protocolOp: nothing, or Controls that fill the message. 0 or -EBADMSG. */
static int controls(struct drv_ldap_state *s)
{
	ber_len_t rest = 0;
	struct berval bv;

	if (ber_get_option(s->ber, LBER_OPT_BER_REMAINING_BYTES, &rest) != LBER_OPT_SUCCESS)
		return -EBADMSG;
	if (!rest)
		return 0;
	if (ber_skip_element(s->ber, &bv) != DRV_LDAP_CONTROLS ||
	    drv_ldap_controls_check((const uint8_t *)bv.bv_val, bv.bv_len) ||
	    ber_get_option(s->ber, LBER_OPT_BER_REMAINING_BYTES, &rest) != LBER_OPT_SUCCESS ||
	    rest)
		return -EBADMSG;
	return 0;
}

/*
 * One whole LDAPMessage: 1 (the response is complete), 0 (go on), DRV_E_MALFORMED (not the
 * answer to the request: another messageID or operation) or DRV_E_LDAP_MALFORMED (its inside
 * does not hold: ldap_pdu.h).
 */
static int message(struct drv_ldap_state *s)
{
	struct berval bv;
	int32_t code = -1;
	ber_int_t id;
	ber_tag_t op;

	if (ber_get_int(s->ber, &id) != LBER_INTEGER)
		return DRV_E_MALFORMED;
	op = ber_skip_element(s->ber, &bv); /* LBER_DEFAULT: longer than the message */
	if (op == LBER_DEFAULT)
		return DRV_E_LDAP_MALFORMED;
	if (!answers(s, id, op))
		return DRV_E_MALFORMED;
	if (drv_ldap_op_check(op, (const uint8_t *)bv.bv_val, bv.bv_len, &code) || controls(s))
		return DRV_E_LDAP_MALFORMED;
	switch (op) {
	case DRV_LDAP_OP_ENTRY:
		s->entries++;
		return 0;
	case DRV_LDAP_OP_REFERENCE:
		s->refs++;
		return 0;
	case DRV_LDAP_OP_INTERMEDIATE:
		return 0;
	case DRV_LDAP_OP_EXTENDED_RESP:
		if (s->extended && id == s->msgid) { /* the answer to our ExtendedRequest */
			s->code = code;
			return 1;
		}
		/* unsolicited: Notice of Disconnection, never success */
		s->notice = true;
		s->code = code;
		return code ? 1 : DRV_E_MALFORMED;
	default: /* BindResponse, SearchResultDone */
		s->code = code;
		return 1;
	}
}

size_t drv_ldap_feed(struct drv_ldap_state *s, const uint8_t *p, size_t n, int *res,
		     enum drv_app_verdict *verdict)
{
	ber_len_t len;
	ber_tag_t tag;
	size_t before;
	int r = 0;

	*res = 0;
	if (!s->sb && make(s)) {
		*res = -ENOMEM;
		return 0;
	}
	s->in = p;
	s->left = n;
	while (!r && s->left) {
		before = s->left;
		errno = 0;
		tag = ber_get_next(s->sb, &len, s->ber);
		if (tag == LBER_DEFAULT) {
			/* EWOULDBLOCK: the message goes on (in these bytes: a long tag and length
			 * are read 8 bytes at a time; or in the next ones); else not BER we take
			 * (ERANGE: a zero length, one over DRV_LDAP_MAX_MESSAGE, a tag over 4
			 * bytes, a message under 8 bytes with more after it) */
			if (errno != EWOULDBLOCK || s->left == before)
				r = errno == EWOULDBLOCK && !s->left ? 0 : DRV_E_MALFORMED;
			continue;
		}
		r = tag == TAG_MESSAGE ? message(s) : DRV_E_MALFORMED;
		next_message(s);
	}
	if (r == 1)
		*verdict = s->code ? DRV_APP_LDAP_RESULT : DRV_APP_OK;
	*res = r;
	s->in = NULL;
	return n - s->left;
}

DRV_FRAME_STATE_FITS(struct drv_ldap_state);

static void frame_reset(struct drv_frame *f)
{
	drv_ldap_reset(drv_ldap_of(f), 0, false);
}

static size_t frame_feed(struct drv_frame *f, const uint8_t *p, size_t n, int *res,
			 enum drv_app_verdict *verdict)
{
	size_t used = drv_ldap_feed(drv_ldap_of(f), p, n, res, verdict);

	if (*res == 1 && drv_ldap_of(f)->notice)
		f->keep_alive = false; /* the server closes after its notice */
	return used;
}

static void frame_free(struct drv_frame *f)
{
	drv_ldap_state_free(drv_ldap_of(f));
}

const struct drv_frame_ext drv_ldap_frame = {
	.rule = DRV_RESP_LDAP, .reset = frame_reset, .feed = frame_feed, .free = frame_free,
};
