// SPDX-License-Identifier: MIT
/* ghz's and h2load's spellings of our options, in one table (peer_flags.h). */
#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "loadlens/parse.h"
#include "config/option.h"
#include "config/peer_flags.h"

/* The values an entry stands for. */
enum shape {
	ANY,	 /* every value, or none: an option we do not have */
	NOARG,	 /* an option we do not have that takes no value (the next word is not shown) */
	NUMBER,	 /* digits only */
	SECONDS, /* a duration (a bare number is seconds) */
	JSON,	 /* an object or an array */
	PROTO,	 /* a name ending in .proto */
	FILE_,	 /* an existing regular file, not a duration and not JSON */
	WORD,	 /* not starting with a digit */
};

/* How the value is written into our spelling. */
enum xf {
	AS_IS,
	METHOD, /* ghz's package.Service.Method or package.Service/Method as our path */
	PATHS,	/* ghz's comma-separated folders: one --import-path each */
};

/*
 * First match wins. Left out on purpose, as ours take them with the same meaning: -c, -n, -t,
 * -H, --connections (ghz's and ours: connections), --duration, --insecure, --cacert.
 */
static const struct peer_flag {
	const char *flag;
	enum shape shape;
	const char *ours; /* our spelling; "%s" (once at most): the value, or metavar without one */
	const char *metavar;
	enum xf xf;
	const char *why; /* the peer's meaning, and ours where the spelling is ours too */
} peers[] = {
	{"--proto", PROTO, "--proto-file %s", "FILE", AS_IS,
	 "ghz's --proto is the service's .proto; --proto here is the wire protocol, "
	 "memcache-udp or ldap"},
	{"--call", ANY, "grpc://HOST:PORT%s", "/package.Service/Method", METHOD,
	 "ghz's --call names the method; here the target's path does"},
	{"-d", JSON, "--message", "", AS_IS,
	 "ghz's -d is the request message; -d here is the duration"},
	{"--data", JSON, "--message", "", AS_IS, "ghz's --data is the request message"},
	{"-d", FILE_, "--body-file %s", "FILE", AS_IS,
	 "h2load's -d is the request body's file; -d here is the duration"},
	{"--data", FILE_, "--body-file %s", "FILE", AS_IS,
	 "h2load's --data is the request body's file"},
	{"-D", SECONDS, "-d %s", "DURATION", AS_IS, "h2load's -D is the duration"},
	{"-D", ANY, "--message-file %s", "FILE", AS_IS, "ghz's -D is the message's file"},
	{"--data-file", ANY, "--message-file %s", "FILE", AS_IS,
	 "ghz's --data-file is the message's file"},
	{"-z", ANY, "-d %s", "DURATION", AS_IS, "ghz's -z is the duration"},
	{"-m", NUMBER, "--streams %s", "N", AS_IS,
	 "h2load's -m is streams in flight per connection; -m here is the HTTP method"},
	{"--max-concurrent-streams", ANY, "--streams %s", "N", AS_IS,
	 "h2load's --max-concurrent-streams is streams in flight per connection"},
	{"-m", JSON, "-H 'KEY: VALUE'", "", AS_IS,
	 "ghz's -m is metadata as JSON; -m here is the HTTP method, and grpc:// takes each "
	 "metadata entry as -H"},
	{"--metadata", ANY, "-H 'KEY: VALUE'", "", AS_IS,
	 "ghz's --metadata is metadata as JSON; grpc:// takes each entry as -H"},
	{"--concurrency", ANY, "-c CONNECTIONS --streams N", "", AS_IS,
	 "ghz's --concurrency is calls in flight over all its --connections; here each of -c's "
	 "connections keeps --streams calls in flight"},
	{"-i", ANY, "--import-path %s", "DIR", PATHS,
	 "ghz's -i is the .proto import path; one folder per --import-path here"},
	{"--import-paths", ANY, "--import-path %s", "DIR", PATHS,
	 "ghz's --import-paths; one folder per --import-path here"},
	{"-r", ANY, "--rate %s", "R", AS_IS,
	 "ghz's -r is calls per second; h2load's -r, connections per period, is --connect-rate "
	 "here"},
	{"--rps", ANY, "--rate %s", "R", AS_IS, "ghz's --rps is calls per second"},
	{"--total", ANY, "-n %s", "N", AS_IS, "ghz's --total is the number of calls"},
	{"-x", ANY, "--timeout %s", "D", AS_IS, "ghz's -x is the call's timeout"},
	{"--skipTLS", NOARG, "-k", "", AS_IS, "ghz's --skipTLS skips the certificate's checks"},
	{"-o", ANY, "--json %s", "FILE", AS_IS,
	 "ghz's -o is the output file; here the summary goes to stdout and --json FILE has "
	 "every count and histogram"},
	{"-O", ANY, "--json FILE", "", AS_IS, "ghz's -O picks the output's format"},
	{"--format", ANY, "--json FILE", "", AS_IS, "ghz's --format picks the output's format"},
	{"-p", WORD, "--http2", "", AS_IS,
	 "h2load's -p names the protocol; -p here is worker processes, and http:// is HTTP/1.1 "
	 "unless --http2"},
};

static int all_digits(const char *s)
{
	if (!*s)
		return 0;
	return s[strspn(s, "0123456789")] == '\0';
}

static int is_json(const char *s)
{
	s += strspn(s, " \t\r\n");
	return *s == '{' || *s == '[';
}

static int shape_of(enum shape sh, const char *v)
{
	uint64_t ns;
	struct stat st;
	size_t n;

	if (sh == ANY || sh == NOARG)
		return 1;
	if (!v)
		return 0;
	n = strlen(v);
	switch (sh) {
	case NUMBER:
		return all_digits(v);
	case SECONDS:
		return !ll_parse_duration(v, &ns);
	case JSON:
		return is_json(v);
	case PROTO:
		return n > 6 && !strcmp(v + n - 6, ".proto");
	case FILE_:
		return !is_json(v) && ll_parse_duration(v, &ns) && !stat(v, &st) &&
		       S_ISREG(st.st_mode);
	case WORD:
		return *v && (*v < '0' || *v > '9');
	default:
		return 0;
	}
}

/* ghz's method name as our target's path. */
static void method_path(const char *v, char *out, size_t len)
{
	const char *dot;

	v += *v == '/';
	if (strchr(v, '/') || !(dot = strrchr(v, '.'))) {
		snprintf(out, len, "/%s", v);
		return;
	}
	snprintf(out, len, "/%.*s/%s", (int)(dot - v), v, dot + 1);
}

/* a,b,c: "a --import-path b --import-path c" */
static void paths(const char *v, char *out, size_t len)
{
	size_t n = 0, k;

	out[0] = '\0';
	for (; n < len; v += k + (v[k] == ',')) {
		k = strcspn(v, ",");
		if (k)
			n += (size_t)snprintf(out + n, len - n, "%s%.*s",
					      n ? " --import-path " : "", (int)k, v);
		if (!v[k])
			break;
	}
}

int drv__config_peer(const char *flag, const char *value, char *err, size_t errlen)
{
	const struct peer_flag *p;
	char arg[512], ours[640];
	const char *at;
	size_t i;

	for (i = 0; i < sizeof(peers) / sizeof(peers[0]); i++) {
		p = &peers[i];
		if (strcmp(p->flag, flag) || !shape_of(p->shape, value))
			continue;
		if (!value)
			snprintf(arg, sizeof(arg), "%s", p->metavar);
		else if (p->xf == METHOD)
			method_path(value, arg, sizeof(arg));
		else if (p->xf == PATHS)
			paths(value, arg, sizeof(arg));
		else
			snprintf(arg, sizeof(arg), "%s", value);
		at = strstr(p->ours, "%s");
		if (at)
			snprintf(ours, sizeof(ours), "%.*s%s%s", (int)(at - p->ours), p->ours, arg,
				 at + 2);
		else
			snprintf(ours, sizeof(ours), "%s", p->ours);
		if (value && p->shape != NOARG)
			return drv__config_fail(err, errlen, "%s %s: did you mean %s? (%s)", flag,
						value, ours, p->why);
		return drv__config_fail(err, errlen, "%s: did you mean %s? (%s)", flag, ours,
					p->why);
	}
	return 0;
}

/* An option we do not have takes the rest of its word (-z3s, --call=X), or the next word if
 * that is no option. */
int drv__config_peer_opt(int c, const char *long_name, int argc, char **argv, char *err,
			  size_t errlen)
{
	const char *word = argv[optind - 1], *value = NULL, *eq;
	char flag[64];

	if (c == ':')
		return 0;
	if (c != '?') {
		if (long_name)
			snprintf(flag, sizeof(flag), "--%s", long_name);
		else
			snprintf(flag, sizeof(flag), "-%c", c);
		return drv__config_peer(flag, optarg, err, errlen);
	}
	if (optopt) {
		snprintf(flag, sizeof(flag), "-%c", optopt);
		/* getopt moves past a word at its last letter: -z3s is still argv[optind] */
		if (word[0] == '-' && word[strlen(word) - 1] == optopt)
			value = optind < argc && argv[optind][0] != '-' ? argv[optind] : NULL;
		else if (optind < argc && (eq = strchr(argv[optind] + 1, optopt)))
			value = eq + 1;
	} else {
		eq = strchr(word, '=');
		snprintf(flag, sizeof(flag), "%.*s", eq ? (int)(eq - word) : (int)strlen(word),
			 word);
		if (eq)
			value = eq + 1;
		else if (optind < argc && argv[optind][0] != '-')
			value = argv[optind];
	}
	return drv__config_peer(flag, value, err, errlen);
}
