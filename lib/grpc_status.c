// SPDX-License-Identifier: MIT
/* gRPC status codes, hints, grpc-status and grpc-timeout (grpc_status.h). */
#include <ctype.h>
#include <stdio.h>
#include <strings.h>
#include "loadlens/grpc_status.h"

static const struct {
	const char *name, *hint;
} codes[LL_GRPC_CODES + 1] = {
	{"OK", "the call succeeded"},
	{"CANCELLED", "the server saw the call cancelled (by the client or a proxy in between)"},
	{"UNKNOWN", "the server's handler failed without a status, or answered with no "
		    "grpc-status: check its log"},
	{"INVALID_ARGUMENT", "the server refused the request message: check --message against "
			     "the method's request type in the .proto"},
	{"DEADLINE_EXCEEDED", "the server ran out of the time sent in grpc-timeout (from "
			      "--timeout): the server is too slow, or --timeout too short"},
	{"NOT_FOUND", "the entity the request names does not exist (a key never Put?)"},
	{"ALREADY_EXISTS", "the entity the request would create exists already"},
	{"PERMISSION_DENIED", "the caller may not do this: check the credentials sent with -H"},
	{"RESOURCE_EXHAUSTED", "the server shed load (a quota, rate limit or full queue): it is "
			       "at its limit; lower --rate, -c or --streams to find its capacity"},
	{"FAILED_PRECONDITION", "the server's state does not allow the call now"},
	{"ABORTED", "the call was aborted, often a concurrency conflict: retried calls may pass"},
	{"OUT_OF_RANGE", "a value in the request is past a valid range"},
	{"UNIMPLEMENTED", "the server has no such method: check the /package.Service/Method path "
			  "and that the request is POST with content-type application/grpc"},
	{"INTERNAL", "the server broke an invariant (or a proxy mangled the call): check its log"},
	{"UNAVAILABLE", "the server is unavailable (overloaded, starting or shutting down): a "
			"retry may pass; check its health and its connection limits"},
	{"DATA_LOSS", "unrecoverable data loss or corruption, says the server"},
	{"UNAUTHENTICATED", "no valid credentials: add them with -H 'authorization: ...'"},
	{"other", "a status code past 16, which gRPC treats as UNKNOWN"},
};

const char *ll_grpc_status_name(unsigned code)
{
	return code <= LL_GRPC_OTHER ? codes[code].name : NULL;
}

const char *ll_grpc_status_key(unsigned code, char *buf, unsigned len)
{
	(void)buf;
	(void)len;
	return ll_grpc_status_name(code);
}

const char *ll_grpc_status_hint(unsigned code)
{
	return code <= LL_GRPC_OTHER ? codes[code].hint : "";
}

int ll_grpc_status_from_name(const char *s)
{
	unsigned v = 0;
	int i;

	if (!s || !*s)
		return -1;
	if (isdigit((unsigned char)*s)) {
		for (i = 0; s[i]; i++) {
			if (!isdigit((unsigned char)s[i]) || i > 2)
				return -1;
			v = v * 10 + (unsigned)(s[i] - '0');
		}
		return v < LL_GRPC_CODES ? (int)v : -1;
	}
	for (i = 0; i < LL_GRPC_CODES; i++)
		if (!strcasecmp(s, codes[i].name))
			return i;
	return -1;
}

int ll_grpc_status_parse(const uint8_t *v, size_t len)
{
	uint64_t n = 0;
	size_t i;

	if (!len || len > 10)
		return -1;
	for (i = 0; i < len; i++) {
		if (v[i] < '0' || v[i] > '9')
			return -1;
		n = n * 10 + (uint64_t)(v[i] - '0');
	}
	return n < LL_GRPC_CODES ? (int)n : LL_GRPC_OTHER;
}

size_t ll_grpc_timeout(uint64_t ns, char *buf, size_t len)
{
	static const struct {
		uint64_t ns;
		char unit;
	} units[] = {
		{1, 'n'}, {1000, 'u'}, {1000000, 'm'}, {1000000000ULL, 'S'},
		{60000000000ULL, 'M'}, {3600000000000ULL, 'H'},
	};
	uint64_t v = 0;
	size_t i;
	int n;

	if (!ns || !len)
		return 0;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		v = ns / units[i].ns + (ns % units[i].ns != 0); /* rounded up */
		if (v <= 99999999)
			break;
	}
	if (i == sizeof(units) / sizeof(units[0])) {
		i--;
		v = 99999999; /* 11,415 years: the longest a header says */
	}
	n = snprintf(buf, len, "%llu%c", (unsigned long long)v, units[i].unit);
	return n > 0 && (size_t)n < len ? (size_t)n : 0;
}
