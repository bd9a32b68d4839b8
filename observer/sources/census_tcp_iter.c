// SPDX-License-Identifier: MIT
/* The census' walk on a TCP iterator (census_iter.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "sources/census_tcp_iter.h"
#include "kernel/bpfread.h"
#include "kernel/iter_ns.h"
#include "kernel/startup.h"
#include "census.skel.h"

#define READ_BUF (64 * 1024)

struct obs_census_iter {
	struct census_bpf *skel;
	struct bpf_link *link;
	struct obs_iter_ns *ns; /* makes each pass's iterator, in the target's namespace */
	char buf[READ_BUF]; /* one read of the iterator's records */
};

static int iter_fd(struct obs_census_iter *it)
{
	return obs_iter_ns_create(it->ns, 0);
}

struct obs_census_iter *obs_census_iter_new(int netns_fd, const uint16_t *ports, size_t nports)
{
	struct obs_census_iter *it = calloc(1, sizeof(*it));
	size_t i;
	int err, link_fd;

	if (!it)
		return NULL;
	it->skel = census_bpf__open();
	if (!it->skel) {
		err = errno;
		goto fail;
	}
	for (i = 0; i < nports && i < CEN_PORTS; i++) {
		it->skel->rodata->targ_port_bits[ports[i] >> 6] |= 1ULL << (ports[i] & 63);
		it->skel->rodata->targ_port_idx[ports[i]] = (uint8_t)(i + 1);
	}
	it->skel->rodata->targ_all = !nports;
	it->skel->rodata->targ_cookie = obs_startup_tracing_helper_known(
		BPF_FUNC_get_socket_cookie, BPF_TRACE_ITER, "bpf_iter_tcp");
	if (census_bpf__load(it->skel)) {
		err = errno == EINVAL || errno == ENOENT ? ENOTSUP : errno;
		goto fail;
	}
	it->link = bpf_program__attach_iter(it->skel->progs.handle_tcp, NULL);
	if (!it->link) {
		err = errno;
		goto fail;
	}
	link_fd = bpf_link__fd(it->link);
	it->ns = obs_iter_ns_new(netns_fd, &link_fd, 1);
	if (!it->ns) {
		err = errno;
		goto fail;
	}
	return it;
fail:
	obs_census_iter_free(it);
	errno = err ? err : EINVAL;
	return NULL;
}

void obs_census_iter_free(struct obs_census_iter *it)
{
	if (!it)
		return;
	obs_iter_ns_free(it->ns);
	bpf_link__destroy(it->link);
	census_bpf__destroy(it->skel);
	free(it);
}

/* A group of the map being drained, to the sink. */
static void drained(void *arg, int fd, const void *key)
{
	const struct obs_census_iter_sink *sink = arg;
	struct cen_group_val v;

	if (!bpf_map_lookup_elem(fd, key, &v))
		sink->group(sink->arg, key, &v);
}

/* A record of the walk, to the sink. */
static void walked(void *arg, const void *rec)
{
	const struct obs_census_iter_sink *sink = arg;
	struct cen_rec r;

	memcpy(&r, rec, sizeof(r));
	sink->rec(sink->arg, &r);
}

int obs_census_iter_walk(struct obs_census_iter *it, const uint64_t *listen_bits, uint32_t lo,
			 uint32_t hi, struct obs_census_iter_counts *out,
			 const struct obs_census_iter_sink *sink)
{
	struct census_bpf__bss *bss = it->skel->bss;
	struct obs_census_iter_sink s = *sink;
	int fd, err;

	memcpy(bss->listen_bits, listen_bits, sizeof(bss->listen_bits));
	bss->range_lo = lo;
	bss->range_hi = hi;
	memset(bss->cen_state, 0, sizeof(bss->cen_state));
	bss->cen_sockets = 0;
	memset(bss->cen_port_close_wait, 0, sizeof(bss->cen_port_close_wait));
	memset(bss->cen_port_fin_wait2, 0, sizeof(bss->cen_port_fin_wait2));
	memset(bss->cen_port_time_wait, 0, sizeof(bss->cen_port_time_wait));
	bss->cen_capped = 0;
	fd = iter_fd(it);
	if (fd < 0)
		return fd;
	err = obs_bpfread_iter(fd, it->buf, READ_BUF, sizeof(struct cen_rec), walked, &s);
	if (err)
		return err;
	memcpy(out->state, bss->cen_state, sizeof(out->state));
	out->sockets = bss->cen_sockets;
	memcpy(out->close_wait, bss->cen_port_close_wait + 1, sizeof(out->close_wait));
	memcpy(out->fin_wait2, bss->cen_port_fin_wait2 + 1, sizeof(out->fin_wait2));
	memcpy(out->time_wait, bss->cen_port_time_wait + 1, sizeof(out->time_wait));
	out->capped = bss->cen_capped;
	return obs_bpfread_drain(bpf_map__fd(it->skel->maps.cen_groups),
				 sizeof(struct cen_group_key), drained, &s);
}
