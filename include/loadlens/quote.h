/* SPDX-License-Identifier: MIT */
/* Text from outside (arguments, process names, server data) made safe for one line of a
 * terminal or a log: the one escaping function of loadlens's C programs. */
#ifndef LOADLENS_QUOTE_H
#define LOADLENS_QUOTE_H

#include <stddef.h>

/*
 * s for one terminal line, into buf (len >= 64): control characters (C0, DEL) as \r, \n, \t or
 * \xNN; a byte that starts no UTF-8 character as \xNN; the code points of loadlens/quote_table.h
 * (C1 controls, bidi overrides, zero-width characters, line separators) as \uNNNN or
 * \UNNNNNNNN; other UTF-8 text as it is. When that is longer than len - 1 bytes, its middle is
 * cut out and counted in characters (a byte that starts none counts as one):
 * "head...[N chars cut]...tail". tools/lltools/shown.py shows text the same way, from the same
 * table (tests/data/quote_vectors.json: the cases both pass). Returns buf.
 */
const char *ll_quote(const char *s, char *buf, size_t len);

/*
 * In place: every word of s (a run of bytes other than space) longer than max (>= 128) keeps its
 * first max / 2 and last max / 4 bytes (fewer, not to split a UTF-8 character) around
 * "...[N chars cut]...", so that a diagnostic naming a 100 KB argument stays short while the text
 * around it survives whole. Returns s.
 */
char *ll_cut_words(char *s, size_t max);

#endif /* LOADLENS_QUOTE_H */
