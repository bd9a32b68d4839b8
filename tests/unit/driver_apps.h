/* SPDX-License-Identifier: MIT */
/* The driver's application protocols (ldap/, grpc/, redis/, memcache/, dns/) and engines (h2/,
 * udp/, http/) registered before any test runs, as the driver's main() registers them
 * (driver/apps.h): a test that parses their options or URLs, or frames their replies, includes
 * this. */
#ifndef LOADLENS_TEST_DRIVER_APPS_H
#define LOADLENS_TEST_DRIVER_APPS_H

#include "apps.h"

__attribute__((constructor)) static void ll__driver_apps(void)
{
	drv_apps_register();
}

#endif /* LOADLENS_TEST_DRIVER_APPS_H */
