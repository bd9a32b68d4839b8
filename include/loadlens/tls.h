/* SPDX-License-Identifier: MIT */
/*
 * TLS handshakes, told apart from requests: the step of the handshake a record moves a
 * connection to (bpf/req_tls.bpf.h walks the record headers a server reads; the same code runs
 * in the unit tests, tests/unit/test_tls.c). docs/observer/tls-http2.md, "TLS", explains the table.
 *
 * The phases are enum rt_tls_phase (include/loadlens/reqtime.h); a server's write moves HELLO
 * to HELLO_ANS, KEX to KEX_ANS and TICKETS to TICKETS_W (ll_tls_wrote()).
 */
#ifndef LOADLENS_TLS_H
#define LOADLENS_TLS_H

#include <linux/types.h>
#include "loadlens/reqtime.h"

/* TLS record content types */
#define LL_TLS_CCS 20
#define LL_TLS_ALERT 21
#define LL_TLS_HANDSHAKE 22
#define LL_TLS_APP 23

/* What a record did (ll_tls_step()'s *ev, or-ed) */
#define LL_TLS_EV_HS_OVER 1 /* the handshake is over: its end is the server's last write */
#define LL_TLS_EV_V13 2	    /* ... and it was TLS 1.3 */
#define LL_TLS_EV_RESUMED 4 /* ... and a TLS 1.2 resumption */
#define LL_TLS_EV_REQUEST 8 /* a request begins with this record */

/* The phase after a record of type t read in phase ph. */
static __attribute__((always_inline)) inline __u8 ll_tls_step(__u8 ph, __u8 t, __u32 *ev)
{
	if (t == LL_TLS_ALERT) {
		/* the client leaves: after the server's Finished (TLS 1.2) the handshake was
		 * over; before it, it failed */
		if (ph == RT_TLS_KEX_ANS)
			*ev |= LL_TLS_EV_HS_OVER;
		return RT_TLS_CLOSING;
	}
	switch (ph) {
	case RT_TLS_HELLO_ANS:
		if (t == LL_TLS_HANDSHAKE) /* TLS 1.2: the client's key exchange */
			return RT_TLS_KEX;
		if (t == LL_TLS_CCS)
			return RT_TLS_CCS;
		if (t == LL_TLS_APP) { /* TLS 1.3: the client's Finished, encrypted */
			*ev |= LL_TLS_EV_HS_OVER | LL_TLS_EV_V13;
			return RT_TLS_TICKETS;
		}
		return ph;
	case RT_TLS_CCS:
		if (t == LL_TLS_HANDSHAKE) { /* TLS 1.2: the client's Finished, resuming */
			*ev |= LL_TLS_EV_HS_OVER | LL_TLS_EV_RESUMED;
			return RT_TLS_DONE;
		}
		if (t == LL_TLS_APP) {
			*ev |= LL_TLS_EV_HS_OVER | LL_TLS_EV_V13;
			return RT_TLS_TICKETS;
		}
		return ph;
	case RT_TLS_KEX:     /* data before the server's Finished: False Start */
	case RT_TLS_KEX_ANS: /* TLS 1.2: the first request */
		if (t == LL_TLS_APP) {
			*ev |= LL_TLS_EV_HS_OVER | LL_TLS_EV_REQUEST;
			return RT_TLS_DONE;
		}
		return ph;
	case RT_TLS_TICKETS: /* a request before the server's tickets: they come first */
		if (t == LL_TLS_APP) {
			*ev |= LL_TLS_EV_REQUEST;
			return RT_TLS_LATE;
		}
		return ph;
	case RT_TLS_TICKETS_W:
	case RT_TLS_DONE:
		if (t == LL_TLS_APP) {
			*ev |= LL_TLS_EV_REQUEST;
			return RT_TLS_DONE;
		}
		return ph;
	default: /* HELLO: more of the ClientHello (or 0-RTT data); LATE, CLOSING: unchanged */
		return ph;
	}
}

/* The phase after the server wrote in phase ph. */
static __attribute__((always_inline)) inline __u8 ll_tls_wrote(__u8 ph)
{
	if (ph == RT_TLS_HELLO)
		return RT_TLS_HELLO_ANS;
	if (ph == RT_TLS_KEX)
		return RT_TLS_KEX_ANS;
	if (ph == RT_TLS_TICKETS)
		return RT_TLS_TICKETS_W;
	return ph;
}

/* A record of type t and length len alone in a read (or a write): an alert, no request? In TLS
 * 1.3 alerts are encrypted: an application-data record of 19 bytes (AES-GCM, ChaCha20-Poly1305,
 * AES-CCM: a 2-byte alert, its type byte, a 16-byte tag) or 11 (AES-CCM-8). */
static __attribute__((always_inline)) inline int ll_tls_alert(__u8 t, __u32 len)
{
	return t == LL_TLS_ALERT || (t == LL_TLS_APP && (len == 19 || len == 11));
}

/* The first bytes of a connection: a ClientHello record's header (handshake, version 3.x)? */
static __attribute__((always_inline)) inline int ll_tls_hello(const __u8 *h)
{
	return h[0] == LL_TLS_HANDSHAKE && h[1] == 3 && h[2] <= 4;
}

#endif /* LOADLENS_TLS_H */
