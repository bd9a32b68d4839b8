// SPDX-License-Identifier: MIT
/* The summary's line of what the TLS uprobes cost a run (tls_calls.h). */
#include <stdio.h>
#include "output/tls_calls.h"

int obs_tls_calls_text(char *buf, size_t len, uint64_t calls, uint64_t other, uint64_t requests,
		       uint64_t ktls_only)
{
	char rate[48] = "";
	int n;

	if (len)
		buf[0] = '\0';
	if (!calls && !other)
		return 0;
	if (requests)
		snprintf(rate, sizeof(rate), " (%.2f a request timed)",
			 (double)calls / (double)requests);
	n = snprintf(buf, len, "TLS probes: %llu SSL calls of the serving processes%s, each an "
		     "entry and a return trap (loadlens-observer --check measures one here)",
		     (unsigned long long)calls, rate);
	if (other && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "; %llu SSL calls of other processes paid "
			      "them too, nothing read", (unsigned long long)other);
	if (ktls_only && calls && n >= 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "; every TLS connection (%llu) was on kTLS, "
			      "read from the socket: the serving processes' calls trapped for nothing "
			      "(--no-tls-uprobes leaves the uprobes off)", (unsigned long long)ktls_only);
	return n;
}
