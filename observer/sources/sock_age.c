// SPDX-License-Identifier: MIT
/* CLOSE_WAIT and FIN_WAIT2 ageing across censuses (sock_age.h). */
#include <stdlib.h>
#include <string.h>
#include "sources/sock_age.h"

/* A socket being aged, by its cookie (a timewait socket keeps the cookie of the socket it
 * replaced). */
struct aged {
	uint64_t cookie;
	double first_s;
	int16_t port; /* index of its target port, -1 none */
	bool close_wait; /* else FIN_WAIT2 */
	uint64_t peer; /* FIN_WAIT2: its peer's connection, as the peer sees it */
};

struct obs_sock_age {
	struct aged *prev, *cur; /* the last walk's (sorted by cookie) and this one's: tab[0|1] */
	size_t nprev, ncur;
	size_t nunacc;
	double now_s;
	uint64_t unacc[OBS_SOCK_AGE_UNACC]; /* sorted at the end of the walk */
	struct aged tab[2][OBS_SOCK_AGE_TRACK];
};

/* One allocation (4.3 MB, touched as the walks fill it). */
struct obs_sock_age *obs_sock_age_new(void)
{
	struct obs_sock_age *a = calloc(1, sizeof(*a));

	if (a) {
		a->prev = a->tab[0];
		a->cur = a->tab[1];
	}
	return a;
}

void obs_sock_age_free(struct obs_sock_age *a)
{
	free(a);
}

void obs_sock_age_begin(struct obs_sock_age *a, double now_s)
{
	a->now_s = now_s;
	a->ncur = 0;
	a->nunacc = 0;
}

bool obs_sock_age_track(struct obs_sock_age *a, uint64_t cookie, bool close_wait, uint64_t peer)
{
	if (a->ncur >= OBS_SOCK_AGE_TRACK)
		return false;
	a->cur[a->ncur++] = (struct aged){cookie, a->now_s, -1, close_wait, peer};
	return true;
}

void obs_sock_age_port(struct obs_sock_age *a, int16_t port)
{
	if (a->ncur && port >= 0 && port < OBS_MAX_PORTS)
		a->cur[a->ncur - 1].port = port;
}

bool obs_sock_age_unaccepted(struct obs_sock_age *a, uint64_t conn)
{
	if (a->nunacc >= OBS_SOCK_AGE_UNACC)
		return false;
	a->unacc[a->nunacc++] = conn;
	return true;
}

static int cmp_u64(const void *x, const void *y)
{
	const uint64_t *p = x, *q = y;

	return *p < *q ? -1 : *p > *q;
}

static int cmp_aged(const void *x, const void *y)
{
	const struct aged *p = x, *q = y;

	return p->cookie < q->cookie ? -1 : p->cookie > q->cookie;
}

void obs_sock_age_end(struct obs_sock_age *a, struct obs_sock_age_counts *out)
{
	struct aged *s, *p, *tmp;
	size_t i;

	memset(out, 0, sizeof(*out));
	qsort(a->cur, a->ncur, sizeof(*a->cur), cmp_aged);
	qsort(a->unacc, a->nunacc, sizeof(*a->unacc), cmp_u64);
	for (i = 0; i < a->ncur; i++) {
		s = &a->cur[i];
		p = bsearch(s, a->prev, a->nprev, sizeof(*p), cmp_aged);
		if (p && p->close_wait == s->close_wait)
			s->first_s = p->first_s;
		if (a->now_s - s->first_s < OBS_SOCK_AGE_OLD_S) {
			out->young++;
			continue;
		}
		if (!s->close_wait &&
		    bsearch(&s->peer, a->unacc, a->nunacc, sizeof(*a->unacc), cmp_u64)) {
			/* its peer is a connection the server never accepted: the accept queue's
			 * problem (fds, a slow acceptor), named there, not a peer that never closes */
			out->peer_queued++;
			continue;
		}
		if (s->close_wait) {
			out->close_wait_old++;
			if (s->port >= 0)
				out->port_close_wait_old[s->port]++;
		} else {
			out->fin_wait2_old++;
			if (s->port >= 0)
				out->port_fin_wait2_old[s->port]++;
		}
	}
	tmp = a->prev;
	a->prev = a->cur;
	a->cur = tmp;
	a->nprev = a->ncur;
	a->ncur = 0;
}
