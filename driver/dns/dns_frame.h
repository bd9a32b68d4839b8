/* SPDX-License-Identifier: MIT */
/* DNS: a reply over TCP (2-byte length prefix) or UDP (the datagram), and its RCODE (dns_frame.c):
 * --response dns's framing (framing/frame_ext.h). */
#ifndef LOADLENS_DRV_DNS_FRAME_H
#define LOADLENS_DRV_DNS_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "framing/frame_app.h"
#include "framing/frame_ext.h"

struct drv_dns_state {
	uint64_t left;
	uint16_t got; /* bytes of prefix + header seen */
	uint8_t pre[2];
	uint8_t hdr[4];
};

/* Reset before a response; feed returns the bytes used (<= n). *res is 0 while the response
 * is incomplete, 1 once it is complete (then *verdict and *rcode are set), or
 * DRV_E_MALFORMED. */
void drv_dns_reset(struct drv_dns_state *s);
size_t drv_dns_feed(struct drv_dns_state *s, const uint8_t *p, size_t n, int *res,
		    enum drv_app_verdict *verdict, uint8_t *rcode);

/* A whole DNS message (a UDP reply): 0, with *rcode, or DRV_E_MALFORMED (short, not a reply). */
int drv_dns_message(const uint8_t *p, size_t n, uint8_t *rcode);
/* DNS RCODE names: "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", ... (0..15). */
const char *drv_dns_rcode_name(unsigned rcode);

/* --response dns (DRV_RESP_DNS): its state in a frame's app.ext, its RCODE in the frame's rcode;
 * over udp:// the datagram. */
extern const struct drv_frame_ext drv_dns_frame;

#endif /* LOADLENS_DRV_DNS_FRAME_H */
