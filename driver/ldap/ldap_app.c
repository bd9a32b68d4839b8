// SPDX-License-Identifier: MIT
/*
 * --proto ldap's table (ldap_app.h): its target, options and checks (ldap_config.c), its framing
 * (ldap_frame.c), its results (ldap_report.c) and its steps on the TCP slots (ldap_engine.c).
 */
#include "config/config.h"
#include "ldap/ldap_config.h"
#include "ldap/ldap_request.h"
#include "ldap/ldap_frame.h"
#include "ldap/ldap_app.h"
#include "ldap/ldap_engine.h"
#include "ldap/ldap_report.h"

static bool on(const struct drv_config *cfg)
{
	return cfg->ldap && cfg->ldap->on;
}

static bool tls(const struct drv_config *cfg)
{
	return cfg->ldap && cfg->ldap->tls;
}

const struct drv_app drv_ldap_app = {
	.name = "ldap",
	.proto = "ldap",
	.url = drv__config_ldap_url,
	.opt = drv__config_ldap_opt,
	.check = drv__config_ldap_check,
	.free = drv__config_ldap_free,
	.on = on,
	.tls = tls,
	.frame = &drv_ldap_frame,
	.report = &drv_ldap_report,
	.tcp = &drv_ldap_tcp,
};
