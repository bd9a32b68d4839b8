/* SPDX-License-Identifier: MIT */
/* Text from outside (arguments, process names, server data) made safe for one line of a
 * terminal or a log: the one escaping function of loadlens's C programs. */
#ifndef LOADLENS_QUOTE_H
#define LOADLENS_QUOTE_H

#include <stddef.h>

/*
 * s for one terminal line, into buf (len >= 64): control characters (C0, DEL) as \r, \n, \t or
 * \xNN, and when that is longer than len - 1 bytes, its middle cut out and counted:
 * "head...[N bytes cut]...tail". Bytes >= 0x80 pass (UTF-8 text stays readable). Returns buf.
 */
const char *ll_quote(const char *s, char *buf, size_t len);

/*
 * In place: every word of s (a run of bytes other than space) longer than max (>= 128) keeps its
 * first max / 2 and last max / 4 bytes around "...[N bytes cut]...", so that a diagnostic naming a
 * 100 KB argument stays short while the text around it survives whole. Returns s.
 */
char *ll_cut_words(char *s, size_t max);

#endif /* LOADLENS_QUOTE_H */
