// SPDX-License-Identifier: MIT
/* The driver's payload options: --payload/--body-file contents, --size, --response framing. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "loadlens/infile.h"
#include "config/option.h"
#include "config/config_payload.h"

/* Read a whole regular file (at most DRV_MAX_SIZE bytes) into a new buffer. */
int drv__config_slurp(const char *opt, const char *path, char **out, size_t *len, char *err,
		       size_t errlen)
{
	FILE *f = ll_input_open(path, DRV_MAX_SIZE);
	char *buf = NULL, *shrunk;
	size_t n;
	int r = 0;

	if (!f)
		return drv__config_fail(err, errlen, "%s %s: %s", opt, path,
					errno == EFBIG ? "larger than 16 MiB" : ll_input_strerror(errno));
	buf = malloc(DRV_MAX_SIZE + 1);
	if (!buf) {
		r = drv__config_fail(err, errlen, "%s %s: out of memory", opt, path);
		goto cleanup;
	}
	n = fread(buf, 1, DRV_MAX_SIZE + 1, f);
	if (ferror(f)) {
		r = drv__config_fail(err, errlen, "%s %s: read error", opt, path);
		goto cleanup;
	}
	if (n > DRV_MAX_SIZE) {
		r = drv__config_fail(err, errlen, "%s %s: larger than 16 MiB", opt, path);
		goto cleanup;
	}
	free(*out);
	*out = buf; /* the 16 MiB buffer is trimmed to size below */
	buf = NULL;
	shrunk = realloc(*out, n ? n : 1);
	if (shrunk)
		*out = shrunk;
	*len = n;
cleanup:
	free(buf);
	fclose(f);
	return r;
}

/* --size N or MIN-MAX */
int drv__config_size(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	const char *dash = strchr(s, '-');
	char lo[32];
	size_t n;
	int r;

	if (!dash) {
		r = drv__config_num("--size", s, 0, DRV_MAX_SIZE, &cfg->size, err, errlen);
		cfg->size_min = cfg->size;
		return r;
	}
	n = (size_t)(dash - s);
	if (!n || n >= sizeof(lo))
		return drv__config_fail(err, errlen, "--size %s: expected BYTES or MIN-MAX", s);
	memcpy(lo, s, n);
	lo[n] = '\0';
	r = drv__config_num("--size", lo, 0, DRV_MAX_SIZE, &cfg->size_min, err, errlen);
	if (!r)
		r = drv__config_num("--size", dash + 1, 0, DRV_MAX_SIZE, &cfg->size, err, errlen);
	if (!r && cfg->size_min > cfg->size)
		r = drv__config_fail(err, errlen, "--size %s: MIN is above MAX", s);
	return r;
}

/* Unescape \r \n \t \\ \xHH into out; returns the length or -1. */
static int unescape(const char *s, char *out, size_t cap)
{
	size_t n = 0;
	unsigned v;

	while (*s) {
		char ch = *s++;

		if (ch == '\\') {
			switch (*s) {
			case 'r':
				ch = '\r';
				break;
			case 'n':
				ch = '\n';
				break;
			case 't':
				ch = '\t';
				break;
			case '0':
				ch = '\0';
				break;
			case '\\':
				ch = '\\';
				break;
			case 'x':
				if (sscanf(s + 1, "%2x", &v) != 1 || !s[1] || !s[2])
					return -1;
				ch = (char)v;
				s += 2;
				break;
			default:
				return -1;
			}
			s++;
		}
		if (n >= cap)
			return -1;
		out[n++] = ch;
	}
	return (int)n;
}

/* --response fixed:N | delim:STR | prefix:N | resp | memcache | dns */
int drv__config_response(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	uint64_t v;
	int n;

	if (!strncmp(s, "fixed:", 6)) {
		cfg->resp_rule = DRV_RESP_FIXED;
		return drv__config_num("--response fixed", s + 6, 1, DRV_MAX_SIZE, &cfg->resp_fixed, err,
			      errlen);
	}
	if (!strncmp(s, "delim:", 6)) {
		n = unescape(s + 6, cfg->resp_delim, sizeof(cfg->resp_delim));
		if (n <= 0)
			return drv__config_fail(err, errlen,
				       "--response %s: delimiter must be 1..%d bytes; escapes \\r "
				       "\\n \\t \\0 \\\\ \\xHH",
				       s, DRV_MAX_DELIM);
		cfg->resp_rule = DRV_RESP_DELIM;
		cfg->resp_delim_len = (size_t)n;
		return 0;
	}
	if (!strncmp(s, "prefix:", 7)) {
		if (ll_parse_u64(s + 7, 1, 8, &v) || (v != 1 && v != 2 && v != 4 && v != 8))
			return drv__config_fail(err, errlen, "--response %s: prefix length is 1, 2, 4 or 8",
				       s);
		cfg->resp_rule = DRV_RESP_PREFIX;
		cfg->resp_prefix = (unsigned)v;
		return 0;
	}
	if (!strcmp(s, "resp") || !strcmp(s, "memcache") || !strcmp(s, "dns")) {
		cfg->resp_rule = s[0] == 'r' ? DRV_RESP_RESP : s[0] == 'm' ? DRV_RESP_MEMCACHE
									   : DRV_RESP_DNS;
		return 0;
	}
	return drv__config_fail(err, errlen,
				"--response %s: expected fixed:N, delim:STR, prefix:N, resp, memcache "
				"or dns", s);
}

/* --source-addr A[,B...]: numeric local addresses, same family as the target */
