// SPDX-License-Identifier: MIT
/*
 * What the kernel's verifier spends on each program of a BPF object at load: its own statistics
 * (log level 4: "verification time N usec", "processed N insns", the stack depth of each
 * function), one line a program, the costliest first. The object is loaded as it is, with no
 * set-up: programs whose attach point this kernel lacks (fentry where trampolines are refused)
 * are left out by section prefix.
 *
 *     verify_stats OBJECT.bpf.o [SECTION_PREFIX_TO_SKIP...]
 *     verify_stats build/bpf/sockets.bpf.o fentry fexit
 *
 * Needs root (CAP_BPF). Exit 0 when the object loaded, 1 when the kernel refused it, 64 on bad
 * arguments.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#define MAX_PROGS 128

struct stat_line {
	char name[64];
	char stack[64];
	long usec;
	long insns;
};

static struct stat_line lines[MAX_PROGS];
static int nlines = -1; /* the program whose log is being read */

/* libbpf prints each program's verifier log at debug level between BEGIN and END lines */
static int on_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[8192], *p;

	(void)level;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	if ((p = strstr(buf, "prog '")) && strstr(buf, "BEGIN PROG LOAD LOG") &&
	    nlines + 1 < MAX_PROGS) {
		nlines++;
		sscanf(p, "prog '%63[^']", lines[nlines].name);
	}
	if (nlines < 0)
		return 0;
	if ((p = strstr(buf, "verification time ")))
		sscanf(p, "verification time %ld", &lines[nlines].usec);
	if ((p = strstr(buf, "stack depth ")))
		sscanf(p, "stack depth %63s", lines[nlines].stack);
	if ((p = strstr(buf, "processed ")) && strstr(p, "insns"))
		sscanf(p, "processed %ld", &lines[nlines].insns);
	return 0;
}

static int by_time(const void *a, const void *b)
{
	const struct stat_line *x = a, *y = b;

	return (y->usec > x->usec) - (y->usec < x->usec);
}

int main(int argc, char **argv)
{
	struct bpf_program *prog;
	struct bpf_object *obj;
	long usec = 0;
	int i, k, err;

	if (argc < 2 || argv[1][0] == '-') {
		fprintf(stderr, "usage: verify_stats OBJECT.bpf.o [SECTION_PREFIX_TO_SKIP...]\n");
		return 64;
	}
	libbpf_set_print(on_print);
	obj = bpf_object__open(argv[1]);
	if (!obj) {
		fprintf(stderr, "verify_stats: cannot open %s\n", argv[1]);
		return 64;
	}
	bpf_object__for_each_program(prog, obj) {
		bpf_program__set_log_level(prog, 4);
		for (k = 2; k < argc; k++)
			if (!strncmp(bpf_program__section_name(prog), argv[k], strlen(argv[k])))
				bpf_program__set_autoload(prog, false);
	}
	err = bpf_object__load(obj);
	qsort(lines, (size_t)(nlines + 1), sizeof(lines[0]), by_time);
	printf("%-34s %10s %10s  %s\n", "program", "verify ms", "insns", "stack depth a function");
	for (i = 0; i <= nlines; i++) {
		printf("%-34s %10.1f %10ld  %s\n", lines[i].name, lines[i].usec / 1000.0,
		       lines[i].insns, lines[i].stack);
		usec += lines[i].usec;
	}
	printf("%-34s %10.1f\n", "total", usec / 1000.0);
	bpf_object__close(obj);
	if (err) {
		fprintf(stderr, "verify_stats: the kernel refused %s: %s\n", argv[1], strerror(-err));
		return 1;
	}
	return 0;
}
