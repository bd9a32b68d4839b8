// SPDX-License-Identifier: MIT
/* redis's --requests-file records (redis_request.h): each argument a template, its length in the
 * array its expanded one. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "config/config.h"
#include "config/quote.h"
#include "config/reqmix.h"
#include "redis/redis_request.h"

int drv_redis_record(const struct drv_config *cfg, char *line, char **src, size_t *n, char *err,
		     size_t errlen)
{
	char *args[256], *p = line;
	size_t len_all = 0, cap, o;
	long len[256];
	unsigned i, argc = 0;

	if (cfg->resp_rule != DRV_RESP_RESP || line[0] == '*')
		return 0; /* a line in RESP already is sent as written */
	while ((args[argc] = drv_reqmix_token(&p)) && argc < 255)
		argc++;
	if (!argc)
		return drv_errf(err, errlen, "an empty command");
	for (i = 0; i < argc; i++) {
		len[i] = drv_reqmix_tpl_len(args[i], strlen(args[i]), err, errlen);
		if (len[i] < 0)
			return -EINVAL;
		len_all += strlen(args[i]) + 32;
	}
	cap = len_all + 32;
	*src = malloc(cap);
	if (!*src)
		return drv_errf(err, errlen, "out of memory");
	o = (size_t)snprintf(*src, cap, "*%u\r\n", argc);
	for (i = 0; i < argc; i++)
		o += (size_t)snprintf(*src + o, cap - o, "$%ld\r\n%s\r\n", len[i], args[i]);
	*n = o;
	return 1;
}
