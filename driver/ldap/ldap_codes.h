/* SPDX-License-Identifier: MIT */
/* LDAP resultCodes (RFC 4511 4.1.9 and its extensions): names for the report and the JSON, and a
 * hint for each code a load test meets (ldap_codes.c). */
#ifndef LOADLENS_DRV_LDAP_CODES_H
#define LOADLENS_DRV_LDAP_CODES_H

#include <stdint.h>

#define DRV_LDAP_CODES 128 /* codes 0..126 are counted one by one; 127: any other */

/* The slot a resultCode is counted in. */
static inline unsigned drv_ldap_code_slot(int64_t code)
{
	return code >= 0 && code < DRV_LDAP_CODES - 1 ? (unsigned)code : DRV_LDAP_CODES - 1;
}
/* "success", "sizeLimitExceeded", "busy", ...; "code17" for one without a name; slot 127:
 * "other". */
const char *drv_ldap_code_name(unsigned slot, char *buf, unsigned len);
/* What a code means for the load, or NULL where its name says it. */
const char *drv_ldap_code_hint(unsigned slot);

#endif /* LOADLENS_DRV_LDAP_CODES_H */
