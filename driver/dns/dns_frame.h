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

/* Reset f's state before a response; feed returns the bytes used (<= n). *res is 0 while the
 * response is incomplete, 1 once it is complete (then *verdict and f->rcode are set), or
 * DRV_E_MALFORMED. */
void drv_dns_reset(struct drv_frame *f);
size_t drv_dns_feed(struct drv_frame *f, const uint8_t *p, size_t n, int *res,
		    enum drv_app_verdict *verdict);

/* A whole DNS message (a UDP reply): 0, with *rcode, or DRV_E_MALFORMED (short, not a reply). */
int drv_dns_message(const uint8_t *p, size_t n, uint8_t *rcode);
/* DNS RCODE names: "NOERROR", "FORMERR", "SERVFAIL", "NXDOMAIN", ... (0..15). */
const char *drv_dns_rcode_name(unsigned rcode);

/* --response dns (DRV_RESP_DNS): these, over a frame's app.ext; over udp:// the datagram. */
extern const struct drv_frame_ext drv_dns_frame;

#endif /* LOADLENS_DRV_DNS_FRAME_H */
