// SPDX-License-Identifier: MIT
/* options.def's rows as descriptors (options.h), and the lookups the parser needs. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "config/options.h"

/* The field's offset, refused at compile time when its type is not the one KIND reads. */
#define TYPED(type, f) _Generic(((struct drv_config *)0)->f, type: offsetof(struct drv_config, f))
#define FIELD_NONE(f) 0
#define FIELD_COUNT(f) TYPED(uint64_t, f)
#define FIELD_COUNT0(f) TYPED(uint64_t, f)
#define FIELD_DURATION(f) TYPED(uint64_t, f)
#define FIELD_DURATION0(f) TYPED(uint64_t, f)
#define FIELD_RATE(f) TYPED(double, f)
#define FIELD_BOOL(f) TYPED(bool, f)
#define FIELD_TEXT(f) TYPED(const char *, f)

/* "" is no key; a duration's key names its unit */
#define KEY(k, unit) (sizeof(k) > 1 ? k unit : NULL)
#define PLAN_KEY_NONE(k) KEY(k, "")
#define PLAN_KEY_COUNT(k) KEY(k, "")
#define PLAN_KEY_COUNT0(k) KEY(k, "")
#define PLAN_KEY_DURATION(k) KEY(k, "_s")
#define PLAN_KEY_DURATION0(k) KEY(k, "_s")
#define PLAN_KEY_RATE(k) KEY(k, "")
#define PLAN_KEY_BOOL(k) KEY(k, "")
#define PLAN_KEY_TEXT(k) KEY(k, "")
#define JSON_KEY_NONE(k) NULL /* a result shows these by its own code and keys */
#define JSON_KEY_COUNT(k) KEY(k, "")
#define JSON_KEY_COUNT0(k) KEY(k, "")
#define JSON_KEY_DURATION(k) KEY(k, "_ns")
#define JSON_KEY_DURATION0(k) KEY(k, "_ns")
#define JSON_KEY_RATE(k) KEY(k, "")
#define JSON_KEY_BOOL(k) KEY(k, "")
#define JSON_KEY_TEXT(k) KEY(k, "")

const struct drv_option drv_options[DRV_OPT__COUNT] = {
#define DRV_OPTION(id, nm, sh, mv, sec, key, kd, f, mg, help)                                \
	[DRV_OPT_##id] = {                                                                   \
		.name = nm,                                                                  \
		.short_name = sh,                                                            \
		.metavar = mv,                                                               \
		.section = DRV_OPT_SECTION_##sec,                                            \
		.plan_key = PLAN_KEY_##kd(key),                                              \
		.json_key = JSON_KEY_##kd(key),                                              \
		.kind = DRV_OPT_KIND_##kd,                                                   \
		.field = FIELD_##kd(f),                                                      \
		.merge = DRV_OPT_MERGE_##mg,                                                 \
	},
#include "config/options.def"
};

int drv_option_of(int c)
{
	int i;

	if (c >= DRV_OPT_VAL && c < DRV_OPT_VAL + DRV_OPT__COUNT)
		return c - DRV_OPT_VAL;
	for (i = 0; c > 0 && i < DRV_OPT__COUNT; i++)
		if (drv_options[i].short_name == c)
			return i;
	return -1;
}

int drv_option_by_name(const char *name)
{
	int i;

	for (i = 0; name && i < DRV_OPT__COUNT; i++)
		if (!strcmp(drv_options[i].name, name))
			return i;
	return -1;
}

const char *drv_option_flag(enum drv_opt id, char *buf, size_t len)
{
	const struct drv_option *o = &drv_options[id];

	if (o->short_name)
		snprintf(buf, len, "-%c", o->short_name);
	else
		snprintf(buf, len, "--%s", o->name);
	return buf;
}

int drv_options_short(char *buf, size_t len)
{
	size_t n = 0;
	int i;

	if (len < 2)
		return -ENOSPC;
	buf[n++] = ':';
	for (i = 0; i < DRV_OPT__COUNT; i++) {
		if (!drv_options[i].short_name)
			continue;
		if (n + 3 > len)
			return -ENOSPC;
		buf[n++] = (char)drv_options[i].short_name;
		if (drv_option_takes_value(&drv_options[i]))
			buf[n++] = ':';
	}
	buf[n] = '\0';
	return 0;
}

const void *drv_option_field(const struct drv_config *cfg, enum drv_opt id)
{
	if (drv_options[id].kind == DRV_OPT_KIND_NONE)
		return NULL;
	return (const char *)cfg + drv_options[id].field;
}
