/* SPDX-License-Identifier: MIT */
/* --help: the usage text (config_help.c). */
#ifndef LOADLENS_DRV_CONFIG_HELP_H
#define LOADLENS_DRV_CONFIG_HELP_H

#include <stdio.h>

void drv_config_usage(FILE *f);

#endif /* LOADLENS_DRV_CONFIG_HELP_H */
