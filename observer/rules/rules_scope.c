// SPDX-License-Identifier: MIT
/* Rules on what is watched: a target in another network namespace, a --port nothing listens on. */
#include <stdio.h>
#include <string.h>
#include "rules.h"

static const char *x__comm(const struct obs_snap *s, uint32_t pid)
{
	size_t i;

	for (i = 0; i < s->nprocs; i++)
		if (s->proc[i].pid == pid)
			return s->proc[i].comm;
	return "?";
}

void obs_rule_netns_outside(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0);
	char key[24];
	size_t i;

	for (i = 0; i < now->nnetns_outside; i++) {
		snprintf(key, sizeof(key), "pid %u", now->netns_outside[i]);
		obs_findings_add(out, "netns_outside", OBS_SEV_NOTE, key,
				 json_pack("{s:i, s:s, s:s}", "pid", (int)now->netns_outside[i],
					   "comm", x__comm(now, now->netns_outside[i]), "watched_netns",
					   now->netns_name),
				 "scope: %s (pid %u) lives in another network namespace than the "
				 "watched one (%s): its sockets are not in the census, port pressure "
				 "or accepted counts; watch it with --pid %u",
				 x__comm(now, now->netns_outside[i]), now->netns_outside[i],
				 now->netns_name, now->netns_outside[i]);
	}
}

static bool x__has(const struct obs_snap *s, uint16_t port)
{
	size_t i;

	for (i = 0; i < s->nno_listener; i++)
		if (s->no_listener[i] == port)
			return true;
	return false;
}

static uint64_t x__requests(const struct obs_snap *s, uint16_t port)
{
	uint64_t n = 0;
	size_t i;

	for (i = 0; i < s->nslots; i++)
		if (s->slot[i].port == port)
			n += s->slot[i].requests;
	return n;
}

void obs_rule_no_listener(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0), *prev = obs_snap_at(h, 1);
	char a[32], key[16], timed[160];
	uint16_t port;
	uint64_t req;
	size_t i;

	for (i = 0; i < now->nno_listener; i++) {
		port = now->no_listener[i];
		/* a server may still be starting: two intervals in a row, or the end of the run */
		if (!now->final && !(prev && x__has(prev, port)))
			continue;
		req = x__requests(now, port);
		timed[0] = '\0';
		if (req)
			snprintf(timed, sizeof(timed), "; the %s requests timed on it this interval "
				 "are served in another namespace (give --pid of the server)",
				 obs_rule_num(req, a, sizeof(a)));
		snprintf(key, sizeof(key), "port %u", port);
		obs_findings_add(out, "no_listener", OBS_SEV_NOTE, key,
				 json_pack("{s:i, s:s, s:I}", "port", (int)port, "watched_netns",
					   now->netns_name, "requests", (json_int_t)req),
				 "scope: nothing listens on port %u in the watched network namespace "
				 "(%s): accepted, the census and port pressure count nothing there%s",
				 port, now->netns_name, timed);
	}
}
