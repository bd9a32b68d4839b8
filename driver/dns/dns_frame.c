// SPDX-License-Identifier: MIT
/*
 * DNS responses: over TCP a 2-byte big-endian length, then the message (RFC 1035 4.2.2); over
 * UDP the datagram is the message. A message shorter than its 12-byte header, or without the QR
 * (response) bit, is malformed; RCODE != 0 is a complete response counted by its code.
 */
#include "base/errors.h"
#include "dns/dns_frame.h"
#include "framing/frame.h"

#define DNS_HDR 12

struct drv_dns_state {
	uint64_t left;
	uint16_t got; /* bytes of prefix + header seen */
	uint8_t pre[2];
	uint8_t hdr[4];
};

DRV_FRAME_STATE_FITS(struct drv_dns_state);

const char *drv_dns_rcode_name(unsigned rcode)
{
	static const char *const names[16] = {
		"NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", "NOTIMP", "REFUSED", "YXDOMAIN",
		"YXRRSET", "NXRRSET", "NOTAUTH", "NOTZONE", "DSOTYPENI", "RCODE12", "RCODE13",
		"RCODE14", "RCODE15",
	};

	return names[rcode & 15];
}

int drv_dns_message(const uint8_t *p, size_t n, uint8_t *rcode)
{
	if (n < DNS_HDR || !(p[2] & 0x80))
		return DRV_E_MALFORMED;
	*rcode = p[3] & 0x0f;
	return 0;
}

void drv_dns_reset(struct drv_frame *f)
{
	struct drv_dns_state *s = drv_frame_state(f);

	*s = (struct drv_dns_state){0};
}

size_t drv_dns_feed(struct drv_frame *f, const uint8_t *p, size_t n, int *res,
		    enum drv_app_verdict *verdict)
{
	struct drv_dns_state *s = drv_frame_state(f);
	size_t i = 0;
	uint64_t len;

	*res = 0;
	while (i < n && s->got < 6) {
		if (s->got < 2)
			s->pre[s->got] = p[i];
		else
			s->hdr[s->got - 2] = p[i];
		i++;
		s->got++;
		if (s->got == 2) {
			len = (uint64_t)s->pre[0] << 8 | s->pre[1];
			if (len < DNS_HDR) {
				*res = DRV_E_MALFORMED;
				return i;
			}
			s->left = len;
		}
		if (s->got > 2)
			s->left--;
		if (s->got == 6) {
			if (!(s->hdr[2] & 0x80)) {
				*res = DRV_E_MALFORMED;
				return i;
			}
			f->rcode = s->hdr[3] & 0x0f;
			*verdict = f->rcode ? DRV_APP_DNS_RCODE : DRV_APP_OK;
		}
	}
	if (s->got < 6)
		return i;
	i += drv_app_skip(&s->left, n - i);
	if (!s->left)
		*res = 1;
	return i;
}

static int frame_datagram(const uint8_t *p, size_t n, enum drv_app_verdict *verdict,
			  uint8_t *rcode)
{
	int r = drv_dns_message(p, n, rcode);

	*verdict = !r && *rcode ? DRV_APP_DNS_RCODE : DRV_APP_OK;
	return r;
}

const struct drv_frame_ext drv_dns_frame = {
	.rule = DRV_RESP_DNS, .reset = drv_dns_reset, .feed = drv_dns_feed,
	.datagram = frame_datagram,
};
