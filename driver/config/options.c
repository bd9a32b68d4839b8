// SPDX-License-Identifier: MIT
/* options.def's rows as descriptors (options.h), for the parser's lookups (loadlens/optab.h). */
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
		.arg = sizeof(mv) > 1 ? required_argument : no_argument,                     \
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

const struct ll_optab drv_optab = LL_OPTAB(drv_options, DRV_OPT__COUNT, DRV_OPT_VAL);

const void *drv_option_field(const struct drv_config *cfg, enum drv_opt id)
{
	if (drv_options[id].kind == DRV_OPT_KIND_NONE)
		return NULL;
	return (const char *)cfg + drv_options[id].field;
}
