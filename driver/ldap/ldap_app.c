// SPDX-License-Identifier: MIT
/*
 * --proto ldap's table (ldap_app.h): its target, options and checks (config_ldap.c), its framing
 * (frame_ldap.c), its results (report_ldap.c) and its steps on the TCP slots (proto_tcp_ldap.c).
 */
#include "config/config.h"
#include "config/config_ldap.h"
#include "config/ldap_request.h"
#include "framing/frame_ldap.h"
#include "ldap/ldap_app.h"
#include "protocols/proto_tcp_ldap.h"
#include "results/report_ldap.h"

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
