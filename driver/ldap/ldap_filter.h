/* SPDX-License-Identifier: MIT */
/*
 * An LDAP search filter in its string form (RFC 4515) into its BER form (RFC 4511 4.5.1), written
 * with liblber's ber_printf() into a BerElement. libldap has the same parser, but only as a
 * private symbol (ldap_pvt_put_filter), so this small one does it: and, or, not, equality,
 * presence, substrings, >=, <=, ~=, extensible match, \HH escapes, a filter without its outer
 * parentheses, and RFC 4526's absolute true and false ("(&)", "(|)"). Pure.
 */
#ifndef LOADLENS_DRV_LDAP_FILTER_H
#define LOADLENS_DRV_LDAP_FILTER_H

#include <stddef.h>
#include <lber.h>

#define DRV_LDAP_FILTER_DEPTH 64 /* nested and/or/not, at most */

/*
 * Append the filter s[0..n) to ber. 0, or -EINVAL with one line in err (what is wrong and at
 * which byte), or -ENOMEM. On failure ber holds a partial element: free it.
 */
int drv_ldap_put_filter(BerElement *ber, const char *s, size_t n, char *err, size_t errlen);

#endif /* LOADLENS_DRV_LDAP_FILTER_H */
