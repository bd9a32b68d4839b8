// SPDX-License-Identifier: MIT
/* LDAP resultCodes: names (RFC 4511 4.1.9, RFC 3909, RFC 4528, RFC 4370) and hints. */
#include <stdio.h>
#include "ldap/ldap_codes.h"

static const char *const names[DRV_LDAP_CODES] = {
	[0] = "success",
	[1] = "operationsError",
	[2] = "protocolError",
	[3] = "timeLimitExceeded",
	[4] = "sizeLimitExceeded",
	[5] = "compareFalse",
	[6] = "compareTrue",
	[7] = "authMethodNotSupported",
	[8] = "strongerAuthRequired",
	[10] = "referral",
	[11] = "adminLimitExceeded",
	[12] = "unavailableCriticalExtension",
	[13] = "confidentialityRequired",
	[14] = "saslBindInProgress",
	[16] = "noSuchAttribute",
	[17] = "undefinedAttributeType",
	[18] = "inappropriateMatching",
	[19] = "constraintViolation",
	[20] = "attributeOrValueExists",
	[21] = "invalidAttributeSyntax",
	[32] = "noSuchObject",
	[33] = "aliasProblem",
	[34] = "invalidDNSyntax",
	[36] = "aliasDereferencingProblem",
	[48] = "inappropriateAuthentication",
	[49] = "invalidCredentials",
	[50] = "insufficientAccessRights",
	[51] = "busy",
	[52] = "unavailable",
	[53] = "unwillingToPerform",
	[54] = "loopDetect",
	[64] = "namingViolation",
	[65] = "objectClassViolation",
	[66] = "notAllowedOnNonLeaf",
	[67] = "notAllowedOnRDN",
	[68] = "entryAlreadyExists",
	[69] = "objectClassModsProhibited",
	[71] = "affectsMultipleDSAs",
	[80] = "other",
	[118] = "canceled",
	[119] = "noSuchOperation",
	[120] = "tooLate",
	[121] = "cannotCancel",
	[122] = "assertionFailed",
	[123] = "authorizationDenied",
	[DRV_LDAP_CODES - 1] = "code127+",
};

const char *drv_ldap_code_name(unsigned slot, char *buf, unsigned len)
{
	if (slot >= DRV_LDAP_CODES)
		slot = DRV_LDAP_CODES - 1;
	if (names[slot])
		return names[slot];
	snprintf(buf, len, "code%u", slot);
	return buf;
}

const char *drv_ldap_code_hint(unsigned slot)
{
	switch (slot) {
	case 3:
		return "the server's time limit (slapd: timelimit) ended searches: counted apart, "
		       "with the entries they returned";
	case 4:
		return "searches matched more entries than the server's size limit (slapd: "
		       "sizelimit, 500 by default; the driver asks for no limit): counted apart, "
		       "with the entries they returned; narrow --filter or raise the limit";
	case 11:
		return "an administrative limit (slapd: sizelimit unchecked=, a search without an "
		       "index) stopped searches; index the filter's attributes";
	case 32:
		return "--base names no entry in the directory";
	case 34:
		return "--base is not a valid DN";
	case 48:
	case 49:
		return "the bind was refused: check --bind-dn and the password file";
	case 50:
		return "the bound identity may not read there: check the server's ACLs";
	case 51:
		return "the server sheds load (slapd: its threads or connection limits)";
	case 52:
		return "the server is shutting down or its backend is not ready";
	case 53:
		return "the server refuses the operation (slapd: an unauthenticated bind, a "
		       "read-only or disallowed operation)";
	default:
		return NULL;
	}
}
