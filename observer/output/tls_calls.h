/* SPDX-License-Identifier: MIT */
/* What TLS plaintext's uprobes cost a run, in calls: the summary's line (a pure formatter). */
#ifndef LOADLENS_OBSERVER_OUTPUT_TLS_CALLS_H
#define LOADLENS_OBSERVER_OUTPUT_TLS_CALLS_H

#include <stddef.h>
#include <stdint.h>

/* "TLS probes: C SSL calls of the serving processes (R a request), each an entry and a return
 * trap (...); O SSL calls of other processes paid them too, nothing read" into buf, for calls
 * (RT_G_SSL_CALLS), other (RT_G_SSL_OTHER) and the requests timed, and where every TLS
 * connection was on kTLS (ktls_only: their number, else 0) that the calls trapped for nothing;
 * 0 where both counts are 0 (buf empty), else the length snprintf gave. */
int obs_tls_calls_text(char *buf, size_t len, uint64_t calls, uint64_t other, uint64_t requests,
		       uint64_t ktls_only);

#endif /* LOADLENS_OBSERVER_OUTPUT_TLS_CALLS_H */
