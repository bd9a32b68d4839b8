// SPDX-License-Identifier: MIT
/* How deep a .proto nests (proto_scan.h): one pass over its bytes, as libprotobuf's tokenizer
 * reads them (// and block comments, '...' and "..." with backslash escapes). */
#include "grpc/proto_scan.h"

unsigned drv_proto_depth(const char *s, size_t n, unsigned limit, unsigned *line)
{
	unsigned depth = 0, deepest = 0, ln = 1;
	size_t i;
	char q;

	for (i = 0; i < n; i++) {
		switch (s[i]) {
		case '\n':
			ln++;
			break;
		case '/':
			if (i + 1 < n && s[i + 1] == '/') {
				while (i + 1 < n && s[i + 1] != '\n')
					i++;
			} else if (i + 1 < n && s[i + 1] == '*') {
				for (i += 2; i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'); i++)
					ln += s[i] == '\n';
				i++; /* the '/' (unterminated: past the end) */
			}
			break;
		case '"':
		case '\'':
			/* a literal ends at its quote or, unterminated, at the line's end */
			for (q = s[i++]; i < n && s[i] != q && s[i] != '\n'; i++)
				i += s[i] == '\\' && i + 1 < n && s[i + 1] != '\n';
			if (i < n && s[i] == '\n')
				ln++;
			break;
		case '{':
		case '[':
		case '(':
		case '<':
			if (++depth > deepest)
				deepest = depth;
			if (depth > limit) {
				if (line)
					*line = ln;
				return depth;
			}
			break;
		case '}':
		case ']':
		case ')':
		case '>':
			depth -= depth > 0;
			break;
		default:
			break;
		}
	}
	return deepest;
}
