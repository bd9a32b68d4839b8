// SPDX-License-Identifier: MIT
/* DNS's --requests-file records (dns_request.h): one question, its name as written (no template
 * fields), its type by name. */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "config/config.h"
#include "config/quote.h"
#include "config/reqmix.h"
#include "dns/dns_request.h"

static int qtype(const char *t)
{
	static const struct { const char *n; int v; } types[] = {
		{"A", 1}, {"NS", 2}, {"CNAME", 5}, {"SOA", 6}, {"PTR", 12}, {"MX", 15},
		{"TXT", 16}, {"AAAA", 28}, {"SRV", 33}, {"DS", 43}, {"DNSKEY", 48}, {"ANY", 255},
	};
	unsigned i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (!strcasecmp(t, types[i].n))
			return types[i].v;
	return -1;
}

int drv_dns_record(const struct drv_config *cfg, char *line, char **src, size_t *n, char *err,
		   size_t errlen)
{
	bool tcp = cfg->url.scheme == LL_SCHEME_TCP;
	char *p = line, *name, *type, *l, *dot;
	uint8_t *q;
	size_t o, ll;
	int qt;

	if (cfg->resp_rule != DRV_RESP_DNS)
		return 0;
	name = drv_reqmix_token(&p);
	type = drv_reqmix_token(&p);
	qt = type ? qtype(type) : -1;
	if (!name || qt < 0 || strlen(name) > 253 || strstr(name, "{{"))
		return drv_errf(err, errlen, "expected NAME TYPE (A, AAAA, MX, TXT, NS, ...)");
	q = malloc(2 + 12 + strlen(name) + 2 + 4);
	if (!q)
		return drv_errf(err, errlen, "out of memory");
	o = tcp ? 2 : 0;
	memcpy(q + o, "\0\0\x01\0\0\x01\0\0\0\0\0\0", 12);
	o += 12;
	for (l = name; *l; l = dot ? dot + 1 : l + ll) {
		dot = strchr(l, '.');
		ll = dot ? (size_t)(dot - l) : strlen(l);
		if (!ll && dot)
			break;
		if (ll > 63) {
			free(q);
			return drv_errf(err, errlen, "%s: a label over 63 bytes", name);
		}
		q[o++] = (uint8_t)ll;
		memcpy(q + o, l, ll);
		o += ll;
		if (!dot)
			break;
	}
	q[o++] = 0;
	q[o++] = (uint8_t)(qt >> 8);
	q[o++] = (uint8_t)qt;
	q[o++] = 0;
	q[o++] = 1;
	if (tcp) {
		q[0] = (uint8_t)((o - 2) >> 8);
		q[1] = (uint8_t)(o - 2);
	}
	/* parsed as a template next: the name holds no '{{' (refused above), and no length,
	 * header or type byte beside it makes one */
	*src = (char *)q;
	*n = o;
	return 1;
}
