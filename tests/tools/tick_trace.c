// SPDX-License-Identifier: MIT
/*
 * The hooks of -finstrument-functions for loadlens-observer-walk, the observer built for
 * tools/tick_walk.py (observer/CMakeLists.txt). In the main thread only, a call is marked when
 * every function above it is in one of the observer's top-level files (main.c, obs_run.c...,
 * whose functions' offsets LL_TICK_WALK_TOP lists, in hex, by commas): main's callees, the
 * interval's and those of any top-level helper between them. A mark is a write(-1, "walk enter
 * OFFSET") or write(-1, "walk exit OFFSET") that fails with EBADF and that strace shows in its
 * place among the read system calls; OFFSET is the function's address less __executable_start's
 * (its address in the binary, where that is 0, as in a PIE). errno is kept across a mark. Without
 * LL_TICK_WALK_TOP, and in a forked child, nothing is marked.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#define NOTRACE __attribute__((no_instrument_function))
/* more functions than the observer's top-level files hold */
#define TICK_TRACE_TOP_MAX 4096

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

extern const char __executable_start[];

enum { TRACE_UNSET, TRACE_ON, TRACE_OFF };

static uintptr_t top[TICK_TRACE_TOP_MAX];
static size_t ntop;
static int state = TRACE_UNSET;
/* the main thread's: its depth of instrumented calls, and how many from the root are top-level */
static int depth, top_run;
/* 0: not known yet, 1: the main thread, 2: another */
static __thread int role;

static NOTRACE int cmp_off(const void *a, const void *b)
{
	uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;

	return x < y ? -1 : x > y;
}

static NOTRACE void forked(void)
{
	state = TRACE_OFF;
}

/* LL_TICK_WALK_TOP read once, by the main thread, at its first instrumented call */
static NOTRACE void setup(void)
{
	const char *s = getenv("LL_TICK_WALK_TOP");
	char *end;

	state = TRACE_OFF;
	if (!s || !*s) {
		fprintf(stderr, "tick_trace: LL_TICK_WALK_TOP is not set: no call is marked "
				"(run this binary with tools/tick_walk.py)\n");
		return;
	}
	while (*s && ntop < TICK_TRACE_TOP_MAX) {
		errno = 0;
		top[ntop] = (uintptr_t)strtoull(s, &end, 16);
		if (errno || end == s || (*end && *end != ',')) {
			fprintf(stderr, "tick_trace: LL_TICK_WALK_TOP: '%s' is not hex\n", s);
			return;
		}
		ntop++;
		s = *end ? end + 1 : end;
	}
	if (*s) {
		fprintf(stderr, "tick_trace: LL_TICK_WALK_TOP holds more than %d offsets\n",
			TICK_TRACE_TOP_MAX);
		return;
	}
	qsort(top, ntop, sizeof(top[0]), cmp_off);
	pthread_atfork(NULL, NULL, forked);
	state = TRACE_ON;
}

static NOTRACE int main_thread(void)
{
	if (!role)
		role = syscall(SYS_gettid) == getpid() ? 1 : 2;
	if (role != 1)
		return 0;
	if (state == TRACE_UNSET)
		setup();
	return state == TRACE_ON;
}

static NOTRACE uintptr_t offset(const void *fn)
{
	return (uintptr_t)fn - (uintptr_t)__executable_start;
}

static NOTRACE int is_top(const void *fn)
{
	uintptr_t off = offset(fn);

	return bsearch(&off, top, ntop, sizeof(top[0]), cmp_off) != NULL;
}

static NOTRACE void mark(const char *what, const void *fn)
{
	char buf[64];
	int saved = errno, n;

	n = snprintf(buf, sizeof(buf), "walk %s %lx", what, (unsigned long)offset(fn));
	syscall(SYS_write, -1, buf, (size_t)n);
	errno = saved;
}

NOTRACE void __cyg_profile_func_enter(void *fn, void *site)
{
	if (!main_thread())
		return;
	depth++;
	if (depth != top_run + 1)
		return;
	mark("enter", fn);
	if (is_top(fn))
		top_run = depth;
}

NOTRACE void __cyg_profile_func_exit(void *fn, void *site)
{
	if (!main_thread())
		return;
	if (depth == top_run || depth == top_run + 1)
		mark("exit", fn);
	if (depth == top_run)
		top_run--;
	depth--;
}
