// SPDX-License-Identifier: MIT
/*
 * The misbehaviour switches, as one table: options.c parses and documents them from it, report.c
 * writes them to JSON from it. To add one: a field in struct rs_misbehave, a parse and a to_json
 * function here (a count needs none: COUNT_SWITCH), a row in rs_switches[], the behaviour itself,
 * and a line in docs/refserver.md.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include "loadlens/parse.h"
#include "refserver.h"

static int parse_stall(struct rs_misbehave *mb, const char *val)
{
	char at[64];
	const char *dur = ll_parse_pair(val, at, sizeof(at));

	/* a stall holds the workers, SIGTERM's exit included: a minute at most */
	if (!dur || ll_parse_duration(at, &mb->stall_at_ns) || mb->stall_at_ns > 3600000000000ULL ||
	    ll_parse_duration(dur, &mb->stall_ns) || !mb->stall_ns ||
	    mb->stall_ns > 60000000000ULL)
		return -EINVAL;
	return 0;
}

static json_t *stall_json(const struct rs_misbehave *mb)
{
	if (!mb->stall_ns)
		return json_null();
	return json_pack("{s:I,s:I}", "at_ns", (json_int_t)mb->stall_at_ns, "duration_ns",
			 (json_int_t)mb->stall_ns);
}

static int parse_no_close(struct rs_misbehave *mb, const char *val)
{
	mb->no_close = true;
	return 0;
}

static json_t *no_close_json(const struct rs_misbehave *mb)
{
	return json_boolean(mb->no_close);
}

static int parse_grpc_status(struct rs_misbehave *mb, const char *val)
{
	return rs_grpc_status_every_parse(val, &mb->grpc_status_code, &mb->grpc_status_every);
}

static json_t *grpc_status_json(const struct rs_misbehave *mb)
{
	if (!mb->grpc_status_every)
		return json_null();
	return json_pack("{s:i,s:s,s:I}", "code", mb->grpc_status_code, "name",
			 rs_grpc_status_name(mb->grpc_status_code), "every",
			 (json_int_t)mb->grpc_status_every);
}

/* a switch named by its JSON key K: parsed by parse_K, written by K_json */
#define X_SWITCH(k, opt, argname, text)                                                 \
	.name = opt, .arg = argname, .help = text, .json_key = #k, .parse = parse_##k,   \
	.to_json = k##_json

/* a count K (struct rs_misbehave's uint64_t K) in lo..hi, its JSON key K */
#define COUNT_SWITCH(k, opt, lo, hi, text)                                                \
	.name = opt, .arg = "N", .help = text, .json_key = #k,                             \
	.count_off = offsetof(struct rs_misbehave, k), .min = lo, .max = hi

#define P(p) (1u << RS_PROTO_##p)
#define P_STREAM (P(TCP) | P(HTTP) | P(H2) | P(GRPC))
#define P_H2 (P(H2) | P(GRPC))
#define EVERY "an integer in 1..4294967295"

const struct rs_switch rs_switches[] = {
	{X_SWITCH(stall, "--stall", "AT:DUR",
		  "at AT after start (up to 1h), block every worker once for DUR (up to 1m; "
		  "e.g. 2s:1s)"),
	 .protos = P_STREAM | P(UDP)},
	{COUNT_SWITCH(drop_every, "--drop-every", 1, UINT32_MAX,
		  "udp: drop each worker's Nth, 2Nth, ... datagram without a reply"),
	 .protos = P(UDP)},
	{X_SWITCH(no_close, "--no-close", NULL,
		  "when the peer closes, never close our side (sockets stay in CLOSE_WAIT)"),
	 .protos = P_STREAM},
	{COUNT_SWITCH(leak_fds, "--leak-fds", 0, 1000000,
		  "for every accepted connection, open N more fds and never close them"),
	 .protos = P_STREAM},
	{COUNT_SWITCH(max_streams, "--max-streams", 1, INT32_MAX,
		  "h2, grpc: SETTINGS_MAX_CONCURRENT_STREAMS N (1..2^31-1) on every connection"),
	 .expect = "an integer in 1..2147483647", .protos = P_H2},
	{COUNT_SWITCH(rst_every, "--rst-every", 1, UINT32_MAX,
		  "h2, grpc: answer each worker's Nth, 2Nth, ... stream with RST_STREAM "
		  "INTERNAL_ERROR"),
	 .expect = EVERY, .protos = P_H2},
	{COUNT_SWITCH(goaway_after, "--goaway-after", 1, UINT32_MAX,
		  "h2, grpc: at a connection's Nth stream, GOAWAY NO_ERROR naming it last; answer "
		  "up to it, close"),
	 .expect = EVERY, .protos = P_H2},
	{COUNT_SWITCH(stall_every, "--stall-every", 1, UINT32_MAX,
		  "h2, grpc: never answer each worker's Nth, 2Nth, ... stream (open until the "
		  "connection closes)"),
	 .expect = EVERY, .protos = P_H2},
	{X_SWITCH(grpc_status, "--grpc-status", "CODE:N",
		  "grpc: answer each worker's Nth, 2Nth, ... call with grpc-status CODE (a number "
		  "or a name, e.g. RESOURCE_EXHAUSTED:10)"),
	 .expect = "CODE:N, CODE a number in 0..16 or a name such as RESOURCE_EXHAUSTED, "
		   "N " EVERY,
	 .protos = P(GRPC)},
};
const size_t rs_nswitches = sizeof(rs_switches) / sizeof(rs_switches[0]);

int rs_switch_parse(const struct rs_switch *s, struct rs_misbehave *mb, const char *val)
{
	uint64_t *n = (uint64_t *)((char *)mb + s->count_off);

	return s->parse ? s->parse(mb, val) : ll_parse_u64(val, s->min, s->max, n);
}

json_t *rs_switch_json(const struct rs_switch *s, const struct rs_misbehave *mb)
{
	const uint64_t *n = (const uint64_t *)((const char *)mb + s->count_off);

	return s->to_json ? s->to_json(mb) : json_integer((json_int_t)*n);
}

/* "tcp, http, h2 and grpc": the protocols of MASK, in BUF */
static const char *protos_text(unsigned mask, char *buf, size_t len)
{
	const char *names[RS_PROTO_GRPC + 1];
	size_t n = 0, i, off = 0;
	unsigned p;

	for (p = 0; p <= RS_PROTO_GRPC; p++)
		if (mask & (1u << p))
			names[n++] = rs_proto_name((enum rs_proto)p);
	buf[0] = '\0';
	for (i = 0; i < n && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s",
					i == 0 ? "" : i == n - 1 ? " and " : ", ", names[i]);
	return buf;
}

/* The switches given must fit the protocol; returns 0 or -EINVAL with a reason in why. */
int rs_misbehave_check(const struct rs_config *cfg, char *why, size_t len)
{
	struct rs_misbehave off = {0};
	char protos[64];
	json_t *a, *b;
	size_t i;
	int on;

	for (i = 0; i < rs_nswitches; i++) {
		const struct rs_switch *s = &rs_switches[i];

		a = rs_switch_json(s, &cfg->mb);
		b = rs_switch_json(s, &off);
		on = !json_equal(a, b);
		json_decref(a);
		json_decref(b);
		if (on && !(s->protos & (1u << cfg->proto))) {
			snprintf(why, len, "%s applies to --proto %s only", s->name,
				 protos_text(s->protos, protos, sizeof(protos)));
			return -EINVAL;
		}
	}
	return 0;
}

json_t *rs_misbehave_to_json(const struct rs_misbehave *mb)
{
	json_t *o = json_object();
	size_t i;

	if (!o)
		return NULL;
	for (i = 0; i < rs_nswitches; i++)
		json_object_set_new(o, rs_switches[i].json_key, rs_switch_json(&rs_switches[i], mb));
	return o;
}
