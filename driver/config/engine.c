// SPDX-License-Identifier: MIT
/* The registered engines in their own folders (engine.h): a short list filled once at the top. */
#include <errno.h>
#include <string.h>
#include "config/app.h"
#include "config/config.h"
#include "config/engine.h"
#include "config/option.h"

static const void *engines[DRV_ENGINES_MAX];
static unsigned nengines;

static const struct drv_engine *engine(unsigned i)
{
	return engines[i];
}

void drv_engine_register(const struct drv_engine *e)
{
	drv__config_list_add(engines, &nengines, DRV_ENGINES_MAX, e);
}

const struct drv_engine *drv_engine_at(unsigned i)
{
	return i < nengines ? engine(i) : NULL;
}

const struct drv_engine *drv_config_engine(const struct drv_config *cfg)
{
	const struct drv_engine *e;
	unsigned i = 0;

	while ((e = drv_engine_at(i++)) && !e->on(cfg))
		;
	return e;
}

int drv__config_engine_opt(struct drv_config *cfg, const char *group, const char *name,
			   const char *v, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < nengines; i++)
		if (!strcmp(engine(i)->name, group) && engine(i)->opt)
			return engine(i)->opt(cfg, name, v, err, errlen);
	return drv__config_fail(err, errlen, "--%s: no engine %s in this build", name, group);
}

int drv__config_engine_check(const struct drv_config *cfg, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < nengines; i++)
		if (engine(i)->check && engine(i)->check(cfg, err, errlen))
			return -EINVAL;
	return 0;
}

int drv__config_engine_check_last(struct drv_config *cfg, const struct drv__seen *seen,
				  char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < nengines; i++)
		if (engine(i)->check_last && engine(i)->check_last(cfg, seen, err, errlen))
			return -EINVAL;
	return 0;
}

int drv__config_engine_check_run(const struct drv_config *cfg, char *err, size_t errlen)
{
	const struct drv_engine *e = drv_config_engine(cfg);

	return e && e->check_run ? e->check_run(cfg, err, errlen) : 0;
}
