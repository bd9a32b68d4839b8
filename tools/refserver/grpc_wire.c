// SPDX-License-Identifier: MIT
/* The pure parts of the refserver's gRPC: status names, request checks, message scan, counts. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "loadlens/grpc_status.h"
#include "loadlens/parse.h"
#include "grpc_wire.h"

/* The codes of grpc/status/status.proto (google.rpc.Code) are lib/grpc_status.c's. */
const char *rs_grpc_status_name(int code)
{
	return code >= 0 && code < RS_GRPC_NSTATUS ? ll_grpc_status_name((unsigned)code) : NULL;
}

int rs_grpc_status_parse(const char *s, int *code)
{
	int c = ll_grpc_status_from_name(s);

	if (c < 0)
		return -EINVAL;
	*code = c;
	return 0;
}

int rs_grpc_status_every_parse(const char *s, int *code, uint64_t *every)
{
	char name[32];
	const char *rest = ll_parse_pair(s, name, sizeof(name));
	uint64_t e;
	int c;

	if (!rest || rs_grpc_status_parse(name, &c) || ll_parse_u64(rest, 1, UINT32_MAX, &e))
		return -EINVAL;
	*code = c;
	*every = e;
	return 0;
}

bool rs_grpc_content_type_ok(const char *v, size_t len)
{
	static const char base[] = "application/grpc";
	const size_t blen = sizeof(base) - 1;

	if (len < blen || strncasecmp(v, base, blen))
		return false;
	return len == blen || v[blen] == '+' || v[blen] == ';';
}

bool rs_grpc_path_ok(const char *p, size_t len)
{
	const char *slash;

	if (len < 4 || p[0] != '/')
		return false;
	slash = memchr(p + 1, '/', len - 1);
	/* a service before the slash, a method after it, and no third part */
	return slash && slash > p + 1 && slash < p + len - 1 &&
	       !memchr(slash + 1, '/', (size_t)(p + len - slash - 1));
}

void rs_grpc_scan_feed(struct rs_grpc_scan *s, const uint8_t *p, size_t n)
{
	size_t take;

	while (n) {
		if (s->left) {
			take = n < s->left ? n : s->left;
			s->left -= (uint32_t)take;
			p += take;
			n -= take;
			if (!s->left)
				s->messages++;
			continue;
		}
		s->hdr[s->have++] = *p++;
		n--;
		if (s->have < RS_GRPC_PREFIX)
			continue;
		s->have = 0;
		s->left = (uint32_t)s->hdr[1] << 24 | (uint32_t)s->hdr[2] << 16 |
			  (uint32_t)s->hdr[3] << 8 | s->hdr[4];
		if (!s->left)
			s->messages++;
	}
}

bool rs_grpc_scan_complete(const struct rs_grpc_scan *s)
{
	return !s->have && !s->left;
}

static void add(struct rs_grpc_methods *t, const char *path, size_t len, uint64_t calls)
{
	unsigned i;

	if (len >= RS_GRPC_PATH_MAX) {
		t->other += calls;
		return;
	}
	for (i = 0; i < t->n; i++) {
		if (!strncmp(t->m[i].path, path, len) && !t->m[i].path[len]) {
			t->m[i].calls += calls;
			return;
		}
	}
	if (t->n == RS_GRPC_METHODS_MAX) {
		t->other += calls;
		return;
	}
	memcpy(t->m[t->n].path, path, len);
	t->m[t->n].path[len] = '\0';
	t->m[t->n].calls = calls;
	t->n++;
}

void rs_grpc_methods_count(struct rs_grpc_methods *t, const char *path, size_t len)
{
	add(t, path, len, 1);
}

void rs_grpc_methods_merge(struct rs_grpc_methods *dst, const struct rs_grpc_methods *src)
{
	unsigned i;

	for (i = 0; i < src->n; i++)
		add(dst, src->m[i].path, strlen(src->m[i].path), src->m[i].calls);
	dst->other += src->other;
}
