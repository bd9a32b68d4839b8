// SPDX-License-Identifier: MIT
/* The names of a configuration's choices (for the report and the JSON). */
#include "config/config.h"

const char *drv_conn_model_name(enum drv_conn_model m)
{
	switch (m) {
	case DRV_CONN_KEEPALIVE:
		return "keep-alive";
	case DRV_CONN_NEW:
		return "new-conn";
	case DRV_CONN_RECONNECT:
		return "reconnect-every";
	}
	return "?";
}

const char *drv_resp_rule_name(enum drv_resp_rule r)
{
	switch (r) {
	case DRV_RESP_LP4:
		return "refserver";
	case DRV_RESP_FIXED:
		return "fixed";
	case DRV_RESP_DELIM:
		return "delim";
	case DRV_RESP_PREFIX:
		return "prefix";
	case DRV_RESP_HTTP:
		return "http";
	case DRV_RESP_RESP:
		return "resp";
	case DRV_RESP_MEMCACHE:
		return "memcache";
	case DRV_RESP_DNS:
		return "dns";
	}
	return "?";
}
