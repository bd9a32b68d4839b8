// SPDX-License-Identifier: MIT
/* libcurl's results in the driver's terms (see http_curl_codes.h). */
#include <errno.h>
#include <curl/curl.h>
#include "http/http_curl_codes.h"
#include "results/stats.h"

int drv_curl_error(CURL *easy, CURLcode rc)
{
	long os = 0, hdr = 0;

	if (curl_easy_getinfo(easy, CURLINFO_OS_ERRNO, &os) != CURLE_OK)
		os = 0;
	switch (rc) {
	case CURLE_OPERATION_TIMEDOUT:
		return -ETIMEDOUT;
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
		return DRV_E_SHORT;
	case CURLE_UNSUPPORTED_PROTOCOL: /* our URLs are http(s): this is "HTTP/0.9", status < 100 */
	case CURLE_WEIRD_SERVER_REPLY:
	case CURLE_HTTP2:
	case CURLE_HTTP2_STREAM:
		return DRV_E_MALFORMED;
	case CURLE_SSL_CONNECT_ERROR: /* a reset mid-handshake is a reset, not TLS's fault */
		return os ? -(int)os : DRV_E_TLS;
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CERTPROBLEM:
	case CURLE_SSL_CIPHER:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_ISSUER_ERROR:
	case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
	case CURLE_SSL_INVALIDCERTSTATUS:
		return DRV_E_TLS;
	case CURLE_COULDNT_CONNECT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
		return os ? -(int)os : -ECONNRESET;
	case CURLE_OUT_OF_MEMORY:
		/*
		 * curl gives this when a response header outgrows CURL_MAX_HTTP_HEADER (100 KB), after
		 * the status line was taken in: with header bytes counted, it is that, not malloc.
		 */
		if (curl_easy_getinfo(easy, CURLINFO_HEADER_SIZE, &hdr) == CURLE_OK && hdr > 0)
			return DRV_E_TOO_LARGE;
		return -ENOMEM;
	default:
		return os ? -(int)os : -EIO;
	}
}

int drv_curl_httpv(long v)
{
	switch (v) {
	case CURL_HTTP_VERSION_1_0:
		return DRV_HTTPV_1_0;
	case CURL_HTTP_VERSION_1_1:
		return DRV_HTTPV_1_1;
	case CURL_HTTP_VERSION_2_0:
		return DRV_HTTPV_2;
	case CURL_HTTP_VERSION_3:
		return DRV_HTTPV_3;
	default:
		return -1;
	}
}
