/* SPDX-License-Identifier: MIT */
/*
 * The application protocols (config/app.h) and the engines in their own folders (config/engine.h)
 * of this build, registered once before a command line is parsed: by main() and by the tests that
 * parse one of theirs or run one (apps.c).
 */
#ifndef LOADLENS_DRV_APPS_H
#define LOADLENS_DRV_APPS_H

/* Each protocol's table, in the order of their keys in the JSON; again is a no-op. */
void drv_apps_register(void);

#endif /* LOADLENS_DRV_APPS_H */
