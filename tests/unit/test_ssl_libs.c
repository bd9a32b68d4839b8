// SPDX-License-Identifier: MIT
/*
 * Which libssl the targets map (observer/sources/ssl_libs.c), on captured /proc/PID/maps
 * lines: python3 with its ssl module (libssl.so.3 and libcrypto.so.3 of Debian 12), a process
 * mapping none (a Go server: crypto/tls linked in), one file mapped by two processes (one
 * attach), two copies of it (two), lines that name no file or a deleted one.
 */
#include <string.h>
#include "ll_test.h"
#include "sources/ssl_libs.h"

static const char PY_MAPS[] =
	"5651ac7fb000-5651ac9d7000 rw-p 00000000 00:00 0                          [heap]\n"
	"7fc616a00000-7fc616ac5000 r--p 00000000 fe:00 15630371                   "
	"/usr/lib/x86_64-linux-gnu/libcrypto.so.3\n"
	"7fc616fd1000-7fc616ff0000 r--p 00000000 fe:00 15630373                   "
	"/usr/lib/x86_64-linux-gnu/libssl.so.3\n"
	"7fc616ff0000-7fc61704d000 r-xp 0001f000 fe:00 15630373                   "
	"/usr/lib/x86_64-linux-gnu/libssl.so.3\n"
	"7fc617076000-7fc61707a000 rw-p 000a4000 fe:00 15630373                   "
	"/usr/lib/x86_64-linux-gnu/libssl.so.3\n"
	"7fc617f04000-7fc617f08000 r--p 00000000 00:00 0                          [vvar]\n";
static const char GO_MAPS[] =
	"00400000-0071c000 r-xp 00000000 fe:00 2621503                            /tmp/tlsgo\n"
	"0071c000-00a5f000 r--p 0031c000 fe:00 2621503                            /tmp/tlsgo\n"
	"c000000000-c004000000 rw-p 00000000 00:00 0 \n";
/* a copy of libssl in another directory (another inode), and NSS's libssl3.so */
static const char COPY_MAPS[] =
	"7f0000000000-7f0000010000 r-xp 0001f000 fe:00 999                        "
	"/opt/app/lib/libssl.so.1.1\n"
	"7f0000100000-7f0000110000 r-xp 00010000 fe:00 1000                       "
	"/usr/lib/x86_64-linux-gnu/libssl3.so\n";

static size_t scan(struct obs_ssl_libs *libs, const char *maps, uint32_t pid)
{
	FILE *f = fmemopen((void *)maps, strlen(maps), "r");
	size_t n;

	assert_non_null(f);
	n = obs_ssl_libs_scan(libs, f, pid);
	fclose(f);
	return n;
}

static void test_line(void **state)
{
	struct obs_ssl_lib l;

	(void)state;
	memset(&l, 0, sizeof(l));
	assert_int_equal(obs_ssl_maps_line("7fc616ff0000-7fc61704d000 r-xp 0001f000 fe:00 15630373"
					   "    /usr/lib/x86_64-linux-gnu/libssl.so.3\n", &l), 1);
	assert_string_equal(l.path, "/usr/lib/x86_64-linux-gnu/libssl.so.3");
	assert_int_equal(l.ino, 15630373);
	assert_int_equal(l.dev_major, 0xfe);
	assert_int_equal(l.dev_minor, 0);
	assert_int_equal(obs_ssl_maps_line("7fc616a00000-7fc616ac5000 r--p 00000000 fe:00 15630371 "
					   "/usr/lib/x86_64-linux-gnu/libcrypto.so.3\n", &l), 0);
	assert_int_equal(obs_ssl_maps_line("7fc617f04000-7fc617f08000 r--p 00000000 00:00 0 "
					   "[vvar]\n", &l), 0);
	assert_int_equal(obs_ssl_maps_line("7f00-7f10 r-xp 00000000 fe:00 42 "
					   "/usr/lib/libssl.so.3 (deleted)\n", &l), 0);
	assert_int_equal(obs_ssl_maps_line("7f00-7f10 r-xp 00000000 fe:00 42 /lib/libssl.so\n",
					   &l), 1);
	/* libssl.sox, libssl-dev: no */
	assert_int_equal(obs_ssl_maps_line("7f00-7f10 r-xp 00000000 fe:00 42 /lib/libssl.sox\n",
					   &l), 0);
	assert_int_equal(obs_ssl_maps_line("not a maps line\n", &l), -1);
	assert_int_equal(obs_ssl_maps_line("", &l), -1);
}

static void test_scan(void **state)
{
	struct obs_ssl_libs libs;

	(void)state;
	memset(&libs, 0, sizeof(libs));
	assert_int_equal(scan(&libs, PY_MAPS, 100), 3);
	assert_int_equal(libs.nlibs, 1);
	assert_int_equal(libs.lib[0].procs, 1);
	assert_string_equal(libs.lib[0].open, "/proc/100/root/usr/lib/x86_64-linux-gnu/libssl.so.3");
	/* a second process mapping the same file: still one file, two processes */
	assert_int_equal(scan(&libs, PY_MAPS, 101), 3);
	assert_int_equal(libs.nlibs, 1);
	assert_int_equal(libs.lib[0].procs, 2);
	assert_int_equal(libs.lib[0].pid, 100);
	/* Go: nothing */
	assert_int_equal(scan(&libs, GO_MAPS, 102), 0);
	assert_int_equal(libs.nlibs, 1);
	/* another copy: a second file; NSS's libssl3.so is not OpenSSL's */
	assert_int_equal(scan(&libs, COPY_MAPS, 103), 1);
	assert_int_equal(libs.nlibs, 2);
	assert_string_equal(libs.lib[1].path, "/opt/app/lib/libssl.so.1.1");
	assert_int_equal(libs.more, 0);
}

/* More distinct files than OBS_SSL_LIBS: the rest counted, not kept. */
static void test_full(void **state)
{
	struct obs_ssl_libs libs;
	char line[200];
	int i;

	(void)state;
	memset(&libs, 0, sizeof(libs));
	for (i = 0; i < OBS_SSL_LIBS + 2; i++) {
		snprintf(line, sizeof(line), "7f00-7f10 r-xp 00000000 fe:00 %d /lib%d/libssl.so.3\n",
			 500 + i, i);
		assert_int_equal(scan(&libs, line, (uint32_t)(200 + i)), 1);
	}
	assert_int_equal(libs.nlibs, OBS_SSL_LIBS);
	assert_int_equal(libs.more, 2);
}

LL_TEST_MAIN(test_line, test_scan, test_full)
