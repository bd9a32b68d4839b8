// SPDX-License-Identifier: MIT
/* TLS with OpenSSL memory BIOs (tls_conn.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509v3.h>
#include "base/errors.h"
#include "config/config.h"
#include "protocols/tls_conn.h"

/* --cacert's PEM, read at parse time (cfg->cacert_pem), into the context's trust store. */
static int add_cas(SSL_CTX *ctx, const struct drv_config *cfg)
{
	X509_STORE *store = SSL_CTX_get_cert_store(ctx);
	BIO *b = BIO_new_mem_buf(cfg->cacert_pem, (int)cfg->cacert_len);
	X509 *x;
	int n = 0;

	if (!b)
		return -ENOMEM;
	while ((x = PEM_read_bio_X509(b, NULL, NULL, NULL))) {
		if (X509_STORE_add_cert(store, x) == 1)
			n++;
		X509_free(x);
	}
	ERR_clear_error(); /* the end of the file reads as an error */
	BIO_free(b);
	return n ? 0 : -EINVAL;
}

SSL_CTX *drv_tls_ctx_new(const struct drv_config *cfg, const unsigned char *alpn,
			 unsigned int alpn_len, char *err, size_t errlen)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());

	if (!ctx) {
		snprintf(err, errlen, "TLS: cannot make a context (out of memory?)");
		return NULL;
	}
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION); /* HTTP/2 needs 1.2 at least */
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
	if (cfg->insecure) {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	} else {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
		if (cfg->cacert_pem ? add_cas(ctx, cfg)
				    : SSL_CTX_set_default_verify_paths(ctx) != 1) {
			snprintf(err, errlen, "%s: no certificate could be read from it",
				 cfg->cacert ? cfg->cacert : "the system's CA store");
			SSL_CTX_free(ctx);
			return NULL;
		}
	}
	if (SSL_CTX_set_alpn_protos(ctx, alpn, alpn_len)) { /* 0 is success here */
		snprintf(err, errlen, "TLS: cannot offer ALPN");
		SSL_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

void drv_tls_ctx_free(SSL_CTX *ctx)
{
	SSL_CTX_free(ctx);
}

static bool is_ip(const char *host)
{
	unsigned char a[16];

	return inet_pton(AF_INET, host, a) == 1 || inet_pton(AF_INET6, host, a) == 1;
}

int drv_tls_init(struct drv_tls *t, SSL_CTX *ctx, const char *host, bool verify)
{
	memset(t, 0, sizeof(*t));
	t->ssl = SSL_new(ctx);
	t->rbio = BIO_new(BIO_s_mem());
	t->wbio = BIO_new(BIO_s_mem());
	if (!t->ssl || !t->rbio || !t->wbio) {
		BIO_free(t->rbio);
		BIO_free(t->wbio);
		SSL_free(t->ssl);
		memset(t, 0, sizeof(*t));
		return -ENOMEM;
	}
	BIO_set_mem_eof_return(t->rbio, -1); /* an empty read BIO means "more to come" */
	SSL_set_bio(t->ssl, t->rbio, t->wbio); /* the SSL owns both now */
	SSL_set_connect_state(t->ssl);
	if (is_ip(host)) {
		if (verify)
			X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(t->ssl), host);
	} else {
		SSL_set_tlsext_host_name(t->ssl, host);
		if (verify)
			SSL_set1_host(t->ssl, host);
	}
	return 0;
}

void drv_tls_fini(struct drv_tls *t)
{
	SSL_free(t->ssl); /* and its BIOs */
	memset(t, 0, sizeof(*t));
}

int drv_tls_feed(struct drv_tls *t, const void *p, size_t n)
{
	return BIO_write(t->rbio, p, (int)n) == (int)n ? 0 : DRV_E_TLS;
}

int drv_tls_handshake(struct drv_tls *t)
{
	int r = SSL_do_handshake(t->ssl);

	if (r == 1) {
		t->done = true;
		return 1;
	}
	switch (SSL_get_error(t->ssl, r)) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		return 0;
	default:
		/* why, in OpenSSL's words: the certificate's verification, else its first error */
		if (SSL_get_verify_result(t->ssl) != X509_V_OK)
			t->why = X509_verify_cert_error_string(SSL_get_verify_result(t->ssl));
		else if (ERR_peek_error())
			t->why = ERR_reason_error_string(ERR_peek_error());
		/* a server with none of the protocols offered may refuse the handshake */
		r = ERR_GET_REASON(ERR_peek_error()) == SSL_R_TLSV1_ALERT_NO_APPLICATION_PROTOCOL;
		ERR_clear_error();
		return r ? DRV_E_NOT_H2 : DRV_E_TLS;
	}
}

bool drv_tls_alpn_is(const struct drv_tls *t, const char *want)
{
	const unsigned char *p = NULL;
	unsigned int n = 0;

	SSL_get0_alpn_selected(t->ssl, &p, &n);
	return p && n == strlen(want) && !memcmp(p, want, n);
}

int drv_tls_read(struct drv_tls *t, void *buf, size_t cap)
{
	int r = SSL_read(t->ssl, buf, (int)cap);

	if (r > 0)
		return r;
	switch (SSL_get_error(t->ssl, r)) {
	case SSL_ERROR_WANT_READ:
	case SSL_ERROR_WANT_WRITE:
		return 0;
	case SSL_ERROR_ZERO_RETURN:
		return DRV_E_SHORT;
	default:
		ERR_clear_error();
		return DRV_E_TLS;
	}
}

int drv_tls_write(struct drv_tls *t, const void *p, size_t n)
{
	/* into a memory BIO a write never waits: all of it, or a failure */
	if (n && SSL_write(t->ssl, p, (int)n) != (int)n) {
		ERR_clear_error();
		return DRV_E_TLS;
	}
	return 0;
}

size_t drv_tls_out_pending(const struct drv_tls *t)
{
	return BIO_ctrl_pending(t->wbio);
}

size_t drv_tls_out_take(struct drv_tls *t, void *buf, size_t cap)
{
	int r = BIO_read(t->wbio, buf, (int)cap);

	return r > 0 ? (size_t)r : 0;
}
