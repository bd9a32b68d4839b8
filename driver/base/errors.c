// SPDX-License-Identifier: MIT
/* A failure's class, name and text (errors.h). */
#include <errno.h>
#include <string.h>
#include "base/errors.h"

enum drv_err drv_err_class(int err)
{
	switch (err) {
	case -EADDRNOTAVAIL:
	case -EADDRINUSE:
		return DRV_ERR_ADDRNOTAVAIL;
	case -EMFILE:
	case -ENFILE:
		return DRV_ERR_EMFILE;
	case -ECONNREFUSED:
		return DRV_ERR_CONNREFUSED;
	case -ECONNRESET:
	case -EPIPE:
		return DRV_ERR_CONNRESET;
	case -ETIMEDOUT:
		return DRV_ERR_TIMEDOUT;
	case DRV_E_SHORT:
	case DRV_E_MALFORMED:
		return DRV_ERR_SHORT;
	case DRV_E_LOST:
		return DRV_ERR_LOST;
	case DRV_E_HTTP_STATUS:
		return DRV_ERR_HTTP;
	case DRV_E_TLS:
		return DRV_ERR_TLS;
	case DRV_E_TOO_LARGE:
		return DRV_ERR_TOO_LARGE;
	case DRV_E_RESP:
		return DRV_ERR_RESP;
	case DRV_E_MC_CLIENT:
		return DRV_ERR_MC_CLIENT;
	case DRV_E_MC_SERVER:
		return DRV_ERR_MC_SERVER;
	case DRV_E_DNS_RCODE:
		return DRV_ERR_DNS_RCODE;
	case DRV_E_INCOMPLETE:
		return DRV_ERR_INCOMPLETE;
	case DRV_E_H2_RST:
		return DRV_ERR_H2_RST;
	case DRV_E_H2_GOAWAY:
		return DRV_ERR_H2_GOAWAY;
	case DRV_E_H2_PROTOCOL:
		return DRV_ERR_H2_PROTOCOL;
	case DRV_E_NOT_H2:
		return DRV_ERR_NOT_H2;
	case DRV_E_GRPC:
		return DRV_ERR_GRPC;
	case DRV_E_LDAP_RESULT:
		return DRV_ERR_LDAP_RESULT;
	case DRV_E_LDAP_BIND:
		return DRV_ERR_LDAP_BIND;
	case DRV_E_GRPC_FRAMING:
		return DRV_ERR_GRPC_FRAMING;
	case DRV_E_GRPC_COMPRESSED:
		return DRV_ERR_GRPC_COMPRESSED;
	case DRV_E_GRPC_MESSAGES:
		return DRV_ERR_GRPC_MESSAGES;
	case DRV_E_GRPC_CONTENT_TYPE:
		return DRV_ERR_GRPC_CONTENT_TYPE;
	case DRV_E_GRPC_TRAILERS:
		return DRV_ERR_GRPC_TRAILERS;
	case DRV_E_LDAP_MALFORMED:
		return DRV_ERR_LDAP_MALFORMED;
	default:
		return DRV_ERR_OTHER;
	}
}

const char *drv_err_name(enum drv_err e)
{
	static const char *const names[DRV_ERR__COUNT] = {
		[DRV_ERR_ADDRNOTAVAIL] = "EADDRNOTAVAIL",
		[DRV_ERR_EMFILE] = "EMFILE",
		[DRV_ERR_CONNREFUSED] = "ECONNREFUSED",
		[DRV_ERR_CONNRESET] = "ECONNRESET",
		[DRV_ERR_TIMEDOUT] = "ETIMEDOUT",
		[DRV_ERR_LOST] = "lost",
		[DRV_ERR_SHORT] = "short_response",
		[DRV_ERR_HTTP] = "http_status",
		[DRV_ERR_TLS] = "tls",
		[DRV_ERR_TOO_LARGE] = "too_large",
		[DRV_ERR_RESP] = "resp_error",
		[DRV_ERR_MC_CLIENT] = "memcache_client_error",
		[DRV_ERR_MC_SERVER] = "memcache_server_error",
		[DRV_ERR_DNS_RCODE] = "dns_rcode",
		[DRV_ERR_INCOMPLETE] = "incomplete",
		[DRV_ERR_H2_RST] = "h2_rst_stream",
		[DRV_ERR_H2_GOAWAY] = "h2_goaway_refused",
		[DRV_ERR_H2_PROTOCOL] = "h2_protocol",
		[DRV_ERR_NOT_H2] = "not_h2",
		[DRV_ERR_GRPC] = "grpc_status",
		[DRV_ERR_LDAP_RESULT] = "ldap_result",
		[DRV_ERR_LDAP_BIND] = "ldap_bind",
		[DRV_ERR_GRPC_FRAMING] = "grpc_framing",
		[DRV_ERR_GRPC_COMPRESSED] = "grpc_compressed",
		[DRV_ERR_GRPC_MESSAGES] = "grpc_messages",
		[DRV_ERR_GRPC_CONTENT_TYPE] = "grpc_content_type",
		[DRV_ERR_GRPC_TRAILERS] = "grpc_trailers",
		[DRV_ERR_LDAP_MALFORMED] = "ldap_malformed",
		[DRV_ERR_OTHER] = "other",
	};

	return (unsigned)e < DRV_ERR__COUNT ? names[e] : "?";
}

const char *drv_strerror(int err)
{
	/* by -10001 - code: our codes (base/errors.h) count down from DRV_E_SHORT */
	static const char *const text[] = {
		[-10001 - DRV_E_SHORT] = "connection closed before the response was complete",
		[-10001 - DRV_E_MALFORMED] = "response outside the expected framing",
		[-10001 - DRV_E_LOST] = "no reply within the timeout",
		[-10001 - DRV_E_HTTP_STATUS] = "HTTP status outside 2xx",
		[-10001 - DRV_E_TLS] = "TLS handshake or certificate verification failed",
		[-10001 - DRV_E_TOO_LARGE] = "response headers over the HTTP engine's limit",
		[-10001 - DRV_E_RESP] = "redis error reply",
		[-10001 - DRV_E_MC_CLIENT] = "memcached CLIENT_ERROR or ERROR",
		[-10001 - DRV_E_MC_SERVER] = "memcached SERVER_ERROR",
		[-10001 - DRV_E_DNS_RCODE] = "DNS reply with RCODE other than NOERROR",
		[-10001 - DRV_E_INCOMPLETE] = "a datagram of a multi-datagram reply never came",
		[-10001 - DRV_E_H2_RST] = "the server reset the HTTP/2 stream (RST_STREAM)",
		[-10001 - DRV_E_H2_GOAWAY] = "the server's GOAWAY refused the HTTP/2 stream",
		[-10001 - DRV_E_H2_PROTOCOL] = "malformed HTTP/2 frame or protocol violation",
		[-10001 - DRV_E_NOT_H2] = "the server does not speak HTTP/2",
		[-10001 - DRV_E_GRPC] = "gRPC status other than OK",
		[-10001 - DRV_E_LDAP_RESULT] = "LDAP search done with a resultCode other than success",
		[-10001 - DRV_E_LDAP_BIND] = "LDAP bind failed",
		[-10001 - DRV_E_GRPC_FRAMING] = "gRPC length prefix other than the bytes sent",
		[-10001 - DRV_E_GRPC_COMPRESSED] = "gRPC message compressed, no encoding agreed",
		[-10001 - DRV_E_GRPC_MESSAGES] = "unary gRPC reply without exactly one message",
		[-10001 - DRV_E_GRPC_CONTENT_TYPE] = "gRPC reply whose content-type is not gRPC's",
		[-10001 - DRV_E_GRPC_TRAILERS] = "gRPC reply without a numeric grpc-status trailer",
		[-10001 - DRV_E_LDAP_MALFORMED] = "LDAP message whose inner BER does not hold",
	};
	unsigned i = (unsigned)(-10001 - err);

	return i < sizeof(text) / sizeof(text[0]) ? text[i] : strerror(-err);
}
