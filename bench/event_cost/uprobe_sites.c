// SPDX-License-Identifier: MIT
/*
 * What a uprobe costs a call, by the instruction it sits on (x86-64): the kernel emulates a push
 * of a register or a call, and steps anything else out of line (a second trap). The observer's
 * TLS probes sit at emulated instructions where the library has them (observer/kernel/ssl_sites.h).
 *
 *   uprobe_sites NOOP_BPF_OBJ [CALLS]
 *
 * Times CALLS calls (default 200000) of four functions of this program, each with nothing
 * attached, an empty uprobe at its first instruction, and an empty uprobe and uretprobe: one
 * that begins "sub $0x18,%rsp" (as Debian's SSL_read), one "push %r13" (as its
 * ssl_read_internal), one "endbr64" (a CET build's entry, stepped), and the same probed past the
 * endbr64 at its "push" (the observer's site there). The programs are bench/event_cost/noop.bpf.c's
 * noop_ssl_in and noop_ssl_out. Needs root. Prints a Markdown table: ns a call, the probe's share
 * above the bare call.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#if !defined(__x86_64__)
int main(void)
{
	fprintf(stderr, "uprobe_sites: x86-64 only\n");
	return 64;
}
#else
/* the functions probed: their first instructions are the point, written out */
__attribute__((naked, noinline)) static int f_sub(int x)
{
	__asm__ volatile("sub $0x18,%rsp\n lea 1(%rdi),%eax\n add $0x18,%rsp\n ret");
}
__attribute__((naked, noinline)) static int f_push(int x)
{
	__asm__ volatile("push %r13\n lea 1(%rdi),%eax\n pop %r13\n ret");
}
__attribute__((naked, noinline)) static int f_endbr(int x)
{
	__asm__ volatile("endbr64\n push %r13\n lea 1(%rdi),%eax\n pop %r13\n ret");
}

static double timed(int (*f)(int), long calls)
{
	struct timespec a, b;
	volatile int s = 0;
	long i;

	clock_gettime(CLOCK_MONOTONIC, &a);
	for (i = 0; i < calls; i++)
		s += f((int)i);
	clock_gettime(CLOCK_MONOTONIC, &b);
	return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)calls;
}

/* file offset of address p in /proc/self/exe (its text mapping) */
static long file_offset(const void *p)
{
	unsigned long lo, hi, off, a = (unsigned long)p;
	char line[512], perm[8];
	FILE *m = fopen("/proc/self/maps", "r");
	long r = -1;

	if (!m)
		return -1;
	while (fgets(line, sizeof(line), m)) {
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perm, &off) == 4 && a >= lo && a < hi &&
		    perm[2] == 'x') {
			r = (long)(a - lo + off);
			break;
		}
	}
	fclose(m);
	return r;
}

int main(int argc, char **argv)
{
	struct { const char *what; int (*f)(int); size_t skip; } cases[] = {
		{"`sub $0x18,%rsp` (Debian's SSL_read entry): stepped", f_sub, 0},
		{"`push %r13` (its ssl_read_internal): emulated", f_push, 0},
		{"`endbr64` (a CET build's entry): stepped", f_endbr, 0},
		{"past `endbr64`, at its `push`: emulated", f_endbr, 4},
	};
	long calls = argc > 2 ? atol(argv[2]) : 200000;
	struct bpf_object *o;
	struct bpf_program *in, *out;
	char exe[4096];
	ssize_t n;
	size_t i;

	if (argc < 2 || calls < 1000) {
		fprintf(stderr, "usage: uprobe_sites NOOP_BPF_OBJ [CALLS >= 1000]\n");
		return 64;
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return 1;
	exe[n] = '\0';
	libbpf_set_print(NULL);
	o = bpf_object__open_file(argv[1], NULL);
	if (!o || bpf_object__load(o)) {
		fprintf(stderr, "uprobe_sites: cannot load %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	in = bpf_object__find_program_by_name(o, "noop_ssl_in");
	out = bpf_object__find_program_by_name(o, "noop_ssl_out");
	if (!in || !out)
		return 1;
	printf("| probed instruction | bare call ns | uprobe ns | uprobe + uretprobe ns |\n");
	printf("|---|---|---|---|\n");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		long off = file_offset((const void *)cases[i].f);
		LIBBPF_OPTS(bpf_uprobe_opts, ro, .retprobe = true);
		struct bpf_link *e, *r;
		double bare, one, two;

		if (off < 0)
			return 1;
		off += (long)cases[i].skip;
		bare = timed(cases[i].f, calls);
		e = bpf_program__attach_uprobe_opts(in, 0, exe, (size_t)off, NULL);
		if (!e) {
			fprintf(stderr, "uprobe_sites: attach: %s\n", strerror(errno));
			return 1;
		}
		one = timed(cases[i].f, calls);
		r = bpf_program__attach_uprobe_opts(out, 0, exe, (size_t)off, &ro);
		two = r ? timed(cases[i].f, calls) : -1;
		bpf_link__destroy(r);
		bpf_link__destroy(e);
		printf("| %s | %.1f | %.0f | %.0f |\n", cases[i].what, bare, one, two);
	}
	bpf_object__close(o);
	return 0;
}
#endif
