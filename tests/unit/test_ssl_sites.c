// SPDX-License-Identifier: MIT
/*
 * Where the TLS uprobes go in a libssl (observer/kernel/ssl_sites.c), on the first bytes of
 * Debian 12's OpenSSL 3.0 (libssl.so.3: SSL_read at 0x35470, SSL_read_ex at 0x35500, both
 * calling ssl_read_internal at 0x352d0, which begins with pushes), a build with endbr64 at each
 * entry, wrappers that call different functions, an inner function that would be stepped too,
 * and files that are not a libssl; and the summary's line of what the probes cost a run
 * (observer/output/tls_calls.c).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include "ll_test.h"
#include "kernel/ssl_sites.h"
#include "output/tls_calls.h"

/* Debian 12's bytes, zero-padded to OBS_SSL_SCAN */
static const uint8_t SSL_READ[OBS_SSL_SCAN] = {
	0x48, 0x83, 0xec, 0x18, 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28, 0x00, 0x00, 0x00, 0x48,
	0x89, 0x44, 0x24, 0x08, 0x31, 0xc0, 0x85, 0xd2, 0x78, 0x2f, 0x48, 0x89, 0xe1, 0x48,
	0x63, 0xd2, 0xe8, 0x3d, 0xfe, 0xff, 0xff, 0x85, 0xc0, 0x7e, 0x03, 0x8b};
static const uint8_t SSL_READ_EX[OBS_SSL_SCAN] = {
	0x48, 0x83, 0xec, 0x08, 0xe8, 0xc7, 0xfd, 0xff, 0xff, 0x31, 0xd2, 0x85, 0xc0, 0x0f,
	0x48, 0xc2, 0x48, 0x83, 0xc4, 0x08, 0x31, 0xd2, 0x31, 0xc9, 0x31, 0xf6, 0x31, 0xff,
	0xc3, 0x0f, 0x1f, 0x00, 0x8b, 0x87, 0x30, 0x0b, 0x00, 0x00, 0x31, 0xff};
static const uint8_t READ_INTERNAL[16] = {0x41, 0x55, 0x41, 0x54, 0x55, 0x53, 0x48, 0x83,
					  0xec, 0x38, 0x64, 0x48, 0x8b, 0x04, 0x25, 0x28};
#define VA_READ 0x35470
#define VA_READ_EX 0x35500
#define VA_INTERNAL 0x352d0

static void test_emulated(void **state)
{
	static const uint8_t push_rbx[] = {0x53}, push_r13[] = {0x41, 0x55}, call[] = {0xe8, 0, 0, 0, 0},
			     sub_rsp[] = {0x48, 0x83, 0xec, 0x18}, mov_rex_r8[] = {0x41, 0x89, 0xc0},
			     endbr64[] = {0xf3, 0x0f, 0x1e, 0xfa, 0x41, 0x57, 0x41, 0x56};

	(void)state;
	assert_true(obs_x86_emulated(push_rbx, sizeof(push_rbx)));
	assert_true(obs_x86_emulated(push_r13, sizeof(push_r13)));
	assert_true(obs_x86_emulated(call, sizeof(call)));
	assert_false(obs_x86_emulated(sub_rsp, sizeof(sub_rsp)));
	assert_false(obs_x86_emulated(mov_rex_r8, sizeof(mov_rex_r8)));
	assert_false(obs_x86_emulated(push_r13, 1)); /* cut: a REX prefix alone */
	assert_false(obs_x86_emulated(endbr64, sizeof(endbr64)));
	assert_false(obs_x86_emulated(push_rbx, 0));
	/* past endbr64: push %r15 */
	assert_int_equal(obs_x86_entry_skip(endbr64, sizeof(endbr64)), 4);
	assert_true(obs_x86_emulated(endbr64 + 4, sizeof(endbr64) - 4));
	assert_int_equal(obs_x86_entry_skip(endbr64, 4), 0); /* nothing after it read */
	assert_int_equal(obs_x86_entry_skip(sub_rsp, sizeof(sub_rsp)), 0);
}

/* Debian's SSL_read and SSL_read_ex: the inner function, one probe at its first push. */
static void test_debian_pair(void **state)
{
	struct obs_ssl_site a = {0}, b = {0};

	(void)state;
	assert_int_equal(obs_x86_common_call(SSL_READ, sizeof(SSL_READ), VA_READ, SSL_READ_EX,
					     sizeof(SSL_READ_EX), VA_READ_EX),
			 VA_INTERNAL);
	/* either order */
	assert_int_equal(obs_x86_common_call(SSL_READ_EX, sizeof(SSL_READ_EX), VA_READ_EX,
					     SSL_READ, sizeof(SSL_READ), VA_READ),
			 VA_INTERNAL);
	obs_ssl_pair_plan(&a, &b, SSL_READ, SSL_READ_EX, READ_INTERNAL, sizeof(READ_INTERNAL));
	assert_true(a.inner && a.emulated && !a.skip);
	assert_true(b.skip && !b.inner);
}

/* The same wrappers elsewhere in the file: a call rel32 is relative, so the target moves with
 * them; the same bytes at addresses 0x1000 apart call different functions: none in common. */
static void test_no_common(void **state)
{
	struct obs_ssl_site a = {0}, b = {0};

	(void)state;
	assert_int_equal(obs_x86_common_call(SSL_READ, sizeof(SSL_READ), VA_READ + 0x1000,
					     SSL_READ_EX, sizeof(SSL_READ_EX), VA_READ_EX + 0x1000),
			 VA_INTERNAL + 0x1000);
	assert_int_equal(obs_x86_common_call(SSL_READ, sizeof(SSL_READ), VA_READ + 0x1000,
					     SSL_READ_EX, sizeof(SSL_READ_EX), VA_READ_EX),
			 0);
	/* no inner: each at its entry, "sub $N,%rsp": stepped */
	obs_ssl_pair_plan(&a, &b, SSL_READ, SSL_READ_EX, NULL, 0);
	assert_false(a.inner || a.emulated || a.skip);
	assert_false(b.inner || b.emulated || b.skip);
	/* a scan shorter than the call's offset in SSL_read finds nothing */
	assert_int_equal(obs_x86_common_call(SSL_READ, 0x1e, VA_READ, SSL_READ_EX,
					     sizeof(SSL_READ_EX), VA_READ_EX),
			 0);
}

/* An inner function that begins with a stepped instruction: the wrappers' entries instead; with
 * endbr64 before a push there, each wrapper is probed past it, emulated. */
static void test_inner_stepped(void **state)
{
	static const uint8_t inner_sub[16] = {0x48, 0x83, 0xec, 0x38};
	uint8_t a_cet[OBS_SSL_SCAN] = {0xf3, 0x0f, 0x1e, 0xfa, 0x41, 0x57},
		b_cet[OBS_SSL_SCAN] = {0xf3, 0x0f, 0x1e, 0xfa, 0x55};
	struct obs_ssl_site a = {0}, b = {0};

	(void)state;
	obs_ssl_pair_plan(&a, &b, SSL_READ, SSL_READ_EX, inner_sub, sizeof(inner_sub));
	assert_false(a.inner || a.emulated || b.skip || b.emulated);
	obs_ssl_pair_plan(&a, &b, a_cet, b_cet, inner_sub, sizeof(inner_sub));
	assert_true(a.emulated && b.emulated);
	assert_false(a.inner || b.skip);
}

/* The words the summary and --check use. */
static void test_text(void **state)
{
	char t[256];

	(void)state;
	obs_ssl_sites_text(3, 0, 2, t, sizeof(t));
	assert_string_equal(t, "3 probes at instructions the kernel emulates, SSL_read/_ex and "
			       "SSL_write/_ex at their inner functions; 0 stepped out of line: a "
			       "second trap a call");
	obs_ssl_sites_text(1, 4, 0, t, sizeof(t));
	assert_string_equal(t, "1 probe at instructions the kernel emulates; 4 stepped out of line: "
			       "a second trap a call");
}

/* Files that hold no libssl: not there, not ELF, an ELF without the functions (this test). */
static void test_files(void **state)
{
	struct obs_ssl_sites s;
	char self[4096];
	ssize_t n;
	size_t i;

	(void)state;
#if !defined(__x86_64__)
	assert_int_equal(obs_ssl_sites_find("/nonexistent/libssl.so.3", false, &s), 0); /* by name */
	return;
#endif
	assert_int_equal(obs_ssl_sites_find("/nonexistent/libssl.so.3", false, &s), -ENOENT);
	assert_int_equal(obs_ssl_sites_find("/proc/self/status", false, &s), -ENOEXEC);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	assert_true(n > 0);
	self[n] = '\0';
	assert_int_equal(obs_ssl_sites_find(self, false, &s), 0);
	for (i = 0; i < OBS_SSL_FNS; i++)
		assert_int_equal(s.fn[i].offset, 0); /* by name: attaching says what is missing */
	assert_int_equal(s.emulated + s.stepped, 0);
}

/* The run's SSL calls: silent at none; a rate per request timed only where requests were;
 * other processes' calls said only where there were some; a short buffer cut, not overrun. */
static void test_calls_text(void **state)
{
	char b[320], small[24];

	(void)state;
	assert_int_equal(obs_tls_calls_text(b, sizeof(b), 0, 0, 100, 0), 0);
	assert_string_equal(b, "");
	assert_true(obs_tls_calls_text(b, sizeof(b), 263, 0, 100, 0) > 0);
	assert_non_null(strstr(b, "263 SSL calls of the serving processes (2.63 a request timed)"));
	assert_null(strstr(b, "other processes"));
	assert_true(obs_tls_calls_text(b, sizeof(b), 5, 0, 0, 0) > 0);
	assert_null(strstr(b, "a request timed"));
	assert_true(obs_tls_calls_text(b, sizeof(b), 0, 7, 10, 0) > 0);
	assert_non_null(strstr(b, "0 SSL calls of the serving processes (0.00 a request timed)"));
	assert_non_null(strstr(b, "; 7 SSL calls of other processes paid them too, nothing read"));
	assert_true(obs_tls_calls_text(small, sizeof(small), 263, 7, 100, 0) >= (int)sizeof(small));
	assert_int_equal(strlen(small), sizeof(small) - 1);
	/* every TLS connection on kTLS: the calls trapped for nothing, and the option said */
	assert_true(obs_tls_calls_text(b, sizeof(b), 300, 0, 100, 4) > 0);
	assert_non_null(strstr(b, "; every TLS connection (4) was on kTLS, read from the socket: the "
				  "serving processes' calls trapped for nothing (--no-tls-uprobes"));
	assert_true(obs_tls_calls_text(b, sizeof(b), 0, 9, 100, 4) > 0);
	assert_null(strstr(b, "kTLS"));
}

LL_TEST_MAIN(test_emulated, test_debian_pair, test_no_common, test_inner_stepped, test_text,
	     test_files, test_calls_text)
