// SPDX-License-Identifier: MIT
/*
 * --response dns's table (dns_app.h): its framing over tcp:// and its datagrams over udp://
 * (dns_frame.c), its --requests-file queries (dns_request.c), its RCODE counts in the results
 * (dns_report.c). No options or target of its own: a run is DNS by its response rule.
 */
#include "dns/dns_app.h"
#include "dns/dns_frame.h"
#include "dns/dns_report.h"
#include "dns/dns_request.h"

const struct drv_app drv_dns_app = {
	.name = "dns",
	.record = drv_dns_record,
	.frame = &drv_dns_frame,
	.report = &drv_dns_report,
};
