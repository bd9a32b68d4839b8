# SPDX-License-Identifier: MIT
"""Text from arguments, files or servers made safe for one line of a terminal or a log. Pure.

The same form as the C programs' quoting (lib/quote.c), from the same table of code points
(include/loadlens/quote_table.h): control characters as \\r, \\n, \\t or \\xNN; a byte that was
not UTF-8 (decoded with errors="surrogateescape", as Python decodes arguments and file names) as
\\xNN; the table's code points (C1 controls, bidi overrides, zero-width characters, line
separators) as \\uNNNN or \\UNNNNNNNN. A value longer than the limit has its middle cut out and
counted: "head...[N chars cut]...tail" (tests/data/quote_vectors.json holds cases both pass).
"""
import os
import re

_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}
LIMIT = 200
_TABLE = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir,
		      "include", "loadlens", "quote_table.h")


def _ranges(path):
	with open(path, encoding="utf-8") as f:
		found = re.findall(r"^LL_QUOTE_ESC\((0x[0-9a-fA-F]+), (0x[0-9a-fA-F]+)\)", f.read(), re.M)
	if not found:
		raise ImportError(f"{path}: no LL_QUOTE_ESC lines")
	return tuple((int(lo, 16), int(hi, 16)) for lo, hi in found)


_ESCAPED = _ranges(_TABLE)


def _esc(c):
	o = ord(c)
	if c in _NAMED:
		return _NAMED[c]
	if o < 0x20 or o == 0x7F:
		return f"\\x{o:02x}"
	if 0xDC80 <= o <= 0xDCFF:  # a byte surrogateescape kept: the C programs' \xNN
		return f"\\x{o - 0xDC00:02x}"
	if o >= 0x80 and any(lo <= o <= hi for lo, hi in _ESCAPED):
		return f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}"
	return c


def escaped(s):
	"""Every control character of s shown escaped; nothing cut."""
	s = str(s)
	if s.isascii() and s.isprintable():
		return s
	return "".join(_esc(c) for c in s)


def _size(c):
	"""The bytes of c's shown form in UTF-8: what a limit counts, as the C programs' buffers do."""
	return len(_esc(c).encode("utf-8"))


def shown(s, limit=LIMIT):
	"""s escaped for one line, at most limit bytes of UTF-8 (at least 64): the middle of a longer
	value is cut out and counted in characters, as ll_quote() does with a buffer of limit + 1
	bytes."""
	s = str(s)
	e = escaped(s)
	if len(e.encode("utf-8")) <= limit:
		return e
	budget = max(limit - 32, 16)
	head = budget * 2 // 5
	tail = budget - head
	h, hlen = 0, 0
	while h < len(s) and hlen + _size(s[h]) <= head:
		hlen += _size(s[h])
		h += 1
	t, tlen = len(s), 0
	while t > h and tlen + _size(s[t - 1]) <= tail:
		tlen += _size(s[t - 1])
		t -= 1
	return escaped(s[:h]) + f"...[{t - h} chars cut]..." + escaped(s[t:])


def lines(text):
	"""Multi-line text for a terminal: each line escaped (escaped()), the line breaks kept."""
	return "\n".join(escaped(x) for x in str(text).split("\n"))
