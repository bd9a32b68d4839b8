/* SPDX-License-Identifier: MIT */
/*
 * TLS on a libuv stream with OpenSSL memory BIOs: the connection's socket carries the records,
 * the protocol feeds what it reads (drv_tls_feed), takes what it must write (drv_tls_out_*),
 * and reads and writes plaintext; nothing here touches a socket or blocks. The client context
 * verifies the server with the system's CAs, or --cacert, or not at all with -k/--insecure, and
 * offers one ALPN protocol. Used by the HTTP/2 engine (h2/h2_engine.c) for https:// and grpcs://.
 */
#ifndef LOADLENS_DRV_TLS_CONN_H
#define LOADLENS_DRV_TLS_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <openssl/ssl.h>

struct drv_config;

struct drv_tls {
	SSL *ssl; /* NULL: not in use */
	BIO *rbio; /* what came from the socket, for OpenSSL to read */
	BIO *wbio; /* what OpenSSL wrote, for the socket */
	bool done; /* the handshake is over */
	const char *why; /* a failed handshake: OpenSSL's reason (a static string), else NULL */
};

/*
 * A client context for cfg (--insecure, --cacert) offering ALPN alpn (wire format, e.g.
 * "\x02h2"), or NULL with one line in err.
 */
SSL_CTX *drv_tls_ctx_new(const struct drv_config *cfg, const unsigned char *alpn,
			 unsigned int alpn_len, char *err, size_t errlen);
void drv_tls_ctx_free(SSL_CTX *ctx);

/* A connection to host (SNI, and the name or address verified unless --insecure): 0 or -ENOMEM. */
int drv_tls_init(struct drv_tls *t, SSL_CTX *ctx, const char *host, bool verify);
/* Free it; a zeroed or freed drv_tls is a no-op. */
void drv_tls_fini(struct drv_tls *t);
/* n bytes read from the socket: 0, or DRV_E_TLS. */
int drv_tls_feed(struct drv_tls *t, const void *p, size_t n);
/* The handshake's next step: 1 over, 0 wants more bytes, DRV_E_TLS failed (alerts go out),
 * DRV_E_NOT_H2 the server refused every ALPN protocol offered. */
int drv_tls_handshake(struct drv_tls *t);
/* The protocol ALPN selected, compared with want ("h2"): true if the same. */
bool drv_tls_alpn_is(const struct drv_tls *t, const char *want);
/* Plaintext read into buf: > 0 bytes, 0 none until more is fed, DRV_E_SHORT the peer closed
 * (close_notify), DRV_E_TLS a broken record. */
int drv_tls_read(struct drv_tls *t, void *buf, size_t cap);
/* n bytes of plaintext to send (all of it goes into the write BIO): 0 or DRV_E_TLS. */
int drv_tls_write(struct drv_tls *t, const void *p, size_t n);
/* Bytes waiting for the socket, and taking up to cap of them into buf (returns how many). */
size_t drv_tls_out_pending(const struct drv_tls *t);
size_t drv_tls_out_take(struct drv_tls *t, void *buf, size_t cap);

#endif /* LOADLENS_DRV_TLS_CONN_H */
