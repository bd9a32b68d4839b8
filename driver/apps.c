// SPDX-License-Identifier: MIT
/* The application protocols and the engines in their own folders of this build (apps.h): only
 * here are they named, above the folders that call their hooks. */
#include "apps.h"
#include "config/app.h"
#include "config/engine.h"
#include "dns/dns_app.h"
#include "grpc/grpc_app.h"
#include "h2/h2_app.h"
#include "http/http_app.h"
#include "ldap/ldap_app.h"
#include "memcache/memcache_app.h"
#include "redis/redis_app.h"
#include "udp/udp_app.h"

void drv_apps_register(void)
{
	drv_engine_register(&drv_h2_engine); /* --http2, grpc[s]:// (h2/), its --streams */
	drv_engine_register(&drv_udp_engine); /* udp:// (udp/), its --id and --rcvbuf */
	drv_engine_register(&drv_curl_engine); /* https://, --http-engine curl: libcurl (http/) */
	drv_app_register(&drv_dns_app); /* --response dns (dns/): "dns_rcode" before "ldap" */
	drv_app_register(&drv_redis_app); /* --response resp (redis/) */
	drv_app_register(&drv_memcache_app); /* --response memcache, --proto memcache-udp */
	drv_app_register(&drv_ldap_app); /* --proto ldap, ldap[s]:// (ldap/) */
	drv_app_register(&drv_grpc_app); /* grpc[s]:// (grpc/) */
}
