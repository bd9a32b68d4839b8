/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Run-queue wait of the serving processes' threads (--runq): which processes are watched, when
 * their threads became runnable, and the histogram of runnable -> on a CPU.
 * Part of request timing (bpf/req.bpf.h).
 */
#ifndef LOADLENS_REQ_RUNQ_BPF_H
#define LOADLENS_REQ_RUNQ_BPF_H

#include "req_rec.bpf.h"

/* --runq: serving processes join the run-queue watch; 0: off (the sched programs not loaded). */
const volatile __u8 targ_runq = 0;
/* sched_switch passes prev_state (5.18); before, the task's own state is read (run-queue wait
 * only: 5.10 has the tracepoint with three arguments) */
const volatile __u8 targ_switch_state = 1;

/*
 * Run-queue watch, in .bss so that a context switch reads it with plain loads and no helper call.
 * watched[tgid % RT_WATCH_SLOTS] holds the tgid of a serving process (0: free); two serving
 * processes in one slot: the second is not watched (tgids_full). wake[tid % RT_WAKE_SLOTS] holds
 * when a watched thread became runnable; a thread sharing the slot overwrites it (one sample lost).
 */
__u64 watched[RT_WATCH_SLOTS]; /* u64: clang 14 has 64-bit compare-and-swap only */
struct rt_wake wake[RT_WAKE_SLOTS];

LL_MAP(runq_hist, BPF_MAP_TYPE_PERCPU_ARRAY, LL_HIST_BUCKETS, __u32, __u64);

/* --runq: the server's first process to read from a target socket joins the run-queue watch. */
static __always_inline void watch_tgid(void)
{
	__u64 tgid, *w;

	if (!targ_runq) /* first: the helper call below is not free */
		return;
	tgid = bpf_get_current_pid_tgid() >> 32;
	w = &watched[tgid % RT_WATCH_SLOTS];
	if (*w == tgid)
		return;
	if (*w || LL_CMPXCHG(w, 0, tgid))
		global_add(RT_G_TGIDS_FULL, 1);
}

/*
 * Run-queue wait (--runq): runnable (woken, or preempted while running) -> on a CPU. These run on
 * every wake-up and context switch of the host: a task of another process costs the load of its
 * tgid and of one watched[] slot, and nothing else.
 */
static __always_inline bool is_watched(const struct task_struct *p)
{
	__u32 tgid = p->tgid;

	return watched[tgid % RT_WATCH_SLOTS] == tgid && tgid;
}

static __always_inline void runnable(const struct task_struct *p, __u64 now)
{
	struct rt_wake *w = &wake[(__u32)p->pid % RT_WAKE_SLOTS];

	w->ts = now;
	w->tid = p->pid;
}

static __always_inline void req_wakeup(const struct task_struct *p)
{
	if (is_watched(p))
		runnable(p, bpf_ktime_get_ns());
}

/* A task's state where sched_switch does not pass it: __state from 5.14, state before (the
 * relocation of the one this kernel lacks fails in a branch the verifier drops). */
struct task_struct___state {
	unsigned int __state;
} __attribute__((preserve_access_index));
struct task_struct___long_state {
	long state;
} __attribute__((preserve_access_index));

static __always_inline unsigned int task_state(const struct task_struct *p)
{
	const struct task_struct___state *n = (const void *)p;
	const struct task_struct___long_state *o = (const void *)p;

	if (bpf_core_field_exists(n->__state))
		return BPF_CORE_READ(n, __state);
	return (unsigned int)BPF_CORE_READ(o, state);
}

static __always_inline void req_switch(const struct task_struct *prev,
				       const struct task_struct *next, unsigned int prev_state)
{
	bool p = prev_state == TASK_RUNNING && is_watched(prev), n = is_watched(next);
	struct rt_wake *w;
	__u64 now, wait, *b, *max;
	__u32 idx;

	if (!p && !n)
		return;
	now = bpf_ktime_get_ns();
	if (p)
		runnable(prev, now);
	if (!n)
		return;
	w = &wake[(__u32)next->pid % RT_WAKE_SLOTS];
	if (w->tid != next->pid || !w->ts)
		return;
	wait = sub0(now, w->ts);
	w->ts = 0;
	idx = ll_hist_bucket(wait);
	b = bpf_map_lookup_elem(&runq_hist, &idx);
	if (b)
		*b += 1;
	global_add(RT_G_RUNQ_SUM_NS, wait);
	idx = RT_G_RUNQ_MAX_NS;
	max = bpf_map_lookup_elem(&global, &idx);
	if (max && wait > *max)
		*max = wait;
}

#endif /* LOADLENS_REQ_RUNQ_BPF_H */
