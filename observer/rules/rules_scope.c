// SPDX-License-Identifier: MIT
/* Rules on what is watched: a target in another network namespace, a --port nothing listens on. */
#include <stdio.h>
#include <string.h>
#include "rules/rules.h"

static const char *comm(const struct obs_snap *s, uint32_t pid)
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
					   "comm", comm(now, now->netns_outside[i]), "watched_netns",
					   now->netns_name),
				 "scope: %s (pid %u) lives in another network namespace than the "
				 "watched one (%s): its sockets are not in the census, port pressure "
				 "or accepted counts; watch it with --pid %u",
				 comm(now, now->netns_outside[i]), now->netns_outside[i],
				 now->netns_name, now->netns_outside[i]);
	}
}

static bool has(const struct obs_snap *s, uint16_t port)
{
	size_t i;

	for (i = 0; i < s->nno_listener; i++)
		if (s->no_listener[i] == port)
			return true;
	return false;
}

static uint64_t rules_scope_requests(const struct obs_snap *s, uint16_t port)
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
		if (!now->final && !(prev && has(prev, port)))
			continue;
		req = rules_scope_requests(now, port);
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

/*
 * --pid (without --children) of a process that accepts connections but serves none of them: a
 * cluster's primary, a pre-fork master, a process handing its fds on. Over the kept history:
 * accepts in 2 intervals at least, no request timed, and sockets first read by non-targets.
 * Names the targets' children, which are the usual servers.
 */
void obs_rule_served_elsewhere(const struct obs_snap_hist *h, struct obs_findings *out)
{
	const struct obs_snap *now = obs_snap_at(h, 0), *s;
	uint64_t accepted = 0, requests = 0;
	unsigned int b, with = 0;
	char a[32], who[320] = "", f[32], n[32];
	json_t *kids, *readers;
	size_t i, nr, w = 0;
	double since = now->t;

	if (!now->pid_targets || !now->requests_on || !now->foreign_sockets)
		return;
	for (b = 0; (s = obs_snap_at(h, b)); b++) {
		accepted += s->accepted;
		with += s->accepted > 0;
		for (i = 0; i < s->nslots; i++)
			requests += s->slot[i].requests;
		since = s->t - s->dt;
	}
	if (with < 2 || requests)
		return;
	readers = json_array();
	for (i = 0, nr = 0; i < now->nreaders; i++) {
		const struct obs_snap_reader *r = &now->reader[i];

		if (r->udp) /* accepted connections are TCP: a UDP socket is another story */
			continue;
		json_array_append_new(readers, json_pack("{s:i, s:s, s:i, s:I}", "pid", (int)r->pid,
							 "comm", r->comm, "port", (int)r->port,
							 "sockets", (json_int_t)r->sockets));
		if (nr++ < 4 && w < sizeof(who))
			w += (size_t)snprintf(who + w, sizeof(who) - w, "%s%s (pid %u: %s on tcp/%u)",
					      nr > 1 ? ", " : "; server-side sockets read first "
					      "by others, the most first: ", r->comm, r->pid,
					      obs_rule_num(r->sockets, n, sizeof(n)), r->port);
	}
	if (nr > 4 && w < sizeof(who))
		w += (size_t)snprintf(who + w, sizeof(who) - w, " and %zu more", nr - 4);
	kids = json_array();
	for (i = 0; i < now->nkids; i++) {
		json_array_append_new(kids, json_pack("{s:i, s:s}", "pid", (int)now->kid[i].pid,
						      "comm", now->kid[i].comm));
		if (w < sizeof(who))
			w += (size_t)snprintf(who + w, sizeof(who) - w, "%s%u (%s)",
					      i ? ", " : "; the targets' children: ",
					      now->kid[i].pid, now->kid[i].comm);
	}
	obs_findings_add(out, "served_elsewhere", OBS_SEV_NOTE, "",
			 json_pack("{s:I, s:I, s:o, s:o}", "accepted", (json_int_t)accepted,
				   "foreign_sockets", (json_int_t)now->foreign_sockets,
				   "readers", readers, "children", kids),
			 "scope: the targets accepted %s connections in %.0f s but read no request "
			 "on them: other processes served them (%s sockets, clients' included, "
			 "were read first by processes that are not targets)%s; watch those with "
			 "--children or --pid",
			 obs_rule_num(accepted, a, sizeof(a)), now->t - since,
			 obs_rule_num(now->foreign_sockets, f, sizeof(f)), who);
}
