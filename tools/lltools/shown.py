# SPDX-License-Identifier: MIT
"""Text from arguments, files or servers made safe for one line of a terminal or a log. Pure.

The same form as the C programs' quoting: control characters as \\r, \\n, \\t or \\xNN; other
unprintable characters (C1 controls, bidi overrides, line separators) as \\uNNNN; a value longer
than the limit has its middle cut out and counted: "head...[N chars cut]...tail"."""

_NAMED = {"\r": "\\r", "\n": "\\n", "\t": "\\t"}
LIMIT = 200


def _esc(c):
	o = ord(c)
	if c in _NAMED:
		return _NAMED[c]
	if o < 0x20 or o == 0x7F:
		return f"\\x{o:02x}"
	if not c.isprintable() and c != " ":  # C1 controls, bidi overrides, line separators
		return f"\\u{o:04x}" if o <= 0xFFFF else f"\\U{o:08x}"
	return c


def escaped(s):
	"""Every control character of s shown escaped; nothing cut."""
	s = str(s)
	if s.isprintable():
		return s
	return "".join(_esc(c) for c in s)


def shown(s, limit=LIMIT):
	"""s escaped for one line, at most about limit characters: the middle of a longer value is
	cut out and counted."""
	s = str(s)
	e = escaped(s)
	if len(e) <= limit:
		return e
	budget = max(limit - 24, 16)
	head = budget * 2 // 5
	tail = budget - head
	# cut on the escaped text's characters, counted in the original's
	h, hlen = 0, 0
	while h < len(s) and hlen + len(_esc(s[h])) <= head:
		hlen += len(_esc(s[h]))
		h += 1
	t, tlen = len(s), 0
	while t > h and tlen + len(_esc(s[t - 1])) <= tail:
		tlen += len(_esc(s[t - 1]))
		t -= 1
	return escaped(s[:h]) + f"...[{t - h} chars cut]..." + escaped(s[t:])


def lines(text):
	"""Multi-line text for a terminal: each line escaped (escaped()), the line breaks kept."""
	return "\n".join(escaped(x) for x in str(text).split("\n"))
