// SPDX-License-Identifier: MIT
/* The observer's option table (observer/options.def): --help, getopt's tables and the parser
 * read it. A refusal exits, so each command line runs in a child, its exit and stderr read. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "ll_test.h"
#include "loadlens/cli.h"
#include "options.h"
#include "options_table.h"

#define MAX_ARGS 16

/* Row i as --help shows it: "  -p, --port PORT", "      --check[=json]" */
static struct ll_test_opt opt(size_t i)
{
	const struct obs_option *o = &obs_options[i];

	return (struct ll_test_opt){o->name, o->short_name, o->arg == OBS_OPT_ARG_NONE ? "" : o->metavar,
			       o->arg == OBS_OPT_ARG_OPTIONAL};
}

/* What a command line did: the exit status (-1 for a signal), stdout and stderr. */
struct ran {
	int status;
	char out[16384], err[1024];
};

/* All of fd into buf, NUL-terminated; what does not fit is read and dropped. */
static void read_all(int fd, char *buf, size_t len)
{
	char sink[512];
	size_t n = 0;
	ssize_t r;

	for (;;) {
		if (n + 1 < len)
			r = read(fd, buf + n, len - 1 - n);
		else
			r = read(fd, sink, sizeof(sink));
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		if (n + 1 < len)
			n += (size_t)r;
	}
	buf[n] = '\0';
}

/* Run obs_args_parse() on "loadlens-observer " + line (words split at spaces, "''" an empty one)
 * in a child; a parse that returns exits 0 with "parsed" on stdout. */
static void run(const char *line, struct ran *r)
{
	char copy[256], *argv[MAX_ARGS + 1], *save = NULL, *w;
	int out[2], err[2], argc = 0, st;
	struct obs_args a;
	pid_t pid;

	snprintf(copy, sizeof(copy), "%s", line);
	argv[argc++] = PROG;
	for (w = strtok_r(copy, " ", &save); w && argc < MAX_ARGS; w = strtok_r(NULL, " ", &save))
		argv[argc++] = strcmp(w, "''") ? w : w + 2;
	argv[argc] = NULL;
	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(err), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (!pid) {
		dup2(out[1], STDOUT_FILENO);
		dup2(err[1], STDERR_FILENO);
		close(out[0]);
		close(err[0]);
		obs_args_parse(argc, argv, &a);
		printf("parsed\n");
		fflush(stdout);
		_exit(0);
	}
	close(out[1]);
	close(err[1]);
	read_all(out[0], r->out, sizeof(r->out));
	read_all(err[0], r->err, sizeof(r->err));
	close(out[0]);
	close(err[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* line is refused: exit 64, one line on stderr, "loadlens-observer: " + want (NULL: any). */
static void refused(const char *line, const char *want)
{
	struct ran r;
	const char *nl;

	run(line, &r);
	nl = strchr(r.err, '\n');
	if (r.status != LL_EXIT_USAGE || !nl || nl[1] ||
	    strncmp(r.err, PROG ": ", strlen(PROG) + 2))
		fail_msg("'%s': exit %d, stderr '%s' (want 64, one line)", line, r.status, r.err);
	if (want && (strncmp(r.err + strlen(PROG) + 2, want, strlen(want)) ||
		     r.err + strlen(PROG) + 2 + strlen(want) != nl))
		fail_msg("'%s': '%.*s', want '%s'", line, (int)(nl - r.err), r.err, want);
}

/* Each option is on one line of --help, and each option line of --help is an option's. */
static void test_help_lists_each_option_once(void **state)
{
	char *help = ll_text_of(obs_options_usage);
	struct ran r;

	ll_help_check_options(help, OBS_OPT__COUNT, opt, obs_option_by_name);
	assert_non_null(strstr(help, "\nOptions:\n"));
	assert_non_null(strstr(help, "\nEXAMPLES\n"));
	/* --help prints the same text on stdout and exits 0, whatever follows it */
	run("--help -Z", &r);
	assert_int_equal(r.status, LL_EXIT_OK);
	assert_string_equal(r.out, help);
	assert_string_equal(r.err, "");
	run("-V", &r);
	assert_int_equal(r.status, LL_EXIT_OK);
	assert_int_equal(strncmp(r.out, PROG " ", strlen(PROG) + 1), 0);
	free(help);
}

/* Names and letters once each; getopt's tables say the same as the rows; a kind its field. */
static void test_names_and_letters_unique(void **state)
{
	const struct option *lo = obs_options_long();
	char shorts[3 * OBS_OPT__COUNT + 2];
	int i;

	assert_int_equal(obs_options_short(shorts, sizeof(shorts)), 0);
	assert_int_equal(obs_options_short(shorts, 2), -ENOSPC);
	assert_int_equal(obs_options_short(shorts, sizeof(shorts)), 0);
	assert_string_equal(shorts, ":p:i:d:j:vhV");
	ll_options_check(OBS_OPT__COUNT, opt, shorts);
	for (i = 0; i < OBS_OPT__COUNT; i++) {
		const struct obs_option *o = &obs_options[i];
		int val = o->short_name ? o->short_name : OBS_OPT_VAL + i;
		int has_arg = o->arg == OBS_OPT_ARG_NONE    ? no_argument
			      : o->arg == OBS_OPT_ARG_VALUE ? required_argument
							    : optional_argument;

		assert_int_equal(obs_option_by_name(o->name), i);
		assert_int_equal(obs_option_of(val), i);
		assert_string_equal(lo[i].name, o->name);
		assert_int_equal(lo[i].val, val);
		assert_int_equal(lo[i].has_arg, has_arg);
		assert_null(lo[i].flag);
		if ((o->arg == OBS_OPT_ARG_NONE) != (o->metavar[0] == '\0'))
			fail_msg("--%s: a value needs its METAVAR, and only a value", o->name);
		if ((o->kind == OBS_OPT_KIND_PATH && o->arg != OBS_OPT_ARG_VALUE) ||
		    (o->kind == OBS_OPT_KIND_FLAG && o->arg != OBS_OPT_ARG_NONE) ||
		    (o->kind == OBS_OPT_KIND_OWN && obs_option_field((enum obs_opt)i)))
			fail_msg("--%s: KIND and ARG or field disagree", o->name);
		if (!o->help[0] || o->help[strlen(o->help) - 1] == '\n')
			fail_msg("--%s: no help, or one ending in a new line", o->name);
	}
	assert_null(lo[OBS_OPT__COUNT].name);
	assert_int_equal(obs_option_of(':'), -1);
	assert_int_equal(obs_option_of('?'), -1);
	assert_int_equal(obs_option_of(OBS_OPT_VAL + OBS_OPT__COUNT), -1);
	assert_int_equal(obs_option_by_name("no-such-option"), -1);
	assert_true(OBS_OPT__COUNT >= 23);
}

/* A PATH row sets its field to the value and refuses an empty one; a FLAG row sets its bool. */
static void test_paths_and_flags_set_their_field(void **state)
{
	char line[128], want[128], *field;
	struct obs_args a;
	struct ran r;
	int i;

	for (i = 0; i < OBS_OPT__COUNT; i++) {
		const struct obs_option *o = &obs_options[i];
		char *argv[] = {PROG, "--pid", "1", line, "v", NULL};
		int argc = o->kind == OBS_OPT_KIND_PATH ? 5 : 4;

		if (o->kind == OBS_OPT_KIND_OWN)
			continue;
		snprintf(line, sizeof(line), "--%s", o->name);
		obs_args_parse(argc, argv, &a);
		field = (char *)&a + obs_option_field((enum obs_opt)i);
		if (o->kind == OBS_OPT_KIND_PATH)
			assert_string_equal(*(const char **)field, "v");
		else
			assert_true(*(bool *)field);
		if (o->kind != OBS_OPT_KIND_PATH)
			continue;
		snprintf(line, sizeof(line), "--pid 1 --%s ''", o->name);
		snprintf(want, sizeof(want), "invalid --%s '': expected a path", o->name);
		refused(line, want);
		snprintf(line, sizeof(line), "--pid 1 --%s=", o->name);
		refused(line, want);
	}
	run("--port 80 -p 443 --interval 0", &r);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.out, "parsed\n");
}

/* An option we do not have, or one without its value: exit 64 and one line. */
static void test_unknown_refused_in_one_line(void **state)
{
	char line[128], want[160];
	int i;

	refused("--no-such-option", "unknown option '--no-such-option'; see --help");
	refused("-Z", "unknown option '-Z'; see --help");
	refused("--port 80 --n x", "unknown option '--n'; see --help"); /* netns, ndjson... */
	refused("--port", "option '--port' needs a value; see --help");
	refused("-p", "option '-p' needs a value; see --help");
	refused("--port 80 extra", "unexpected argument 'extra'; see --help");
	refused("--check=xml", "--check takes no value or =json");
	refused("", "nothing to observe: give --port PORT, --pid PID, --cgroup PATH or "
		    "--all-ports");
	for (i = 0; i < OBS_OPT__COUNT; i++) {
		const struct obs_option *o = &obs_options[i];

		if (o->arg == OBS_OPT_ARG_VALUE) {
			/* every option that takes a value says so when it has none */
			snprintf(line, sizeof(line), "--%s", o->name);
			snprintf(want, sizeof(want), "option '--%s' needs a value; see --help",
				 o->name);
			refused(line, want);
		} else if (o->arg == OBS_OPT_ARG_NONE) {
			/* and one that takes none refuses one */
			snprintf(line, sizeof(line), "--port 80 --%s=1", o->name);
			snprintf(want, sizeof(want), "unknown option '--%s=1'; see --help",
				 o->name);
			refused(line, want);
		}
		if (o->short_name && o->arg == OBS_OPT_ARG_VALUE) {
			snprintf(line, sizeof(line), "--port 80 -%c", o->short_name);
			snprintf(want, sizeof(want), "option '-%c' needs a value; see --help",
				 o->short_name);
			refused(line, want);
		}
	}
}

LL_TEST_MAIN(test_help_lists_each_option_once, test_names_and_letters_unique,
	     test_paths_and_flags_set_their_field, test_unknown_refused_in_one_line)
