/* SPDX-License-Identifier: MIT */
/*
 * How the driver names a failure: its own codes, beside negative errnos and libuv's (what a
 * framing returns for a response it cannot accept), and the classes every failure is counted in
 * (results/stats.c), with their names (the JSON keys) and text.
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
#define DRV_E_H2_RST (-10012)	   /* http/2: the server reset the stream (RST_STREAM) */
#define DRV_E_H2_GOAWAY (-10013)   /* http/2: refused by a GOAWAY (past its last stream id) */
#define DRV_E_H2_PROTOCOL (-10014) /* http/2: a malformed frame or a protocol violation */
#define DRV_E_NOT_H2 (-10015)	   /* http/2: the server does not speak it (HTTP/1.x, ALPN) */
#define DRV_E_GRPC (-10016)	   /* grpc: grpc-status other than 0 (OK) */
#define DRV_E_LDAP_RESULT (-10017) /* ldap: a search done with an error resultCode */
#define DRV_E_LDAP_BIND (-10018)   /* ldap: the bind at connect failed (its code counted) */
/* grpc: a reply that breaks gRPC's own framing (grpc/grpc_frame.h), one code per rule */
#define DRV_E_GRPC_FRAMING (-10019)	 /* a length prefix that disagrees with the bytes sent */
#define DRV_E_GRPC_COMPRESSED (-10020)	 /* the compressed flag, no grpc-encoding negotiated */
#define DRV_E_GRPC_MESSAGES (-10021)	 /* unary: two messages or more, or none with OK */
#define DRV_E_GRPC_CONTENT_TYPE (-10022) /* the reply's content-type is not application/grpc */
#define DRV_E_GRPC_TRAILERS (-10023)	 /* no trailers, or no decimal grpc-status in them */
#define DRV_E_LDAP_MALFORMED (-10024)	 /* ldap: a message's inner BER lengths or fields */

/* Error classes: each failed attempt lands in exactly one. Names are the JSON keys. */
enum drv_err {
	DRV_ERR_ADDRNOTAVAIL = 0, /* EADDRNOTAVAIL, EADDRINUSE: no free local port */
	DRV_ERR_EMFILE,		  /* EMFILE, ENFILE: no file descriptor */
	DRV_ERR_CONNREFUSED,	  /* ECONNREFUSED */
	DRV_ERR_CONNRESET,	  /* ECONNRESET, EPIPE */
	DRV_ERR_TIMEDOUT,	  /* ETIMEDOUT, or our own --timeout expired (tcp, http) */
	DRV_ERR_LOST,		  /* udp: no reply within --timeout */
	DRV_ERR_SHORT,		  /* peer closed mid-response, or a response outside the framing */
	DRV_ERR_HTTP,		  /* http: a complete response with a status outside 2xx */
	DRV_ERR_TLS,		  /* https: TLS handshake or certificate verification failed */
	DRV_ERR_TOO_LARGE,	  /* http headers over the engine's limit; a length prefix over 256 MiB */
	DRV_ERR_RESP,		  /* redis: a top-level -ERR (or !) reply */
	DRV_ERR_MC_CLIENT,	  /* memcached: CLIENT_ERROR or ERROR */
	DRV_ERR_MC_SERVER,	  /* memcached: SERVER_ERROR */
	DRV_ERR_DNS_RCODE,	  /* dns: RCODE != 0 (by code in dns_rcode[]) */
	DRV_ERR_INCOMPLETE,	  /* memcache-udp: part of a multi-datagram reply never came */
	DRV_ERR_H2_RST,		  /* http/2: RST_STREAM from the server (by code in h2.rst[]) */
	DRV_ERR_H2_GOAWAY,	  /* http/2: a stream past a GOAWAY's last stream id, refused */
	DRV_ERR_H2_PROTOCOL,	  /* http/2: a malformed frame or a protocol error */
	DRV_ERR_NOT_H2,		  /* http/2: HTTP/1.x answered the preface, or ALPN chose no h2 */
	DRV_ERR_GRPC,		  /* grpc: grpc-status other than OK (by code in grpc_status[]) */
	DRV_ERR_LDAP_RESULT,	  /* ldap: resultCode != success (by code in stats.h's app.result[]) */
	DRV_ERR_LDAP_BIND,	  /* ldap: the bind failed, the connection dropped */
	DRV_ERR_GRPC_FRAMING,	  /* grpc: a length prefix other than the message's bytes */
	DRV_ERR_GRPC_COMPRESSED,  /* grpc: a compressed message with no encoding negotiated */
	DRV_ERR_GRPC_MESSAGES,	  /* grpc: a unary reply of 2+ messages, or of none (status OK) */
	DRV_ERR_GRPC_CONTENT_TYPE, /* grpc: a reply whose content-type is not application/grpc */
	DRV_ERR_GRPC_TRAILERS,	  /* grpc: no trailers, or a missing or non-numeric grpc-status */
	DRV_ERR_LDAP_MALFORMED,	  /* ldap: a message whose inner lengths or fields do not hold */
	DRV_ERR_OTHER,		  /* anything else; the first one is kept for the hint */
	DRV_ERR__COUNT,
};

/* Class of a negative errno / libuv error / DRV_E_* code. */
enum drv_err drv_err_class(int err);
const char *drv_err_name(enum drv_err e);
/* Human text of any code drv_err_class() takes. */
const char *drv_strerror(int err);

#endif /* LOADLENS_DRV_ERRORS_H */
