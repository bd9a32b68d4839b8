// SPDX-License-Identifier: MIT
/*
 * The inside of LDAP replies (ldap/ldap_pdu.c): slapd's captured replies hold, with their
 * resultCodes; each inner length or field a hostile server can get wrong does not; and the
 * controls behind an operation.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "ldap/ldap_pdu.h"

/* slapd's replies, captured (as in test_driver_ldap_frame.c): whole LDAPMessages */
#define DN1 "04257569643d75736572312c6f753d70656f706c652c64633d6578616d706c652c64633d636f6d"
static const char entry1[] = "303e0201026439" DN1 "3010300e0402636e31080406557365722031";
static const char done_ok[] = "300c02010265070a010004000400";
static const char no_such[] = "301d02010265180a0120041164633d6578616d706c652c64633d636f6d0400";
static const char bind_ok[] = "300c02010161070a010004000400";
static const char bad_pw[] = "300c02010161070a013104000400";
static const char notice[] = "3024020100781f0a013404000400"
			     "8a16312e332e362e312e342e312e313436362e3230303336";
static const char reference[] = "300f020102730a04086c6461703a2f2f78";

/* The protocolOp of a whole message (short-form lengths): its tag and contents. */
static void op_of(const char *hex, uint8_t *buf, unsigned long *op, const uint8_t **p, size_t *n)
{
	size_t len = ll_unhex(hex, buf);
	const uint8_t *q = buf + 2; /* SEQUENCE, length */

	assert_true(len > 7 && buf[0] == 0x30 && buf[1] == len - 2);
	q += 2 + q[1]; /* messageID */
	*op = q[0];
	*n = q[1];
	*p = q + 2;
	assert_true(*p + *n == buf + len);
}

/* The contents of op, given as hex: its verdict, and *code. */
static int check(unsigned long op, const char *hex, int32_t *code)
{
	uint8_t b[256];
	size_t n = ll_unhex(hex, b);

	*code = -1;
	return drv_ldap_op_check(op, b, n, code);
}

static void test_captured(void **state)
{
	static const struct {
		const char *msg;
		int32_t code;
		size_t whole_at; /* a cut that is a whole op all the same (0: none) */
	} t[] = {
		{entry1, -1, 0}, {done_ok, 0, 0}, {no_such, 32, 0}, {bind_ok, 0, 0},
		{bad_pw, 49, 0}, {notice, 52, 7}, /* (its responseName is OPTIONAL) */
		{reference, -1, 0},
	};
	unsigned long op;
	const uint8_t *p;
	uint8_t buf[256];
	int32_t code;
	size_t n, i, cut;

	(void)state;
	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		op_of(t[i].msg, buf, &op, &p, &n);
		code = -1;
		assert_int_equal(drv_ldap_op_check(op, p, n, &code), 0);
		assert_int_equal(code, t[i].code);
		/* any byte fewer: an element cut short, or a field missing */
		for (cut = 0; cut < n; cut++) {
			if (cut == t[i].whole_at)
				continue;
			if (drv_ldap_op_check(op, p, cut, &code) != -EBADMSG)
				fail_msg("%s cut to %zu bytes: taken", t[i].msg, cut);
		}
	}
	assert_int_equal(check(0x6b, "0a010004000400", &code), -EINVAL); /* ModifyResponse */
}

static void test_entry(void **state)
{
	int32_t code;

	(void)state;
	/* objectName claims 200 bytes inside a 10-byte entry */
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "0481c841424344454647", &code), -EBADMSG);
	/* the attributes' SEQUENCE longer than what is left; one attribute's SET longer than it */
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "040141" "3009" "300304016e", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "040141" "3009" "300704016e31090401", &code),
			 -EBADMSG);
	/* a value that is not an OCTET STRING; a type that is not one */
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "040141" "300a" "300804016e3103020100", &code),
			 -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "040141" "300a" "300802016e3103040176", &code),
			 -EBADMSG);
	/* no attributes at all; bytes after them; an attribute with an extra field */
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "040141", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "04014130000400", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "040141" "300a" "300804016e31000401ff", &code),
			 -EBADMSG);
	/* healthy: no attribute (attrs "1.1"); one with no value (typesOnly); long-form lengths */
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "0401413000", &code), 0);
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "040141" "3007" "300504016e3100", &code), 0);
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "048101413082000730050401" "6e3100", &code), 0);
	/* BER that LDAP does not allow: an indefinite length, a 5-byte length, a constructed
	 * OCTET STRING, a tag past 30 */
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "04014130800000", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "0401413085000000000000", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "2403040141" "3000", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_ENTRY, "1f0401413000", &code), -EBADMSG);
}

static void test_results(void **state)
{
	int32_t code;

	(void)state;
	/* referral: one URI or more */
	assert_int_equal(check(DRV_LDAP_OP_DONE, "0a010a04000400a30404026c78", &code), 0);
	assert_int_equal(code, 10);
	assert_int_equal(check(DRV_LDAP_OP_DONE, "0a010a04000400a300", &code), -EBADMSG);
	/* the diagnosticMessage missing; the matchedDN past the end; a byte left over */
	assert_int_equal(check(DRV_LDAP_OP_DONE, "0a01000400", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_DONE, "0a010004050400", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_DONE, "0a0100040004000400", &code), -EBADMSG);
	/* resultCode: empty, negative, 5 bytes, not ENUMERATED; 4 bytes is fine */
	assert_int_equal(check(DRV_LDAP_OP_DONE, "0a0004000400", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_DONE, "0a01ff04000400", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_DONE, "0a05000000000104000400", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_DONE, "02010004000400", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_DONE, "0a040000410e04000400", &code), 0);
	assert_int_equal(code, 16654);
	/* BindResponse's serverSaslCreds; not a SearchResultDone's */
	assert_int_equal(check(DRV_LDAP_OP_BIND_RESP, "0a0100040004008702abcd", &code), 0);
	assert_int_equal(check(DRV_LDAP_OP_DONE, "0a0100040004008702abcd", &code), -EBADMSG);
	/* ExtendedResponse: name and value, in that order */
	assert_int_equal(check(DRV_LDAP_OP_EXTENDED_RESP, "0a0134040004008a01318b0100", &code),
			 0);
	assert_int_equal(code, 52);
	assert_int_equal(check(DRV_LDAP_OP_EXTENDED_RESP, "0a0134040004008b01008a0131", &code),
			 -EBADMSG);
	/* SearchResultReference: one URI or more, nothing else */
	assert_int_equal(check(DRV_LDAP_OP_REFERENCE, "", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_REFERENCE, "040178020107", &code), -EBADMSG);
	assert_int_equal(check(DRV_LDAP_OP_REFERENCE, "0401780400", &code), 0);
	/* IntermediateResponse: both parts optional, [0] before [1] */
	assert_int_equal(check(DRV_LDAP_OP_INTERMEDIATE, "", &code), 0);
	assert_int_equal(check(DRV_LDAP_OP_INTERMEDIATE, "800131810100", &code), 0);
	assert_int_equal(check(DRV_LDAP_OP_INTERMEDIATE, "810100800131", &code), -EBADMSG);
}

static void test_controls(void **state)
{
	uint8_t b[64];
	size_t n;

	(void)state;
	/* a control with criticality and a value; one with its OID only; none */
	n = ll_unhex("300b0403312e320101ff040100" "30050403312e33", b);
	assert_int_equal(drv_ldap_controls_check(b, n), 0);
	assert_int_equal(drv_ldap_controls_check(b, 0), 0);
	/* no OID; a 2-byte BOOLEAN; a field after the value; a control cut short */
	n = ll_unhex("30030101ff", b);
	assert_int_equal(drv_ldap_controls_check(b, n), -EBADMSG);
	n = ll_unhex("30090403312e320102ffff", b);
	assert_int_equal(drv_ldap_controls_check(b, n), -EBADMSG);
	n = ll_unhex("300b0403312e32040100040101", b);
	assert_int_equal(drv_ldap_controls_check(b, n), -EBADMSG);
	n = ll_unhex("300b0403312e3201", b);
	assert_int_equal(drv_ldap_controls_check(b, n), -EBADMSG);
}

LL_TEST_MAIN(test_captured, test_entry, test_results, test_controls)
