/* SPDX-License-Identifier: MIT */
/*
 * A run that cannot work stops at once. When every slot has failed its TLS handshake or its
 * HTTP/2 negotiation (error classes tls and not_h2: a certificate not trusted or not for the
 * host, no common protocol, no h2 in the server's ALPN, an HTTP/1 answer to the h2c preface) and
 * nothing was answered, each retry would fail the same way until -d or -n ran out (curl's at
 * once, a core busy; the native engine's after a backoff). A worker counts each slot's first such
 * failure (drv_worker_negfail(), from the slot base), and once all its slots have one and it has
 * had no answer it tells the main thread, once; the main thread stops the run when every worker
 * has and still none of them has an answer (stopped_by "negotiation"). A connection whose server
 * SETTINGS came (h2 negotiated) counts as an answer. The first failure's reason (OpenSSL's verify
 * result or error, libcurl's) is kept for the summary, the hint and the JSON, with how many
 * failures gave that same reason.
 */
#ifndef LOADLENS_DRV_FAILFAST_H
#define LOADLENS_DRV_FAILFAST_H

#include <stdbool.h>
#include <stdint.h>

#define DRV_FAILFAST_WHY 160

/* One worker's count (worker thread only, until it has told the main thread). */
struct drv_failfast {
	uint32_t slots;		     /* its slots with a failed negotiation, each counted once */
	bool told;		     /* the main thread was told */
	int err;		     /* the first failure's error (DRV_E_TLS, DRV_E_NOT_H2) */
	uint64_t nwhy;		     /* the failures that gave why (the first one included) */
	char why[DRV_FAILFAST_WHY]; /* its reason, "" when none was given */
};

/* Does err end a connection's negotiation (TLS, HTTP/2)? Pure. */
bool drv_failfast_err(int err);
/*
 * May a worker of nslots slots, failed of them, tell? Not once it has had an answer (answered:
 * responses, and connections that negotiated). Pure.
 */
bool drv_failfast_due(uint32_t failed, uint32_t nslots, uint64_t answered);
/*
 * Does the run stop: told of nworkers workers have told, and the run has had no answer since
 * (answered: the workers' responses by now, a worker that told may have had one after)? Pure.
 */
bool drv_failfast_stop(uint32_t told, uint32_t nworkers, uint64_t answered);
/*
 * Why a connection failed its negotiation (NULL or "": no reason given): the first reason is
 * kept (cut to fit), and each failure that gives the same one is counted in nwhy.
 */
void drv_failfast_why(struct drv_failfast *f, const char *why);

#endif /* LOADLENS_DRV_FAILFAST_H */
