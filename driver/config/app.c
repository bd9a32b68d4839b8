// SPDX-License-Identifier: MIT
/* The registered application protocols (app.h): a short list filled once at the top. */
#include <errno.h>
#include <string.h>
#include "config/app.h"
#include "config/config.h"
#include "config/option.h"

static const void *apps[DRV_APPS_MAX];
static unsigned napps;

static const struct drv_app *app(unsigned i)
{
	return apps[i];
}

void drv__config_list_add(const void **list, unsigned *n, unsigned max, const void *x)
{
	unsigned i;

	for (i = 0; i < *n; i++)
		if (list[i] == x)
			return;
	if (*n < max)
		list[(*n)++] = x;
}

void drv_app_register(const struct drv_app *a)
{
	drv__config_list_add(apps, &napps, DRV_APPS_MAX, a);
}

const struct drv_app *drv_app_at(unsigned i)
{
	return i < napps ? app(i) : NULL;
}

const struct drv_app *drv_app_named(const char *name)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (!strcmp(app(i)->name, name))
			return app(i);
	return NULL;
}

const struct drv_app *drv_config_app(const struct drv_config *cfg)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (app(i)->on && app(i)->on(cfg))
			return app(i);
	return NULL;
}

bool drv_config_app_tls(const struct drv_config *cfg)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (app(i)->tls && app(i)->tls(cfg))
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
		r = app(i)->url ? app(i)->url(cfg, s, err, errlen) : 0;
		if (r)
			return r;
	}
	return 0;
}

int drv__config_app_check(struct drv_config *cfg, bool resp_given, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (app(i)->check && app(i)->check(cfg, resp_given, err, errlen))
			return -EINVAL;
	return 0;
}

int drv__config_app_check_late(struct drv_config *cfg, char *err, size_t errlen)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (app(i)->check_late && app(i)->check_late(cfg, err, errlen))
			return -EINVAL;
	return 0;
}

void drv__config_app_free(struct drv_config *cfg)
{
	unsigned i;

	for (i = 0; i < napps; i++)
		if (app(i)->free)
			app(i)->free(cfg);
}

int drv__config_app_record(const struct drv_config *cfg, char *line, char **src, size_t *n,
			   char *err, size_t errlen)
{
	unsigned i;
	int r;

	for (i = 0; i < napps; i++) {
		r = app(i)->record ? app(i)->record(cfg, line, src, n, err, errlen) : 0;
		if (r)
			return r;
	}
	return 0;
}
