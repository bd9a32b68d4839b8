// SPDX-License-Identifier: MIT
/* udp://'s request id: where it sits, stamped into a request, read from a reply (udp_id.h). */
#include "udp/udp_id.h"
#include "config/config.h"
#include "config/request.h"

#define UDP_TAG_MAGIC 0x4c4cULL /* "LL" in the top 16 bits */
#define UDP_SEQ48 0xffffffffffffULL

void drv_udp_id_init(struct drv_udp_id *id, const struct drv_config *cfg,
		     const struct drv_request *rq)
{
	*id = (struct drv_udp_id){ 0 };
	if (cfg->id_width) {
		id->on = true;
		id->off = cfg->id_offset;
		id->width = cfg->id_width;
	} else if (!cfg->mix && rq->sized && rq->size_min >= 8) {
		id->on = id->magic = true;
		id->width = 8;
	}
	id->mask = id->magic ? UDP_SEQ48 : id->width == 8 ? ~0ULL : (1ULL << (8 * id->width)) - 1;
}

uint64_t drv_udp_id_stamp(const struct drv_udp_id *id, uint64_t seq, uint8_t tag[8])
{
	uint64_t v = id->magic ? UDP_TAG_MAGIC << 48 | (seq & UDP_SEQ48) : seq & id->mask;
	unsigned i;

	for (i = 0; i < id->width; i++)
		tag[i] = (uint8_t)(v >> (8 * (id->width - 1 - i)));
	return seq & id->mask;
}

int drv_udp_id_read(const struct drv_udp_id *id, const uint8_t *p, size_t n, uint64_t *v)
{
	unsigned i;

	*v = 0;
	if (n < (size_t)id->off + id->width)
		return -1;
	for (i = 0; i < id->width; i++)
		*v = *v << 8 | p[id->off + i];
	if (id->magic) {
		if (*v >> 48 != UDP_TAG_MAGIC)
			return -1;
		*v &= UDP_SEQ48;
	}
	return 0;
}
