// SPDX-License-Identifier: MIT
/* An option's value as JSON, from its descriptor (option_json.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "results/option_json.h"

json_t *drv_json_text(const char *s)
{
	json_t *j;
	char *buf, *p;

	if (!s)
		return json_null();
	j = json_string(s);
	if (j)
		return j;
	buf = malloc(strlen(s) * 4 + 1);
	if (!buf)
		return NULL;
	for (p = buf; *s; s++)
		p += (unsigned char)*s < 0x80 ? sprintf(p, "%c", *s)
					       : sprintf(p, "\\x%02x", (unsigned char)*s);
	j = json_string(buf);
	free(buf);
	return j;
}

static json_t *duration(uint64_t ns, enum drv_option_units u)
{
	return u == DRV_UNITS_PLAN ? json_real((double)ns / 1e9) : json_integer((json_int_t)ns);
}

json_t *drv_option_json(const struct drv_config *cfg, enum drv_opt id, enum drv_option_units u)
{
	const void *f = drv_option_field(cfg, id);
	uint64_t v;
	double r;

	if (!f)
		return NULL;

	switch (drv_options[id].kind) {
	case DRV_OPT_KIND_COUNT:
	case DRV_OPT_KIND_COUNT0:
		v = *(const uint64_t *)f;
		if (!v && drv_options[id].kind == DRV_OPT_KIND_COUNT0)
			return json_null();
		return json_integer((json_int_t)v);
	case DRV_OPT_KIND_DURATION:
	case DRV_OPT_KIND_DURATION0:
		v = *(const uint64_t *)f;
		if (!v && drv_options[id].kind == DRV_OPT_KIND_DURATION0)
			return json_null();
		return duration(v, u);
	case DRV_OPT_KIND_RATE:
		r = *(const double *)f;
		return r ? json_real(r) : json_null();
	case DRV_OPT_KIND_BOOL:
		return json_boolean(*(const bool *)f);
	case DRV_OPT_KIND_TEXT:
		return drv_json_text(*(const char *const *)f);
	case DRV_OPT_KIND_NONE:
		break;
	}
	return NULL;
}

int drv_option_set(json_t *o, const struct drv_config *cfg, enum drv_opt id,
		   enum drv_option_units u)
{
	const struct drv_option *d = &drv_options[id];

	return drv_json_set(o, u == DRV_UNITS_PLAN ? d->plan_key : d->json_key,
			    drv_option_json(cfg, id, u));
}
