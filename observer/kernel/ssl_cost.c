// SPDX-License-Identifier: MIT
/* What a probed SSL call costs here (ssl_cost.h). */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "kernel/ssl_cost.h"

/* libssl's calls, by name: the observer does not link libssl */
struct ssl_api {
	const void *(*method)(void);
	void *(*ctx_new)(const void *method);
	void (*ctx_free)(void *ctx);
	void *(*ssl_new)(void *ctx);
	void (*ssl_free)(void *ssl);
	int (*write)(void *ssl, const void *buf, int num);
	int (*read)(void *ssl, void *buf, int num);
	void (*err_clear)(void);
};

static int api_open(void *dl, struct ssl_api *a)
{
	*(void **)&a->method = dlsym(dl, "TLS_method");
	*(void **)&a->ctx_new = dlsym(dl, "SSL_CTX_new");
	*(void **)&a->ctx_free = dlsym(dl, "SSL_CTX_free");
	*(void **)&a->ssl_new = dlsym(dl, "SSL_new");
	*(void **)&a->ssl_free = dlsym(dl, "SSL_free");
	*(void **)&a->write = dlsym(dl, "SSL_write");
	*(void **)&a->read = dlsym(dl, "SSL_read");
	*(void **)&a->err_clear = dlsym(dl, "ERR_clear_error");
	return a->method && a->ctx_new && a->ctx_free && a->ssl_new && a->ssl_free && a->write &&
	       a->read && a->err_clear ? 0 : -ENOENT;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The least time of 3 rounds of calls (a write and a read each), a call. */
static double round_ns(const struct ssl_api *a, void *ssl, uint32_t calls)
{
	char buf[16] = "x";
	double best = 0, t;
	uint32_t i;
	int r;

	for (r = 0; r < 3; r++) {
		t = now_ns();
		for (i = 0; i < calls / 2; i++) {
			a->write(ssl, buf, 1);
			a->read(ssl, buf, sizeof(buf));
			a->err_clear();
		}
		t = (now_ns() - t) / (double)(calls / 2 * 2);
		best = r == 0 || t < best ? t : best;
	}
	return best;
}

int obs_ssl_cost_measure(struct obs_sockets *conn, const struct obs_ssl_file *lib, uint32_t calls,
			 double *ns, char *why, size_t len)
{
	struct obs_ssl_probes *p = NULL;
	struct ssl_api a;
	void *dl, *ctx = NULL, *ssl = NULL;
	double off, on;
	int err = 0;

	*ns = 0;
	dl = dlopen(lib->open, RTLD_NOW | RTLD_LOCAL);
	if (!dl) {
		snprintf(why, len, "cannot open %s: %s", lib->path, dlerror());
		return -ENOENT;
	}
	err = api_open(dl, &a);
	if (!err) {
		ctx = a.ctx_new(a.method());
		ssl = ctx ? a.ssl_new(ctx) : NULL;
		err = ssl ? 0 : -ENOMEM;
	}
	if (err) {
		snprintf(why, len, "%s: no SSL object to call (%s)", lib->path, strerror(-err));
		goto out;
	}
	off = round_ns(&a, ssl, calls);
	p = obs_ssl_probes_attach(conn, lib, 1, NULL, 0, false);
	if (!obs_ssl_probes_count(p)) {
		err = -EINVAL;
		snprintf(why, len, "%s", obs_ssl_probes_text(p));
		goto out;
	}
	on = round_ns(&a, ssl, calls);
	*ns = on > off ? on - off : 0;
out:
	obs_ssl_probes_free(p);
	if (ssl)
		a.ssl_free(ssl);
	if (ctx)
		a.ctx_free(ctx);
	dlclose(dl);
	return err;
}
