// SPDX-License-Identifier: MIT
/* The names of a configuration's choices (for the report and the JSON). */
#include "config/config.h"

/* names[i], or "?" past the table or for a gap in it */
#define X_NAME(names, i)                                                                      \
	((unsigned)(i) < sizeof(names) / sizeof(names[0]) && names[i] ? names[i] : "?")

const char *drv_conn_model_name(enum drv_conn_model m)
{
	static const char *const names[] = {
		[DRV_CONN_KEEPALIVE] = "keep-alive",
		[DRV_CONN_NEW] = "new-conn",
		[DRV_CONN_RECONNECT] = "reconnect-every",
	};

	return X_NAME(names, m);
}

const char *drv_resp_rule_name(enum drv_resp_rule r)
{
	static const char *const names[] = {
		[DRV_RESP_LP4] = "refserver", [DRV_RESP_FIXED] = "fixed",
		[DRV_RESP_DELIM] = "delim",   [DRV_RESP_PREFIX] = "prefix",
		[DRV_RESP_HTTP] = "http",     [DRV_RESP_RESP] = "resp",
		[DRV_RESP_MEMCACHE] = "memcache", [DRV_RESP_DNS] = "dns",
		[DRV_RESP_LDAP] = "ldap",
	};

	return X_NAME(names, r);
}
