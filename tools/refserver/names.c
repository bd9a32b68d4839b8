// SPDX-License-Identifier: MIT
/* The values of --proto, --service-dist and --service-mode, by their enums: each parsed
 * (options.c) and named (the report, the switches' help) from its one table. */
#include <string.h>
#include "refserver.h"

const char *const rs_proto_names[] = {
	[RS_PROTO_TCP] = "tcp",
	[RS_PROTO_UDP] = "udp",
	[RS_PROTO_HTTP] = "http",
	[RS_PROTO_H2] = "h2",
	[RS_PROTO_GRPC] = "grpc",
	NULL,
};
const char *const rs_dist_names[] = {[RS_DIST_FIXED] = "fixed", [RS_DIST_EXP] = "exp", NULL};
const char *const rs_mode_names[] = {[RS_MODE_SPIN] = "spin", [RS_MODE_SLEEP] = "sleep", NULL};

int rs_name_index(const char *const *names, const char *val)
{
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(val, names[i]))
			return i;
	return -1;
}

/* NAMES[V] if V is in the NULL-ended NAMES, else its first */
static const char *name_of(const char *const *names, unsigned int v)
{
	unsigned int i;

	for (i = 0; names[i]; i++)
		if (i == v)
			return names[i];
	return names[0];
}

const char *rs_proto_name(enum rs_proto p)
{
	return name_of(rs_proto_names, p);
}

const char *rs_dist_name(enum rs_dist d)
{
	return name_of(rs_dist_names, d);
}

const char *rs_mode_name(enum rs_mode m)
{
	return name_of(rs_mode_names, m);
}
