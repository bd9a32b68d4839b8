/* SPDX-License-Identifier: MIT */
/* -P N: up to N requests in flight on one TCP connection, answered in order (proto_tcp_pipe.c). */
#ifndef LOADLENS_DRV_PROTO_TCP_PIPE_H
#define LOADLENS_DRV_PROTO_TCP_PIPE_H

#include <stddef.h>
#include <sys/types.h>
#include "protocols/tcp_conn.h"

/* proto_tcp_pipe.c: the -P paths of send, read, end of stream and failure. */
void drv__tcp_pipe_send(struct tcp_conn *c);
void drv__tcp_pipe_fail(struct tcp_conn *c, int err);
void drv__tcp_pipe_read(struct tcp_conn *c, const char *p, size_t n);
void drv__tcp_pipe_eof(struct tcp_conn *c, ssize_t nread);

#endif /* LOADLENS_DRV_PROTO_TCP_PIPE_H */
