// SPDX-License-Identifier: MIT
/* ll_quote (lib/quote.c), the one escaping function of the C programs, and the diagnostics that
 * pass through it (lib/cli.c): control characters escaped, long values cut and counted. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>
#include "ll_test.h"
#include "loadlens/cli.h"
#include "loadlens/quote.h"

static void test_quote(void **state)
{
	static char big[100001];
	char b[512];
	const char *q;

	(void)state;
	assert_string_equal(ll_quote("tcp://h:1", b, sizeof(b)), "tcp://h:1");
	assert_string_equal(ll_quote("a\r\n\tb\x1b[2J\x7f", b, sizeof(b)),
			    "a\\r\\n\\tb\\x1b[2J\\x7f");
	assert_string_equal(ll_quote("\x1b[2J\x1b[31mPWN\x07", b, sizeof(b)),
			    "\\x1b[2J\\x1b[31mPWN\\x07");
	assert_string_equal(ll_quote("caf\xc3\xa9", b, sizeof(b)), "caf\xc3\xa9"); /* UTF-8 */
	memset(big, 'u', sizeof(big) - 1);
	big[0] = 'H';
	big[sizeof(big) - 2] = 'T';
	q = ll_quote(big, b, sizeof(b));
	assert_true(strlen(q) < sizeof(b));
	assert_int_equal(q[0], 'H');
	assert_int_equal(q[strlen(q) - 1], 'T');
	assert_non_null(strstr(q, " chars cut]..."));
	/* what is kept plus what is cut is the whole */
	{
		const char *m = strstr(q, "...["), *e = strstr(q, "]...");
		unsigned long cut = strtoul(m + 4, NULL, 10);

		assert_int_equal((size_t)(m - q) + cut + strlen(e + 4), sizeof(big) - 1);
	}
	/* a control character right at the cut is never split */
	memset(big, '\x01', 2000);
	big[2000] = '\0';
	q = ll_quote(big, b, sizeof(b));
	assert_true(strlen(q) < sizeof(b));
	assert_null(strchr(q, '\x01'));
}

/* A case's input bytes: "hex", or "parts" ([hex, times] joined), into buf; NUL-terminated. */
static void case_bytes(json_t *c, char *buf, size_t len)
{
	json_t *parts = json_object_get(c, "parts"), *p;
	const char *hex;
	size_t i, w = 0, k;
	long times, t;
	unsigned int b;

	if (!parts) {
		parts = json_pack("[[s, i]]", json_string_value(json_object_get(c, "hex")), 1);
		assert_non_null(parts);
	} else {
		json_incref(parts);
	}
	json_array_foreach(parts, i, p) {
		hex = json_string_value(json_array_get(p, 0));
		times = (long)json_integer_value(json_array_get(p, 1));
		assert_non_null(hex);
		for (t = 0; t < times; t++)
			for (k = 0; hex[k] && hex[k + 1]; k += 2) {
				assert_int_equal(sscanf(hex + k, "%2x", &b), 1);
				assert_true(w + 1 < len);
				buf[w++] = (char)b;
			}
	}
	buf[w] = '\0';
	json_decref(parts);
}

/* The cases tools/lltools/shown.py passes too: one form of quoting, one table */
static void test_vectors(void **state)
{
	json_error_t err;
	json_t *root = json_load_file(LL_TEST_DATA "/quote_vectors.json", 0, &err), *c;
	static char in[4096], out[4096];
	size_t i, limit;

	(void)state;
	if (!root)
		fail_msg("%s: %s", LL_TEST_DATA "/quote_vectors.json", err.text);
	assert_true(json_array_size(json_object_get(root, "cases")) >= 10);
	json_array_foreach(json_object_get(root, "cases"), i, c) {
		case_bytes(c, in, sizeof(in));
		limit = json_object_get(c, "limit") ? (size_t)json_integer_value(
				json_object_get(c, "limit")) : sizeof(out) - 1;
		ll_quote(in, out, limit + 1);
		if (strcmp(out, json_string_value(json_object_get(c, "shown"))))
			fail_msg("case %zu: got '%s', want '%s'", i, out,
				 json_string_value(json_object_get(c, "shown")));
	}
	json_decref(root);
}

/* What ll_warn printed to stderr, read back. */
static char *warned(const char *arg)
{
	static char got[4 * LL_SAY_MAX];
	FILE *f = tmpfile();
	int saved = dup(2);
	size_t n;

	assert_non_null(f);
	fflush(stderr);
	dup2(fileno(f), 2);
	ll_warn("prog", "invalid --port '%s' (expected 1-65535)", arg);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	rewind(f);
	n = fread(got, 1, sizeof(got) - 1, f);
	got[n] = '\0';
	fclose(f);
	return got;
}

static void test_diagnostics_escaped(void **state)
{
	static char big[100001];
	char *got;

	(void)state;
	got = warned("8\x1b[31m0");
	assert_string_equal(got, "prog: invalid --port '8\\x1b[31m0' (expected 1-65535)\n");
	got = warned("a\nb");
	assert_string_equal(got, "prog: invalid --port 'a\\nb' (expected 1-65535)\n");
	/* a 100 KB argument: one line of at most LL_SAY_MAX, its end (what was expected) kept */
	memset(big, 'x', sizeof(big) - 1);
	got = warned(big);
	assert_true(strlen(got) <= LL_SAY_WORD_MAX + strlen("prog: invalid --port  (expected 1-65535)\n"));
	assert_non_null(strstr(got, " chars cut]..."));
	assert_non_null(strstr(got, "' (expected 1-65535)\n"));
	assert_ptr_equal(strchr(got, '\n'), got + strlen(got) - 1);
}

/* ll_cut_words: long words cut in their middle, short ones and the spaces around them kept */
static void test_cut_words(void **state)
{
	static char big[100100];
	char s[64] = "a bb  ccc";
	const char *m;
	size_t cut;

	(void)state;
	assert_string_equal(ll_cut_words(s, 128), "a bb  ccc");
	memset(big, 'x', sizeof(big) - 1);
	memcpy(big, "to '", 4);
	big[4] = 'H';
	big[100000] = 'T';
	memcpy(big + 100001, "' end", 6);
	ll_cut_words(big, 128);
	assert_int_equal(strncmp(big, "to 'H", 5), 0);
	assert_non_null(strstr(big, "T' end"));
	m = strstr(big, "...[");
	assert_non_null(m);
	cut = strtoul(m + 4, NULL, 10);
	/* the word is 'H...T', bytes 3 to 100001: 64 + 32 of them kept */
	assert_int_equal(cut, 100002 - 3 - 64 - 32);
	assert_true(strlen(big) < 200);
}

LL_TEST_MAIN(test_quote, test_vectors, test_diagnostics_escaped, test_cut_words)
