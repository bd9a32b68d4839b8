/* SPDX-License-Identifier: MIT */
/*
 * The code points that text from outside shows escaped (\uNNNN, \UNNNNNNNN) beyond the C0 controls
 * and DEL (\xNN): the one table of the C programs' quoting (lib/quote.c) and of the Python tools'
 * (tools/lltools/shown.py reads these lines). Each is invisible, or moves the cursor or the text's
 * direction, so that it could hide or reorder what a line says. One LL_QUOTE_ESC(first, last)
 * per line, in order.
 */
LL_QUOTE_ESC(0x00080, 0x0009f) /* C1 controls */
LL_QUOTE_ESC(0x000ad, 0x000ad) /* soft hyphen */
LL_QUOTE_ESC(0x0061c, 0x0061c) /* Arabic letter mark */
LL_QUOTE_ESC(0x0180e, 0x0180e) /* Mongolian vowel separator */
LL_QUOTE_ESC(0x0200b, 0x0200f) /* zero-width space, non-joiner, joiner; LRM, RLM */
LL_QUOTE_ESC(0x02028, 0x0202e) /* line and paragraph separators; LRE, RLE, PDF, LRO, RLO */
LL_QUOTE_ESC(0x02060, 0x02064) /* word joiner, invisible operators */
LL_QUOTE_ESC(0x02066, 0x0206f) /* LRI, RLI, FSI, PDI; deprecated format characters */
LL_QUOTE_ESC(0x0d800, 0x0dfff) /* surrogates (Python's; in UTF-8 bytes they are invalid) */
LL_QUOTE_ESC(0x0feff, 0x0feff) /* zero-width no-break space (BOM) */
LL_QUOTE_ESC(0x0fff9, 0x0fffb) /* interlinear annotation */
LL_QUOTE_ESC(0xe0000, 0xe007f) /* tags */
