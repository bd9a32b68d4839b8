/* SPDX-License-Identifier: MIT */
/*
 * The driver's own failure codes, beside negative errnos and libuv's: what a framing returns for
 * a response it cannot accept. Classed and counted by results/stats.c (drv_err_class).
 */
#ifndef LOADLENS_DRV_ERRORS_H
#define LOADLENS_DRV_ERRORS_H

/* Our own codes for failures that are not an errno (negative, beyond any errno). */
#define DRV_E_SHORT (-10001)	 /* the peer closed before the response was complete */
#define DRV_E_MALFORMED (-10002) /* a response length or an unsolicited byte broke the framing */
#define DRV_E_LOST (-10003)	 /* udp: no reply within --timeout */
#define DRV_E_HTTP_STATUS (-10004) /* http: status outside 2xx */
#define DRV_E_TLS (-10005)	   /* https: TLS handshake or certificate verification failed */
#define DRV_E_TOO_LARGE (-10006)   /* http headers over the engine's limit; a length over ours */
#define DRV_E_RESP (-10007)	   /* redis: -ERR reply */
#define DRV_E_MC_CLIENT (-10008)   /* memcached: CLIENT_ERROR / ERROR */
#define DRV_E_MC_SERVER (-10009)   /* memcached: SERVER_ERROR */
#define DRV_E_DNS_RCODE (-10010)   /* dns: RCODE != 0 */
#define DRV_E_INCOMPLETE (-10011)  /* memcache-udp: a datagram of the reply missing */

#endif /* LOADLENS_DRV_ERRORS_H */
