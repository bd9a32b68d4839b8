// SPDX-License-Identifier: MIT
/*
 * gRPC on the h2 streams (--proto grpc): the request check, the reply message and the trailers.
 * A call is POST /Service/Method with content-type application/grpc[+fmt][;params]; its body is
 * length-prefixed messages, followed but never decoded. The reply is HEADERS (:status 200,
 * content-type application/grpc), one DATA with one message, and trailers with grpc-status (and
 * grpc-message when it is not 0). Anything else is answered at once, as a gRPC server does: 415
 * for another content-type, a trailers-only UNIMPLEMENTED for another method or a path that is not
 * /Service/Method, a trailers-only INTERNAL for a body that ends inside a message.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "grpc_reply.h"
#include "proto_grpc.h"

/* Built by rs_grpc_prepare() before the workers start; read-only afterwards. */
static char *reply; /* the message with its 5-byte prefix */
static size_t reply_len;
static char injected_code[4], injected_msg[96];

static const nghttp2_nv reply_nv[] = {RS_NV("content-type", "application/grpc")};
static const nghttp2_nv ok_trailers[] = {RS_NV("grpc-status", "0")};
static nghttp2_nv injected_trailers[] = {
	RS_NV("grpc-status", ""),  /* injected_code */
	RS_NV("grpc-message", ""), /* injected_msg */
};

/* the early answers (no service time) */
static const nghttp2_nv bad_type_nv[] = {RS_NV("content-type", "text/plain")};
static const nghttp2_nv bad_method_nv[] = {
	RS_NV("content-type", "application/grpc"),
	RS_NV("grpc-status", "12"),
	RS_NV("grpc-message", "method not POST"),
};
static const nghttp2_nv bad_path_nv[] = {
	RS_NV("content-type", "application/grpc"),
	RS_NV("grpc-status", "12"),
	RS_NV("grpc-message", "path is not /Service/Method"),
};
static const nghttp2_nv bad_message_nv[] = {
	RS_NV("content-type", "application/grpc"),
	RS_NV("grpc-status", "13"),
	RS_NV("grpc-message", "request body ends inside a message"),
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* A trailers-only response: HEADERS with END_STREAM, grpc-status CODE among NV. */
static void trailers_only(struct rs_h2_conn *h, struct rs_h2_stream *st, const nghttp2_nv *nv,
			  size_t n, int code)
{
	if (!rs_h2_respond(h, st, 200, nv, n, NULL, 0, NULL, 0))
		h->c->w->c.grpc_status[code]++;
}

bool rs_grpc_admit(struct rs_h2_conn *h, struct rs_h2_stream *st)
{
	struct rs_counters *c = &h->c->w->c;

	if (!st->grpc_type) {
		c->grpc_bad_content_type++;
		rs_h2_respond(h, st, 415, bad_type_nv, COUNT(bad_type_nv), NULL, 0, NULL, 0);
		return false;
	}
	if (!st->post) {
		c->grpc_bad_method++;
		trailers_only(h, st, bad_method_nv, COUNT(bad_method_nv), RS_GRPC_UNIMPLEMENTED);
		return false;
	}
	if (st->path_len >= RS_GRPC_PATH_MAX || !rs_grpc_path_ok(st->path, st->path_len)) {
		c->grpc_bad_path++;
		trailers_only(h, st, bad_path_nv, COUNT(bad_path_nv), RS_GRPC_UNIMPLEMENTED);
		return false;
	}
	if (!rs_grpc_scan_complete(&st->scan)) {
		c->grpc_bad_message++;
		trailers_only(h, st, bad_message_nv, COUNT(bad_message_nv), RS_GRPC_INTERNAL);
		return false;
	}
	c->grpc_messages += st->scan.messages;
	rs_grpc_methods_count(&h->c->w->methods, st->path, st->path_len);
	return true;
}

int rs_grpc_respond(struct rs_h2_conn *h, struct rs_h2_stream *st, uint64_t seq)
{
	const struct rs_misbehave *mb = &h->c->w->cfg->mb;
	bool inject = mb->grpc_status_every && seq % mb->grpc_status_every == 0;
	int code = inject ? mb->grpc_status_code : RS_GRPC_OK;
	int rv;

	if (inject && code != RS_GRPC_OK)
		rv = rs_h2_respond(h, st, 200, reply_nv, COUNT(reply_nv), reply, reply_len,
				   injected_trailers, COUNT(injected_trailers));
	else
		rv = rs_h2_respond(h, st, 200, reply_nv, COUNT(reply_nv), reply, reply_len,
				   ok_trailers, COUNT(ok_trailers));
	if (!rv)
		h->c->w->c.grpc_status[code]++;
	return rv;
}

static void set_value(nghttp2_nv *nv, char *v)
{
	nv->value = (uint8_t *)v;
	nv->valuelen = strlen(v);
}

int rs_grpc_prepare(const struct rs_config *cfg)
{
	const struct rs_misbehave *mb = &cfg->mb;
	char *msg = NULL;
	size_t len = 0;
	int err;

	/* the empty message is valid for every proto3 message type */
	if (cfg->response_size >= 0) {
		err = rs_grpc_reply_encode(cfg->body, cfg->body_len, &msg, &len);
		if (err)
			return err;
	}
	reply = malloc(RS_GRPC_PREFIX + len);
	if (!reply) {
		free(msg);
		return -ENOMEM;
	}
	reply[0] = 0; /* not compressed */
	reply[1] = (char)(len >> 24);
	reply[2] = (char)(len >> 16);
	reply[3] = (char)(len >> 8);
	reply[4] = (char)len;
	if (len)
		memcpy(reply + RS_GRPC_PREFIX, msg, len);
	reply_len = RS_GRPC_PREFIX + len;
	free(msg);

	snprintf(injected_code, sizeof(injected_code), "%d", mb->grpc_status_code);
	snprintf(injected_msg, sizeof(injected_msg), "injected by --grpc-status %s:%llu",
		 rs_grpc_status_name(mb->grpc_status_code),
		 (unsigned long long)mb->grpc_status_every);
	set_value(&injected_trailers[0], injected_code);
	set_value(&injected_trailers[1], injected_msg);
	return 0;
}

void rs_grpc_release(void)
{
	free(reply);
	reply = NULL;
}
