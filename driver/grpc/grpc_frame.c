// SPDX-License-Identifier: MIT
/* A unary gRPC reply checked piece by piece, and its verdict (grpc_frame.h). */
#include <string.h>
#include <strings.h>
#include "base/errors.h"
#include "loadlens/grpc_status.h"
#include "grpc/grpc_frame.h"

/* What the response headers said of the content-type. */
enum { CT_NONE = 0, CT_GRPC, CT_OTHER };

#define STATUS_NONE (-1)
#define STATUS_BAD (-2)

void drv_grpc_reply_init(struct drv_grpc_reply *r)
{
	memset(r, 0, sizeof(*r));
	r->status = STATUS_NONE;
}

void drv_grpc_reply_block(struct drv_grpc_reply *r, bool response)
{
	r->status = STATUS_NONE;
	if (response)
		r->ctype = CT_NONE;
}

bool drv_grpc_content_type_ok(const uint8_t *v, size_t len)
{
	static const char base[] = "application/grpc";
	const size_t blen = sizeof(base) - 1;

	if (len < blen || strncasecmp((const char *)v, base, blen))
		return false;
	return len == blen || v[blen] == '+' || v[blen] == ';';
}

void drv_grpc_reply_header(struct drv_grpc_reply *r, bool response, const uint8_t *name,
			   size_t namelen, const uint8_t *value, size_t valuelen)
{
	int v;

	if (namelen == 11 && !memcmp(name, "grpc-status", 11)) {
		v = ll_grpc_status_parse(value, valuelen);
		/* two in one block: the block is not one answer */
		r->status = v < 0 || r->status != STATUS_NONE ? STATUS_BAD : (int16_t)v;
	} else if (response && namelen == 12 && !memcmp(name, "content-type", 12)) {
		/* a second content-type, even a gRPC one, is not one answer either */
		r->ctype = r->ctype == CT_NONE && drv_grpc_content_type_ok(value, valuelen)
				   ? CT_GRPC : CT_OTHER;
	}
}

void drv_grpc_reply_data(struct drv_grpc_reply *r, const uint8_t *p, size_t n)
{
	size_t take;

	while (n && !r->broken) {
		if (!r->have && r->left) { /* (while a prefix is read, left gathers its length) */
			take = n < r->left ? n : r->left;
			r->left -= (uint32_t)take;
			p += take;
			n -= take;
			continue;
		}
		/* a prefix byte: the flag (have 0), then the length's four, high first */
		if (!r->have) {
			if (*p > 1) {
				r->broken = true;
				return;
			}
			r->compressed |= *p == 1;
		} else {
			r->left = r->left << 8 | *p;
		}
		p++;
		n--;
		if (++r->have == DRV_GRPC_PREFIX) {
			r->have = 0;
			r->messages++;
		}
	}
}

int drv_grpc_reply_end(const struct drv_grpc_reply *r, bool by_headers, int *status)
{
	*status = -1;
	if (r->ctype != CT_GRPC)
		return DRV_E_GRPC_CONTENT_TYPE;
	if (r->broken || r->have || r->left)
		return DRV_E_GRPC_FRAMING;
	if (r->compressed)
		return DRV_E_GRPC_COMPRESSED;
	if (!by_headers || r->status < 0)
		return r->messages > 1 ? DRV_E_GRPC_MESSAGES : DRV_E_GRPC_TRAILERS;
	if (r->messages > 1 || (!r->messages && r->status == LL_GRPC_OK))
		return DRV_E_GRPC_MESSAGES;
	*status = r->status;
	return r->status == LL_GRPC_OK ? 0 : DRV_E_GRPC;
}
