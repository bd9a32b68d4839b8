// SPDX-License-Identifier: MIT
/* The registered application protocols (app.h): a short list filled once at the top. */
#include <errno.h>
#include <string.h>
#include "config/app.h"
#include "config/config.h"
#include "config/option.h"

static const struct drv_app *apps[DRV_APPS_MAX];
static unsigned napps;

void drv_app_register(const struct drv_app *a)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (apps[i] == a)
			return;
	if (napps < DRV_APPS_MAX)
		apps[napps++] = a;
}

const struct drv_app *drv_app_at(unsigned i)
{
	return i < napps ? apps[i] : NULL;
}

const struct drv_app *drv_app_named(const char *name)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (!strcmp(apps[i]->name, name))
			return apps[i];
	return NULL;
}

const struct drv_app *drv_config_app(const struct drv_config *cfg)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (apps[i]->on(cfg))
			return apps[i];
	return NULL;
}

bool drv_config_app_tls(const struct drv_config *cfg)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (apps[i]->tls && apps[i]->tls(cfg))
			return true;
	return false;
}

int drv__config_app_opt(struct drv_config *cfg, const char *app, const char *name, const char *v,
			char *err, size_t errlen)
{
	const struct drv_app *a = drv_app_named(app);

	if (!a)
		return drv__config_fail(err, errlen, "--%s: no protocol %s in this build", name, app);
	return a->opt(cfg, name, v, err, errlen);
}

int drv__config_app_url(struct drv_config *cfg, const char *s, char *err, size_t errlen)
{
	unsigned i;
	int r;

	for (i = 0; i < napps; i++) {
		r = apps[i]->url ? apps[i]->url(cfg, s, err, errlen) : 0;
		if (r)
			return r;
	}
	return 0;
}

int drv__config_app_check(struct drv_config *cfg, bool resp_given, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (apps[i]->check && apps[i]->check(cfg, resp_given, err, errlen))
			return -EINVAL;
	return 0;
}

int drv__config_app_check_late(struct drv_config *cfg, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (apps[i]->check_late && apps[i]->check_late(cfg, err, errlen))
			return -EINVAL;
	return 0;
}

void drv__config_app_free(struct drv_config *cfg)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (apps[i]->free)
			apps[i]->free(cfg);
}
