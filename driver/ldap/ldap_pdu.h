/* SPDX-License-Identifier: MIT */
/*
 * The inside of an LDAP reply (RFC 4511, 4.1 to 4.13): what liblber's framing does not check.
 * ber_get_next() takes a whole LDAPMessage by its outer length; these walk the protocolOp and the
 * controls behind it, element by element, each length within its parent's (a SearchResultEntry
 * whose objectName claims 200 bytes inside a 10-byte entry breaks here), each field the one
 * RFC 4511 puts there, and nothing left over. BER as LDAP allows it (RFC 4511, 5.1): definite
 * lengths only, primitive OCTET STRINGs, one-byte tags. Pure (no liblber):
 * tests/unit/test_driver_ldap_pdu.c.
 */
#ifndef LOADLENS_DRV_LDAP_PDU_H
#define LOADLENS_DRV_LDAP_PDU_H

#include <stddef.h>
#include <stdint.h>

/* The protocolOp tags of the replies the driver reads. */
#define DRV_LDAP_OP_BIND_RESP 0x61UL	 /* [APPLICATION 1] BindResponse */
#define DRV_LDAP_OP_ENTRY 0x64UL	 /* [APPLICATION 4] SearchResultEntry */
#define DRV_LDAP_OP_DONE 0x65UL		 /* [APPLICATION 5] SearchResultDone */
#define DRV_LDAP_OP_REFERENCE 0x73UL	 /* [APPLICATION 19] SearchResultReference */
#define DRV_LDAP_OP_EXTENDED_RESP 0x78UL /* [APPLICATION 24] ExtendedResponse */
#define DRV_LDAP_OP_INTERMEDIATE 0x79UL	 /* [APPLICATION 25] IntermediateResponse */
#define DRV_LDAP_CONTROLS 0xa0UL	 /* [0] Controls, after the protocolOp */

/*
 * The contents (n bytes at p, after the tag and length) of a reply's protocolOp of tag op, one of
 * those above. 0 when it holds; then for the ops that carry an LDAPResult (BindResponse,
 * SearchResultDone, ExtendedResponse), *code is its resultCode. -EBADMSG when it does not (a
 * length past its parent's end, a field missing, of another tag or left over, a negative or
 * empty resultCode), -EINVAL for another op.
 */
int drv_ldap_op_check(unsigned long op, const uint8_t *p, size_t n, int32_t *code);
/* The contents of a message's Controls ([0]): SEQUENCE OF Control. 0 or -EBADMSG. */
int drv_ldap_controls_check(const uint8_t *p, size_t n);

#endif /* LOADLENS_DRV_LDAP_PDU_H */
