/* SPDX-License-Identifier: MIT */
/*
 * What every unit test shares: cmocka's headers in the order it needs them, and main().
 *
 *   LL_TEST_MAIN(test_a, test_b, ...)             the tests as one group
 *   LL_TEST_MAIN_EACH(setup, teardown, test_a, ...) the same, each test between its own setup
 *                                                 and teardown (a fresh state per test)
 *   LL_TEST_MAIN_GROUP(setup, teardown, test_a, ...) the same, one setup and teardown around
 *                                                 the whole group
 *   LL_TEST_MAIN_TMPDIR(dir, test_a, ...)         the same, around the group the scratch folder
 *                                                 dir made and removed (ll_tmpdir_make's)
 *
 * Up to 16 tests per file. ll_text_open() / ll_text_close(), ll_text_of(): what a formatter
 * writes to a stream, as a string. ll_unhex(): captured bytes written as hex. ll_xorshift():
 * pseudo-random numbers, the same every run. ll_tmpdir_make() / ll_tmpdir_remove(): a group's
 * scratch folder. struct ll_test_opt, ll_help_*(), ll_options_check(): an option table against
 * --help and getopt.
 */
#ifndef LOADLENS_TEST_LL_TEST_H
#define LOADLENS_TEST_LL_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#define LL__NTH(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N, ...) \
	N
#define LL__COUNT(...) LL__NTH(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define LL__CAT(a, b) LL__CAT_(a, b)
#define LL__CAT_(a, b) a##b
/* LL__MAP(F, X, a, b, ...): F(X, a), F(X, b), ... */
#define LL__MAP(F, X, ...) LL__CAT(LL__MAP, LL__COUNT(__VA_ARGS__))(F, X, __VA_ARGS__)
#define LL__MAP1(F, X, a) F(X, a)
#define LL__MAP2(F, X, a, ...) F(X, a), LL__MAP1(F, X, __VA_ARGS__)
#define LL__MAP3(F, X, a, ...) F(X, a), LL__MAP2(F, X, __VA_ARGS__)
#define LL__MAP4(F, X, a, ...) F(X, a), LL__MAP3(F, X, __VA_ARGS__)
#define LL__MAP5(F, X, a, ...) F(X, a), LL__MAP4(F, X, __VA_ARGS__)
#define LL__MAP6(F, X, a, ...) F(X, a), LL__MAP5(F, X, __VA_ARGS__)
#define LL__MAP7(F, X, a, ...) F(X, a), LL__MAP6(F, X, __VA_ARGS__)
#define LL__MAP8(F, X, a, ...) F(X, a), LL__MAP7(F, X, __VA_ARGS__)
#define LL__MAP9(F, X, a, ...) F(X, a), LL__MAP8(F, X, __VA_ARGS__)
#define LL__MAP10(F, X, a, ...) F(X, a), LL__MAP9(F, X, __VA_ARGS__)
#define LL__MAP11(F, X, a, ...) F(X, a), LL__MAP10(F, X, __VA_ARGS__)
#define LL__MAP12(F, X, a, ...) F(X, a), LL__MAP11(F, X, __VA_ARGS__)
#define LL__MAP13(F, X, a, ...) F(X, a), LL__MAP12(F, X, __VA_ARGS__)
#define LL__MAP14(F, X, a, ...) F(X, a), LL__MAP13(F, X, __VA_ARGS__)
#define LL__MAP15(F, X, a, ...) F(X, a), LL__MAP14(F, X, __VA_ARGS__)
#define LL__MAP16(F, X, a, ...) F(X, a), LL__MAP15(F, X, __VA_ARGS__)

#define LL__UNIT(unused, t) cmocka_unit_test(t)
#define LL__UNIT_EACH(st, t) cmocka_unit_test_setup_teardown(t, LL__FIRST st, LL__SECOND st)
#define LL__FIRST(a, b) a
#define LL__SECOND(a, b) b

#define LL__MAIN(unit, x, group_setup, group_teardown, ...)                   \
	int main(void)                                                          \
	{                                                                       \
		const struct CMUnitTest tests[] = {LL__MAP(unit, x, __VA_ARGS__)};  \
                                                                                \
		return cmocka_run_group_tests(tests, group_setup, group_teardown);  \
	}
#define LL_TEST_MAIN(...) LL__MAIN(LL__UNIT, _, NULL, NULL, __VA_ARGS__)
#define LL_TEST_MAIN_EACH(setup, teardown, ...)                                \
	LL__MAIN(LL__UNIT_EACH, (setup, teardown), NULL, NULL, __VA_ARGS__)
#define LL_TEST_MAIN_GROUP(setup, teardown, ...)                               \
	LL__MAIN(LL__UNIT, _, setup, teardown, __VA_ARGS__)

/* --help's text, as both programs lay it out (an option's line: "  -c, --name ARG" or
 * "      --name ARG"): lines of text that begin with prefix and then a space or the line's end; and
 * the next option line at or after *line, its long name in name (0: none left). */
static inline int ll_help_lines(const char *text, const char *prefix)
{
	const char *line = text;
	size_t n = strlen(prefix);
	int count = 0;

	for (; *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : line + strlen(line))
		if (!strncmp(line, prefix, n) && (line[n] == ' ' || line[n] == '\n'))
			count++;
	return count;
}

static inline int ll_help_next_option(const char **line, char *name, size_t len)
{
	const char *l = *line, *nl;

	for (; l && *l; l = (nl = strchr(l, '\n')) ? nl + 1 : NULL) {
		const char *p = NULL;

		if (!strncmp(l, "      --", 8))
			p = l + 8;
		else if (l[0] == ' ' && l[1] == ' ' && l[2] == '-' && l[3] && l[4] == ',' &&
			 !strncmp(l + 5, " --", 3))
			p = l + 8;
		if (!p)
			continue;
		snprintf(name, len, "%.*s", (int)strcspn(p, " [\n"), p);
		nl = strchr(l, '\n');
		*line = nl ? nl + 1 : NULL;
		return 1;
	}
	*line = NULL;
	return 0;
}

/* An option table's row as --help shows it: metavar "" for an option that takes no value. */
struct ll_test_opt {
	const char *name;
	int short_name; /* its letter, or 0 */
	const char *metavar;
	int optional; /* its value may be left out: "--name[=METAVAR]" */
};

/* An option's synopsis as --help starts its line: "  -c, --name" or "      --name", then
 * " METAVAR", or "[=METAVAR]" where the value is optional. */
static inline void ll_help_synopsis(char *buf, size_t len, struct ll_test_opt o)
{
	int n = o.short_name ? snprintf(buf, len, "  -%c, --%s", o.short_name, o.name)
			     : snprintf(buf, len, "      --%s", o.name);

	if (o.metavar[0])
		snprintf(buf + n, len - (size_t)n, o.optional ? "[=%s]" : " %s", o.metavar);
}

/* --help's text against a table of n options (opt(i): row i): each option's synopsis on one line
 * of it, and each option line of it an option's that by_name() finds (>= 0). */
static inline void ll_help_check_options(const char *help, size_t n,
					 struct ll_test_opt (*opt)(size_t i),
					 int (*by_name)(const char *name))
{
	char syn[128], name[64];
	const char *line;
	size_t i;

	for (i = 0; i < n; i++) {
		ll_help_synopsis(syn, sizeof(syn), opt(i));
		if (ll_help_lines(help, syn) != 1)
			fail_msg("'%s' is on %d lines of --help, not 1", syn,
				 ll_help_lines(help, syn));
	}
	for (line = help; ll_help_next_option(&line, name, sizeof(name));)
		if (by_name(name) < 0)
			fail_msg("--help lists --%s, which is no option of options.def", name);
}

/* A table of n options (opt(i): row i) against getopt's short options (shorts, ":" first): each
 * name and each letter once, each letter in shorts, with ':' after it where it takes a value. */
static inline void ll_options_check(size_t n, struct ll_test_opt (*opt)(size_t i),
				    const char *shorts)
{
	const char *at;
	size_t i, j;

	for (i = 0; i < n; i++) {
		struct ll_test_opt o = opt(i);

		for (j = 0; j < i; j++) {
			if (!strcmp(o.name, opt(j).name))
				fail_msg("--%s twice in options.def", o.name);
			if (o.short_name && o.short_name == opt(j).short_name)
				fail_msg("-%c for --%s and --%s", o.short_name, opt(j).name,
					 o.name);
		}
		if (!o.short_name)
			continue;
		assert_true(o.short_name != ':' && o.short_name != '?' && o.short_name < 0x80);
		at = strchr(shorts + 1, o.short_name);
		assert_non_null(at);
		assert_int_equal(at[1] == ':', o.metavar[0] != '\0');
	}
}

/* A formatter's text: write to ll_text_open()'s stream, then ll_text_close() closes it and returns
 * what was written (free() it). */
struct ll_text {
	char *buf;
	size_t len;
	FILE *f;
};

static inline FILE *ll_text_open(struct ll_text *t)
{
	t->buf = NULL;
	t->len = 0;
	t->f = open_memstream(&t->buf, &t->len);
	assert_non_null(t->f);
	return t->f;
}

static inline char *ll_text_close(struct ll_text *t)
{
	assert_int_equal(fclose(t->f), 0);
	assert_non_null(t->buf);
	return t->buf;
}

/* What fn() writes to its stream, as a string (free() it). */
static inline char *ll_text_of(void (*fn)(FILE *f))
{
	struct ll_text t;

	fn(ll_text_open(&t));
	return ll_text_close(&t);
}

/* A test file's scratch folder: ll_tmpdir_make(dir) from a group setup (dir a "/tmp/NAME_XXXXXX"
 * array, made in place: 0, or -1), ll_tmpdir_remove(dir) from its teardown (the folder and all in
 * it; 0, or nonzero). */
static inline int ll_tmpdir_make(char *dir)
{
	return mkdtemp(dir) ? 0 : -1;
}

static inline int ll_tmpdir_remove(const char *dir)
{
	char cmd[300];

	if (snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir) >= (int)sizeof(cmd))
		return -1;
	return system(cmd);
}

/* LL_TEST_MAIN_TMPDIR(dir, ...): LL_TEST_MAIN_GROUP with a group setup that makes dir and a
 * teardown that removes it. */
#define LL_TEST_MAIN_TMPDIR(dir, ...)                                          \
	static int ll__tmpdir_setup(void **state)                               \
	{                                                                       \
		(void)state;                                                    \
		return ll_tmpdir_make(dir);                                     \
	}                                                                       \
	static int ll__tmpdir_teardown(void **state)                            \
	{                                                                       \
		(void)state;                                                    \
		return ll_tmpdir_remove(dir);                                   \
	}                                                                       \
	LL_TEST_MAIN_GROUP(ll__tmpdir_setup, ll__tmpdir_teardown, __VA_ARGS__)

/* The seed of the tests' pseudo-random numbers: the same sequence every run. */
#define LL_TEST_SEED 88172645463325252ULL

/* xorshift64: the next pseudo-random number from *x (LL_TEST_SEED to begin). */
static inline uint64_t ll_xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/* Hex text ("300c0201", spaces skipped) into out; returns the byte count. */
static inline size_t ll_unhex(const char *h, uint8_t *out)
{
	size_t n = 0;
	unsigned int v;

	while (*h) {
		if (*h == ' ') {
			h++;
			continue;
		}
		if (!h[1])
			break;
		assert_int_equal(sscanf(h, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
		h += 2;
	}
	return n;
}

#endif /* LOADLENS_TEST_LL_TEST_H */
