// SPDX-License-Identifier: MIT
/* Output files (lib/outfile.c): links, FIFOs and hard links refused and left untouched; new
 * files 0600; an existing regular file truncated. No root needed. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <cmocka.h>
#include "ll_test.h"
#include "loadlens/outfile.h"

static char dir[] = "/tmp/ll-outfile.XXXXXX";
static char victim[300], path[300];

static void test_outfile_write(const char *p, const char *s)
{
	FILE *f = fopen(p, "w");

	assert_non_null(f);
	fputs(s, f);
	fclose(f);
}

static void assert_victim(void)
{
	char buf[64] = {0};
	FILE *f = fopen(victim, "r");

	assert_non_null(f);
	assert_non_null(fgets(buf, sizeof(buf), f));
	fclose(f);
	assert_string_equal(buf, "secret\n");
}

static int setup(void **state)
{
	assert_non_null(mkdtemp(dir));
	snprintf(victim, sizeof(victim), "%s/victim", dir);
	test_outfile_write(victim, "secret\n");
	return 0;
}

static int teardown(void **state)
{
	char cmd[400];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_symlink_refused(void **state)
{
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink(victim, path), 0);
	assert_int_equal(ll_output_open_fd("test", "--json", path), -1);
	assert_int_equal(errno, ELOOP);
	assert_victim();
	/* a dangling link is not followed either: nothing is created at its target */
	snprintf(path, sizeof(path), "%s/dangling", dir);
	assert_int_equal(symlink("/nonexistent-ll-target", path), 0);
	assert_null(ll_output_open("test", "--json", path));
	assert_int_equal(errno, ELOOP);
}

static void test_fifo_and_hardlink_refused(void **state)
{
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	/* refused at once, not blocked waiting for a reader */
	assert_int_equal(ll_output_open_fd("test", "--ndjson", path), -1);
	assert_int_equal(errno, EINVAL);
	snprintf(path, sizeof(path), "%s/hard", dir);
	assert_int_equal(link(victim, path), 0);
	assert_int_equal(ll_output_open_fd("test", "--trace", path), -1);
	assert_int_equal(errno, EINVAL);
	assert_victim();
	assert_int_equal(unlink(path), 0);
}

static void test_new_and_existing(void **state)
{
	struct stat st;
	FILE *f;

	snprintf(path, sizeof(path), "%s/new.json", dir);
	f = ll_output_open("test", "--json", path);
	assert_non_null(f);
	assert_int_equal(fputs("{}\n", f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_size, 3);
	/* an existing regular file: truncated, mode kept */
	assert_int_equal(chmod(path, 0644), 0);
	f = ll_output_open("test", "--json", path);
	assert_non_null(f);
	assert_int_equal(fputs("1\n", f) >= 0, 1);
	assert_int_equal(fclose(f), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size, 2);
	assert_int_equal(st.st_mode & 07777, 0644);
	/* the descriptor is close-on-exec */
	{
		int fd = ll_output_open_fd("test", "--json", path);

		assert_true(fd >= 0);
		assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
		assert_int_equal(fcntl(fd, F_GETFL) & O_NONBLOCK, 0);
		close(fd);
	}
	/* a path in a missing directory: the open's own error */
	snprintf(path, sizeof(path), "%s/no/such.json", dir);
	assert_int_equal(ll_output_open_fd("test", "--json", path), -1);
	assert_int_equal(errno, ENOENT);
}

LL_TEST_MAIN_GROUP(setup, teardown, test_symlink_refused, test_fifo_and_hardlink_refused,
	           test_new_and_existing)
