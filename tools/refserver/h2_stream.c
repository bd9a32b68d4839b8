// SPDX-License-Identifier: MIT
/* An HTTP/2 stream's response on the refserver: headers, a body from memory, trailers. */
#include <stdio.h>
#include <string.h>
#include "h2_stream.h"

static ssize_t read_body(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len,
			 uint32_t *flags, nghttp2_data_source *src, void *user_data)
{
	struct rs_h2_stream *st = src->ptr;
	size_t n = st->body_len - st->body_off;

	if (n > len)
		n = len;
	memcpy(buf, st->body + st->body_off, n);
	st->body_off += n;
	if (st->body_off < st->body_len)
		return (ssize_t)n;
	*flags |= NGHTTP2_DATA_FLAG_EOF;
	if (st->ntrailers) {
		*flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM;
		if (nghttp2_submit_trailer(s, id, st->trailers, st->ntrailers))
			return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	}
	return (ssize_t)n;
}

int rs_h2_respond(struct rs_h2_conn *h, struct rs_h2_stream *st, int status,
		  const nghttp2_nv *nv, size_t nvlen, const char *body, size_t len,
		  const nghttp2_nv *trailers, size_t ntrailers)
{
	nghttp2_data_provider prd = {.source.ptr = st, .read_callback = read_body};
	nghttp2_nv all[8];
	char code[8];
	int rv;

	if (nvlen >= sizeof(all) / sizeof(all[0]) || status < 100 || status >= RS_HTTP_STATUS_MAX)
		return NGHTTP2_ERR_INVALID_ARGUMENT;
	snprintf(code, sizeof(code), "%d", status);
	all[0] = (nghttp2_nv){(uint8_t *)":status", (uint8_t *)code, 7, 3,
			      NGHTTP2_NV_FLAG_NO_COPY_NAME};
	memcpy(all + 1, nv, nvlen * sizeof(*nv));
	st->body = body;
	st->body_len = len;
	st->body_off = 0;
	st->trailers = trailers;
	st->ntrailers = ntrailers;
	rv = nghttp2_submit_response(h->session, st->id, all, nvlen + 1,
				     len || ntrailers ? &prd : NULL);
	if (!rv)
		h->c->w->c.http_status[status]++;
	return rv;
}
