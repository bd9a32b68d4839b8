/* SPDX-License-Identifier: MIT */
/* libcurl's results in the driver's terms: error codes and HTTP versions (results/stats.h). */
#ifndef LOADLENS_DRV_HTTP_CURL_CODES_H
#define LOADLENS_DRV_HTTP_CURL_CODES_H

#include <curl/curl.h>

/* A finished transfer's result → a negative errno or a DRV_E_* code (never 0 for a failure). */
int drv_curl_error(CURL *easy, CURLcode rc);
/* CURLINFO_HTTP_VERSION → DRV_HTTPV_*, or -1 (no response). */
int drv_curl_httpv(long v);

#endif /* LOADLENS_DRV_HTTP_CURL_CODES_H */
