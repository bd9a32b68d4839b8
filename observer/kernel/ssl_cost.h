/* SPDX-License-Identifier: MIT */
/*
 * What one SSL call pays while TLS plaintext's uprobes sit on it, measured on this host (for
 * --check): the libssl opened in this process, SSL_write and SSL_read called on an SSL object
 * with no connection (each returns at once from inside the function the probes sit in), the
 * same calls timed without the probes and with them (kernel/ssl_probes.h's attach).
 */
#ifndef LOADLENS_OBSERVER_KERNEL_SSL_COST_H
#define LOADLENS_OBSERVER_KERNEL_SSL_COST_H

#include <stdint.h>
#include "kernel/ssl_probes.h"

struct obs_sockets;

/* After load, privileged: the nanoseconds a probed call of lib takes more than an unprobed one
 * (the least of 3 rounds of calls each), in *ns. 0, or -errno (the library does not open, has no
 * SSL_write, or the probes do not attach) with the reason in why. */
int obs_ssl_cost_measure(struct obs_sockets *conn, const struct obs_ssl_file *lib, uint32_t calls,
			 double *ns, char *why, size_t len);

#endif /* LOADLENS_OBSERVER_KERNEL_SSL_COST_H */
