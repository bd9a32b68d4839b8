/* SPDX-License-Identifier: (MIT OR GPL-2.0) */
/*
 * Request timing for bpf/sockets.bpf.c: where each request's time goes, on the target TCP and UDP
 * ports: socket-queue wait, service time, residence, the accept-queue share of a connection's
 * first request, and the run-queue wait of the serving processes' threads. Request boundaries come from a per-socket state
 * machine; nothing is parsed (docs/observer.md, "Request timing").
 *
 *   sock:sk_data_ready       bytes queued to a socket (softirq, or the sender's context)
 *   sock:sock_recv_length    the application read (its own context)
 *   sock:sock_send_length    the application wrote
 *   sock:inet_sock_set_state the server closes (FIN_WAIT1, LAST_ACK): close out the last request
 *   (accept time of a new connection, for its first request: conn.bpf.h's queued table holds it
 *   when the syscall tier saw the accept())
 *   sched:sched_wakeup{,_new}, sched:sched_switch   run-queue wait of the serving processes
 *
 * Cost rules (BENCHMARKS.md, "Request timing overhead"): the first thing every socket program does
 * is one byte load (the port's slot in rodata) on the struct sock it was handed, so a foreign
 * socket (the client's end, another port) costs no helper call; then one sk_storage lookup
 * (socket state lives in the socket and dies with it: no eviction, no stale entry when a struct
 * sock address is reused), no loops. TCP reuses the clock TCP itself just read (tcp_clock_cache,
 * refreshed on every received segment and every transmit): the arrival and the first write of a
 * response cost no bpf_ktime_get_ns(), so a keep-alive request costs one, at its read.
 * A slot's counters and histograms are one record per CPU (one lookup per request); userspace
 * sums CPUs and diffs snapshots.
 * Run-queue wait (--runq) is off unless asked for: it runs on every context switch of the host.
 * For another process's switch it costs two loads (a tgid, and its slot in a bss array).
 */
#ifndef LOADLENS_REQ_BPF_H
#define LOADLENS_REQ_BPF_H

#include "loadlens/reqtime.h"
#include "loadlens/hist_fast.h"

#define IPPROTO_TCP 6
#define IPPROTO_UDP 17
#define TCP_FIN_WAIT1 4
#define TCP_LAST_ACK 9
#define MSG_PEEK 2
#define TASK_RUNNING 0

/* Port -> 1 + index of the port in --port order; 0: not a target. Every entry 1: --all-ports. */
const volatile __u8 targ_slot[65536] = {};
/* --trace: one request in targ_trace_every (per CPU) goes to the ring buffer; 0: off. */
const volatile __u32 targ_trace_every = 0;
/* --runq: serving processes join the run-queue watch; 0: off (the sched programs not loaded). */
const volatile __u8 targ_runq = 0;
/* --pid/--cgroup: only sockets that a target process reads or writes first are timed. */
const volatile __u8 targ_owned = 0;

/* TCP request state, direct-mapped by the socket's 4-tuple hash (skc_hash): an inlined array
 * lookup and a compare per event, no helper call, nothing allocated in softirq. An entry is
 * claimed at the socket's first event and freed when it moves to CLOSE; a socket that finds its
 * entry held by another live socket keeps its state in tcp_socks (sk_storage) instead. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, RT_TCP_SLOTS);
	__type(key, __u32);
	__type(value, struct rt_tcp_sock);
} tcp_slots SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rt_tcp_sock);
} tcp_socks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_SK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct rt_udp_sock);
} udp_socks SEC(".maps");

/*
 * Each slot's counters and RT_NCOMP histograms, one record (struct rt_rec) per slot and CPU: key =
 * cpu * targ_nslots + slot. A request's whole update is one inlined array lookup (a bounds check
 * and a multiply), then plain adds into one record, where a per-CPU counter array and a histogram
 * array took a lookup each, per histogram. Memory-mapped, so userspace reads it with no system
 * call. Each CPU writes only its own records, one program at a time, as with a per-CPU map.
 * Userspace sizes it (number of CPUs x slots in use) before load.
 */
const volatile __u32 targ_nslots = 2;
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct rt_rec);
} recs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, RT_G_MAX);
	__type(key, __u32);
	__type(value, __u64);
} global SEC(".maps");

/*
 * Run-queue watch, in .bss so that a context switch reads it with plain loads and no helper call.
 * watched[tgid % RT_WATCH_SLOTS] holds the tgid of a serving process (0: free); two serving
 * processes in one slot: the second is not watched (tgids_full). wake[tid % RT_WAKE_SLOTS] holds
 * when a watched thread became runnable; a thread sharing the slot overwrites it (one sample lost).
 */
__u64 watched[RT_WATCH_SLOTS]; /* u64: clang 14 has 64-bit compare-and-swap only */
struct rt_wake wake[RT_WAKE_SLOTS];
/* --arrivals sampled: userspace bumps it as each arrival-stamping window opens; it stays 0 when
 * sk_data_ready is attached all the time */
volatile __u32 arrival_gen;
/* --pid/--cgroup without --port: port -> 1 + its index (0: none yet), and index -> port, as the
 * target's sockets are first seen; userspace reads dyn_port to label the slots. */
__u64 dyn_index[65536]; /* u64: clang 14 has 64-bit compare-and-swap only */
__u16 dyn_port[RT_DYN_PORTS];
__u64 dyn_count; /* u64: clang 14 returns a fetch-and-add result for 64 bits only */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, LL_HIST_BUCKETS);
	__type(key, __u32);
	__type(value, __u64);
} runq_hist SEC(".maps");

/* --trace records; userspace shrinks it to one page when --trace is off. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, RT_TRACE_RING);
} trace SEC(".maps");

/* a - b, or 0 if b is later: clock values (< 2^63), so the sign of the difference says which
 * (one compare on the difference, where a > b ? a - b : 0 compiles to two) */
static __always_inline __u64 sub0(__u64 a, __u64 b)
{
	__s64 d = (__s64)(a - b);

	return d > 0 ? (__u64)d : 0;
}

/*
 * TCP's own clock for this socket: tcp_clock_cache is tcp_clock_ns() (CLOCK_MONOTONIC, the clock
 * of bpf_ktime_get_ns()) as last refreshed by TCP, which it does on each segment received (before
 * the data is queued and sk_data_ready fires) and on each transmit. Measured against
 * bpf_ktime_get_ns() at sk_data_ready: 98% within 2 us, 0.04% beyond 10 us. A value not newer than
 * `after` (an event of this socket already seen) was not refreshed for this event, and a socket
 * never read may hold the handshake's stamp: read the clock for both.
 */
static __always_inline __u64 tcp_clock(const struct sock *sk, __u64 after)
{
	const struct tcp_sock *tp = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct tcp_sock));
	__u64 t = tp->tcp_clock_cache;

	return t > after && after ? t : bpf_ktime_get_ns();
}

/*
 * When this socket last transmitted, for the first write of a response: tcp_wstamp_ns is the
 * clock TCP stamped its last transmitted segment with (tcp_clock_cache at the transmit, plus any
 * pacing delay), and it moves only when TCP transmits. tcp_clock_cache alone is not that: the
 * peer's ACK of the response, processed from the socket's backlog as the write releases the
 * socket, refreshes it at the end of the write. On loopback that is after the whole delivery to
 * the peer (10-30 us), and it happens for a connection's first responses, which a peer in quick-ack
 * mode acknowledges at once. The lesser of the two is the transmit, paced or not. A value not
 * newer than the read: this write transmitted nothing yet; read the clock.
 */
static __always_inline __u64 tcp_sent_clock(const struct sock *sk, __u64 after)
{
	const struct tcp_sock *tp = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct tcp_sock));
	__u64 w = tp->tcp_wstamp_ns, c = tp->tcp_clock_cache, t = w < c ? w : c;

	return t > after && after ? t : bpf_ktime_get_ns();
}

static __always_inline void global_add(__u32 idx, __u64 n)
{
	__u64 *c = bpf_map_lookup_elem(&global, &idx);

	if (c)
		*c += n;
}

/*
 * Slot of a socket: 2 * port index + udp; RT_SLOT_DYN when the slot is the socket's own (--pid
 * without --port: decided at its first read or write, see owned()); -1 for a socket we do not
 * time: another port, protocol or network namespace. The netns costs two loads, and only for
 * sockets on a target port.
 */
static __always_inline int sock_slot(const struct sock *sk, bool *udp)
{
	__u8 s = targ_slot[sk->__sk_common.skc_num];
	__u16 proto;

	if (!s)
		return -1;
	proto = sk->sk_protocol;
	if (proto == IPPROTO_TCP)
		*udp = false;
	else if (proto == IPPROTO_UDP)
		*udp = true;
	else
		return -1;
	if (targ_netns && sk->__sk_common.skc_net.net->ns.inum != targ_netns)
		return -1;
	if (s == RT_SLOT_DYN)
		return RT_SLOT_DYN;
	return 2 * (s - 1) + *udp;
}

/* --pid/--cgroup without --port: the slot index of a port, given one at first sight. */
static __always_inline int dyn_slot(__u16 port)
{
	__u64 *e = &dyn_index[port], old;
	__u64 n;

	if (*e)
		return (int)*e - 1;
	n = __sync_fetch_and_add(&dyn_count, 1);
	if (n >= RT_DYN_PORTS)
		return -1;
	old = __sync_val_compare_and_swap(e, 0, n + 1);
	if (old) /* another CPU gave this port a slot at the same moment: index n stays unused */
		return (int)old - 1;
	dyn_port[n] = port;
	return n;
}

/* The socket's local port is in its namespace's ephemeral range: it was picked for a connect()
 * (or an unbound send), so the socket is the client end. */
static __always_inline bool ephemeral(const struct sock *sk)
{
	__u32 range = sk->__sk_common.skc_net.net->ipv4.ip_local_ports.range;
	__u16 port = sk->__sk_common.skc_num;

	return port >= (range & 0xffff) && port <= (range >> 16);
}

/*
 * Is this socket timed, and in which slot? `slot` is sock_slot()'s answer. Without --pid/--cgroup
 * every socket of a target port is. With them, the first process that reads or writes the socket
 * decides, once: this runs in that process's context (sock_recv_length, sock_send_length), so a
 * target's socket is timed and another process's is not, whatever ports they share. Without
 * --port, the socket's port gets a slot here. *flags and *own are the socket state's.
 */
static __always_inline int owned(const struct sock *sk, int slot, bool udp, __u8 *flags,
				 __u8 *own)
{
	int n;

	if (*flags & RT_F_FOREIGN)
		return -1;
	if (*flags & RT_F_OWNED)
		return slot == RT_SLOT_DYN ? *own : slot;
	if (!targ_owned)
		return slot;
	if (!proc_wanted()) {
		*flags |= RT_F_FOREIGN;
		global_add(RT_G_FOREIGN, 1);
		return -1;
	}
	if (slot == RT_SLOT_DYN) {
		if (ephemeral(sk)) {
			/* the target is the client here (a connection it made): not a request
			 * it serves */
			*flags |= RT_F_FOREIGN;
			global_add(RT_G_CLIENT, 1);
			return -1;
		}
		n = dyn_slot(sk->__sk_common.skc_num);
		if (n < 0) {
			*flags |= RT_F_FOREIGN;
			global_add(RT_G_PORTS_FULL, 1);
			return -1;
		}
		slot = 2 * n + udp;
		*own = (__u8)slot;
	}
	*flags |= RT_F_OWNED;
	return slot;
}

/* The request state of a TCP socket: its table entry, or its own storage if the entry was held by
 * another live socket when it came. create: claim an entry (or storage) if it has none. */
static __always_inline struct rt_tcp_sock *tcp_state(const struct sock *sk, bool create)
{
	__u32 idx = sk->__sk_common.skc_hash & (RT_TCP_SLOTS - 1);
	struct rt_tcp_sock *s = bpf_map_lookup_elem(&tcp_slots, &idx), *own;
	__u64 me = (__u64)sk, old;

	if (!s)
		return NULL;
	if (s->sk == me)
		return s;
	/* a socket that once found its entry held keeps its state in its storage */
	own = bpf_sk_storage_get(&tcp_socks, (void *)sk, 0, 0);
	/* nothing new for a closed socket: its entry would never be freed */
	if (own || !create || sk->__sk_common.skc_state == TCP_CLOSE)
		return own;
	old = s->sk ? s->sk : __sync_val_compare_and_swap(&s->sk, 0, me);
	if (old == me) /* another CPU claimed it for this socket a moment ago */
		return s;
	if (!old) {
		s->arrival_ns = 0;
		s->pending_ns = 0;
		s->read_ns = 0;
		s->write_ns = 0;
		s->last_write_ns = 0;
		s->accept_ns = 0;
		s->state = RT_IDLE;
		s->flags = 0;
		s->slot = 0;
		s->arrivals = 0;
		return s;
	}
	own = bpf_sk_storage_get(&tcp_socks, (void *)sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	global_add(own ? RT_G_TCP_OWN_STORAGE : RT_G_NO_STORAGE, 1);
	return own;
}

/* This CPU's record of a slot. */
static __always_inline struct rt_rec *rec_of(__u32 slot)
{
	__u32 key = bpf_get_smp_processor_id() * targ_nslots + slot;

	return bpf_map_lookup_elem(&recs, &key);
}

static __always_inline void hist_add(struct rt_rec *r, __u32 comp, __u64 v)
{
	/* the mask costs one instruction and shows the verifier the bound */
	r->hist[comp][ll_hist_bucket_fast(v) & (LL_HIST_BUCKETS - 1)] += 1;
	r->c.sum_ns[comp] += v;
	if (v > r->c.max_ns[comp])
		r->c.max_ns[comp] = v;
}

/* --runq: the server's first process to read from a target socket joins the run-queue watch. */
static __always_inline void watch_tgid(void)
{
	__u64 tgid = bpf_get_current_pid_tgid() >> 32, *w = &watched[tgid % RT_WATCH_SLOTS];

	if (!targ_runq || *w == tgid)
		return;
	if (*w || __sync_val_compare_and_swap(w, 0, tgid))
		global_add(RT_G_TGIDS_FULL, 1);
}

static __always_inline void trace_emit(struct rt_ctrs *c, const struct sock *sk, bool udp,
				       __u64 arrival, __u64 accept, __u64 read, __u64 write)
{
	struct rt_trace_rec *r = bpf_ringbuf_reserve(&trace, sizeof(*r), 0);
	__u16 family = sk->__sk_common.skc_family;

	if (!r) {
		c->trace_lost++;
		return;
	}
	__builtin_memset(r, 0, sizeof(*r));
	r->arrival_ns = arrival;
	r->accept_ns = accept;
	r->read_ns = read;
	r->write_ns = write;
	r->tgid = bpf_get_current_pid_tgid() >> 32;
	r->family = family;
	r->udp = udp;
	r->sport = sk->__sk_common.skc_num;
	r->dport = bpf_ntohs(sk->__sk_common.skc_dport);
	if (family == AF_INET6) {
		bpf_probe_read_kernel(r->saddr, 16, &sk->__sk_common.skc_v6_rcv_saddr);
		bpf_probe_read_kernel(r->daddr, 16, &sk->__sk_common.skc_v6_daddr);
	} else {
		*(__u32 *)r->saddr = sk->__sk_common.skc_rcv_saddr;
		*(__u32 *)r->daddr = sk->__sk_common.skc_daddr;
	}
	bpf_ringbuf_submit(r, 0);
}

/*
 * A response has begun: record the request. Socket-queue wait starts at the arrival, or at the
 * accept if the bytes arrived before the connection was accepted; that earlier part is the
 * request's accept-queue share. So residence = accept share + socket-queue wait + service.
 */
static __always_inline void record(const struct sock *sk, __u32 slot, bool udp, __u64 arrival,
				   __u64 accept, __u64 read, __u64 write)
{
	struct rt_rec *r = rec_of(slot);
	struct rt_ctrs *c;

	if (!r)
		return;
	c = &r->c;
	if (!c->first_ns)
		c->first_ns = write;
	c->last_ns = write;
	hist_add(r, RT_SERVICE, sub0(write, read));
	if (arrival) {
		hist_add(r, RT_QUEUE, sub0(read, accept > arrival ? accept : arrival));
		hist_add(r, RT_RESIDENCE, sub0(write, arrival));
		if (accept) {
			hist_add(r, RT_ACCEPT, sub0(accept, arrival));
			c->accept_n++;
		}
	} else {
		c->no_arrival++;
	}
	/* counters after the histograms: a reader that sees the count sees the buckets (stores on
	 * one CPU become visible in order on x86; the barrier keeps the compiler from reordering
	 * them), and reads a histogram back when its count moved */
	barrier();
	c->requests++;
	if (targ_trace_every && c->requests % targ_trace_every == 0)
		trace_emit(c, sk, udp, arrival, accept, read, write);
}

/* The current TCP response is complete (the next request was read, or the server closed). */
static __always_inline void tcp_close_out(struct rt_tcp_sock *s, __u32 slot)
{
	struct rt_rec *r;

	if (s->state == RT_WRITING && !(s->flags & RT_F_MULTI))
		return;
	r = rec_of(slot);
	if (!r)
		return;
	if (s->state == RT_READING) {
		r->c.unanswered++;
		return;
	}
	if (s->state != RT_WRITING)
		return;
	hist_add(r, RT_MULTI_FIRST, sub0(s->write_ns, s->read_ns));
	hist_add(r, RT_MULTI_LAST, sub0(s->last_write_ns, s->read_ns));
	barrier();
	r->c.multi_write++;
}

static __always_inline void tcp_arrival(const struct sock *sk)
{
	struct rt_tcp_sock *s = tcp_state(sk, true);

	if (!s || (s->flags & RT_F_FOREIGN))
		return;
	if (s->arrivals < 255)
		s->arrivals++;
	if (s->state == RT_IDLE) {
		s->arrival_ns = tcp_clock(sk, s->read_ns);
		s->state = RT_QUEUED;
	} else if (s->state != RT_QUEUED && !s->pending_ns) {
		/* while a request is read or served: the first bytes of the next one */
		s->pending_ns = tcp_clock(sk, s->read_ns);
	}
}

static __always_inline void udp_arrival(const struct sock *sk)
{
	const struct udp_sock *u;
	struct rt_udp_sock *s;
	__u32 g, q;
	__u64 i;

	/* --pid/--cgroup: a socket nobody has read yet gets no ring (it is 4 KiB) here: datagrams
	 * queued before its first read are read without a stamp (no_arrival) */
	s = bpf_sk_storage_get(&udp_socks, (void *)sk, 0,
			       targ_owned ? 0 : BPF_SK_STORAGE_GET_F_CREATE);
	if (!s) {
		if (!targ_owned)
			global_add(RT_G_NO_STORAGE, 1);
		return;
	}
	if (s->flags & RT_F_FOREIGN)
		return;
	/* --arrivals sampled: stamping was off until this window began, so the datagrams queued
	 * meanwhile have no stamp, and the reader takes them first: start the ring afresh, behind
	 * them (the one that just arrived is queued already) */
	g = arrival_gen;
	if (s->gen != g) {
		u = bpf_rdonly_cast(sk, bpf_core_type_id_kernel(struct udp_sock));
		q = sk->sk_receive_queue.qlen + u->reader_queue.qlen;
		s->skip = q ? q - 1 : 0;
		s->tail = s->head;
		s->gen = g;
	}
	/* senders on several CPUs may queue to one socket at once: take the index atomically */
	i = __sync_fetch_and_add(&s->tail, 1);
	s->arrival[i & (RT_UDP_RING - 1)] = bpf_ktime_get_ns();
}

static __always_inline void req_data_ready(const struct sock *sk)
{
	bool udp;

	if (!sk || sock_slot(sk, &udp) < 0)
		return;
	if (udp)
		udp_arrival(sk);
	else if (sk->__sk_common.skc_state != TCP_LISTEN) /* a new connection, not bytes */
		tcp_arrival(sk);
}

static __always_inline void tcp_begin(struct rt_tcp_sock *s, __u64 arrival, __u64 now)
{
	s->arrival_ns = arrival;
	s->pending_ns = 0;
	s->read_ns = now;
	s->accept_ns = 0;
	s->state = RT_READING;
	s->flags &= ~RT_F_MULTI;
}

static __always_inline void tcp_read(struct sock *sk, int slot)
{
	struct rt_tcp_sock *s = tcp_state(sk, true);
	struct rt_rec *r;
	__u8 arrivals;
	__u64 now;

	if (!s)
		return;
	slot = owned(sk, slot, false, &s->flags, &s->slot);
	if (slot < 0)
		return;
	arrivals = s->arrivals;
	s->arrivals = 0;
	if (s->state == RT_READING) {
		/* more of the same request: bytes that arrived meanwhile are part of it */
		s->pending_ns = 0;
		return;
	}
	if (arrivals > 1) {
		/* one read took the bytes of several peer writes, queued apart */
		r = rec_of(slot);
		if (r)
			r->c.multi_arrival++;
	}
	/* Service begins when recvmsg copied the request's bytes: TCP refreshed its own clock
	 * there (tcp_rcv_space_adjust), so a value newer than the request's arrival is that moment
	 * and costs no clock read (bpf_ktime_get_ns() is about half of this program's own time on
	 * a VM). What runs between the copy and this tracepoint (release_sock: the socket's
	 * backlog, pending softirqs) counts as service: measured against a clock read here, 0.35 us
	 * on average at hello-world keep-alive, 1.1 us under overload, over 10 us for 0.03-0.1% of
	 * reads (docs/observer.md, "Request timing: cost"). */
	if (s->state == RT_QUEUED) {
		now = tcp_clock(sk, s->arrival_ns);
		tcp_begin(s, s->arrival_ns, now);
	} else if (s->state == RT_WRITING) {
		now = tcp_clock(sk, s->pending_ns);
		tcp_close_out(s, slot);
		tcp_begin(s, s->pending_ns, now);
	} else {
		now = bpf_ktime_get_ns();
		tcp_begin(s, 0, now); /* no arrival seen: bytes queued before we attached */
	}
	if (s->flags & RT_F_SEEN_READ)
		return;
	/* the connection's first request: was it queued before accept() returned the socket? */
	s->flags |= RT_F_SEEN_READ;
	s->accept_ns = accept_time(sk);
	watch_tgid();
}

static __always_inline void udp_read(struct sock *sk, int slot)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct rt_udp_sock *s;
	struct rt_rec *r;
	__u64 h, t;

	s = bpf_sk_storage_get(&udp_socks, sk, 0, BPF_SK_STORAGE_GET_F_CREATE);
	if (!s) {
		global_add(RT_G_NO_STORAGE, 1);
		return;
	}
	/* flags < 256: its low byte (BPF runs in the host's byte order, little-endian here) */
	slot = owned(sk, slot, true, (__u8 *)&s->flags, &s->slot);
	if (slot < 0)
		return;
	if (s->reader != tid) {
		/* several threads read this socket: the reply a thread writes is matched with the
		 * datagram that thread read last (udp_write), so with interleaved readers a reply
		 * can be paired with another thread's datagram */
		if (s->reader) {
			r = rec_of(slot);
			if (r) {
				r->c.udp_switch++;
				if (!(s->flags & RT_F_SHARED))
					r->c.udp_shared++;
			}
			s->flags |= RT_F_SHARED;
		}
		s->reader = tid;
	}
	if (s->state == RT_READING) {
		/* the previous datagram got no reply before this read */
		r = rec_of(slot);
		if (r)
			r->c.unanswered++;
	}
	if (s->skip) {
		/* queued while arrival stamping was off (--arrivals sampled) */
		s->skip--;
		s->arrival_ns = 0;
		goto read;
	}
	h = __sync_fetch_and_add(&s->head, 1);
	t = s->tail;
	if (h >= t) {
		/* queued before we attached: no stamp */
		s->arrival_ns = 0;
		s->head = t;
	} else if (t - h > RT_UDP_RING) {
		s->arrival_ns = 0;
		r = rec_of(slot);
		if (r)
			r->c.ring_overrun++;
	} else {
		s->arrival_ns = s->arrival[h & (RT_UDP_RING - 1)];
	}
read:
	s->read_ns = bpf_ktime_get_ns();
	s->state = RT_READING;
	if (!(s->flags & RT_F_SEEN_READ)) {
		s->flags |= RT_F_SEEN_READ;
		watch_tgid();
	}
}

static __always_inline void req_recv(struct sock *sk, int ret, int flags)
{
	bool udp = false;
	int slot;

	/* arguments first: EAGAIN, EOF and peeks are not reads of a request */
	if (ret <= 0 || (flags & MSG_PEEK) || !sk)
		return;
	slot = sock_slot(sk, &udp);
	if (slot < 0)
		return;
	if (udp)
		udp_read(sk, slot);
	else
		tcp_read(sk, slot);
}

static __always_inline void unsolicited(int slot)
{
	struct rt_rec *r = rec_of(slot);

	if (r)
		r->c.unsolicited++;
}

/*
 * When the first write of a response began to leave. sock_send_length fires at the end of the
 * write, and on loopback the write itself delivers to the peer and wakes it (tens of us, or the
 * peer's whole time slice if it preempts us). So the time is TCP's stamp of its last transmit
 * (tcp_sent_clock()), which is this response's if it is newer than the read; if the write
 * transmitted nothing yet (queued behind cwnd), the clock is read.
 */
static __always_inline void tcp_write(struct sock *sk, int slot)
{
	struct rt_tcp_sock *s = tcp_state(sk, targ_owned);
	__u64 now;

	if (!s)
		return;
	slot = owned(sk, slot, false, &s->flags, &s->slot);
	if (slot < 0)
		return;
	if (s->state == RT_READING) {
		now = tcp_sent_clock(sk, s->read_ns);
		s->write_ns = now;
		s->last_write_ns = now;
		s->state = RT_WRITING;
		record(sk, slot, false, s->arrival_ns, s->accept_ns, s->read_ns, now);
	} else if (s->state == RT_WRITING) {
		s->last_write_ns = bpf_ktime_get_ns();
		s->flags |= RT_F_MULTI;
	} else {
		unsolicited(slot);
	}
}

static __always_inline void udp_write(struct sock *sk, int slot)
{
	struct rt_udp_sock *s = bpf_sk_storage_get(&udp_socks, sk, 0, 0);

	if (!s)
		return;
	slot = owned(sk, slot, true, (__u8 *)&s->flags, &s->slot);
	if (slot < 0)
		return;
	if (s->state != RT_READING) {
		unsolicited(slot);
		return;
	}
	s->state = RT_IDLE;
	record(sk, slot, true, s->arrival_ns, 0, s->read_ns, bpf_ktime_get_ns());
}

static __always_inline void req_send(struct sock *sk, int ret)
{
	bool udp = false;
	int slot;

	if (ret <= 0 || !sk)
		return;
	slot = sock_slot(sk, &udp);
	if (slot < 0)
		return;
	if (udp)
		udp_write(sk, slot);
	else
		tcp_write(sk, slot);
}

/* A target socket moves to FIN_WAIT1 or LAST_ACK: the server closes, its last response is
 * complete (or never came). */
static __always_inline void req_server_closes(const struct sock *sk)
{
	struct rt_tcp_sock *s;
	bool udp = false;
	int slot;

	slot = sock_slot(sk, &udp);
	if (slot < 0 || udp)
		return;
	s = tcp_state(sk, false);
	if (!s)
		return;
	if (s->flags & RT_F_FOREIGN)
		return;
	if (slot == RT_SLOT_DYN) {
		if (!(s->flags & RT_F_OWNED))
			return;
		slot = s->slot;
	}
	tcp_close_out(s, slot);
	s->state = RT_IDLE;
}

/* Any TCP socket moves to CLOSE: free its table entry (one inlined lookup and a compare). */
static __always_inline void req_forget(const struct sock *sk)
{
	__u32 idx = sk->__sk_common.skc_hash & (RT_TCP_SLOTS - 1);
	struct rt_tcp_sock *s = bpf_map_lookup_elem(&tcp_slots, &idx);

	if (s && s->sk == (__u64)sk)
		s->sk = 0;
}

/* The same from the raw_tp fallback, where sk is read with bpf_probe_read_kernel. */
static __always_inline void req_forget_raw(const struct sock *sk)
{
	__u32 idx = BPF_CORE_READ(sk, __sk_common.skc_hash) & (RT_TCP_SLOTS - 1);
	struct rt_tcp_sock *s = bpf_map_lookup_elem(&tcp_slots, &idx);

	if (s && s->sk == (__u64)sk)
		s->sk = 0;
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

#endif /* LOADLENS_REQ_BPF_H */
