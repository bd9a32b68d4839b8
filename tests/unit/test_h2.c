// SPDX-License-Identifier: MIT
/*
 * HTTP/2 frames walked as the kernel walks them (include/loadlens/h2.h: the steps
 * bpf/req_h2.bpf.h takes), on bytes captured on loopback: h2load's first write to a server
 * (the preface, SETTINGS, WINDOW_UPDATE, two requests) and nginx 1.22's answer to it. Every
 * split of the bytes into two reads must give the frames of one read; bytes that are no frame
 * header lose the walk.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>
#include "ll_test.h"
#include "loadlens/h2.h"

/* h2load -c 1 -m 2 -n 2 http://127.0.0.1:PORT/x: its first 120 bytes */
static const char CLIENT[] =
	"505249202a20485454502f322e300d0a0d0a534d0d0a0d0a00000c04000000000000020000000000043fff"
	"ffff0000040800000000003fff000000002401050000000104022f7886418b089d5c0b8170dc0bcebaef82"
	"7a8f9c541c722954d3a5358980aed8970700000801050000000304022f7886bf82be";
/* nginx 1.22 (h2c, return 200 "ok\n") answering those bytes: 187 bytes */
static const char SERVER[] =
	"000012040000000000000300000080000400010000000500ffffff0000040800000000007fff0000000000"
	"040100000000000030010400000001887689aa6355e580ae212e1f6196d07abe94132a693f75040138a043"
	"71b05c1094c5a37f5f87497ca58ae819aa5c01330000030001000000016f6b0a000030010400000003887689"
	"aa6355e580ae212e1f6196d07abe94132a693f75040138a04371b05c1094c5a37f5f87497ca58ae819aa5c01"
	"330000030001000000036f6b0a";

/* The frames of a walk, one line each: "type/flags/sid", a stream frame marked '*' and its end
 * '!' */
struct seen {
	char s[1024];
	int frames, lost;
};

/* One read (or write) of len bytes, as h2_step() walks it. */
static void walk(struct rt_h2_dir *d, const __u8 *b, __u32 len, struct seen *out)
{
	__u32 off = 0, pass, take, sid, tf;
	int rc, i;

	for (i = 0; i <= LL_H2_FRAMES; i++) {
		if (ll_h2_next(d, len - off, &pass, &take)) {
			out->lost++;
			return;
		}
		off += pass;
		if (!take)
			return;
		memcpy(d->hdr + d->hlen, b + off, take);
		off += take;
		rc = ll_h2_got(d, take, &sid, &tf);
		if (rc < 0) {
			out->lost++;
			return;
		}
		if (!rc)
			return;
		out->frames++;
		snprintf(out->s + strlen(out->s), sizeof(out->s) - strlen(out->s), "%u/%u/%u%s%s ",
			 tf & 0xff, tf >> 8, sid, ll_h2_stream_frame(sid, tf) ? "*" : "",
			 ll_h2_ends(tf) ? "!" : "");
	}
	out->lost++;
}

static void test_preface(void **state)
{
	__u8 b[256];
	__u64 w[3];

	(void)state;
	assert_int_equal(ll_unhex(CLIENT, b), 120);
	memcpy(w, b, sizeof(w));
	assert_true(ll_h2_preface(w));
	b[3] = '-'; /* "PRI-": not the preface */
	memcpy(w, b, sizeof(w));
	assert_false(ll_h2_preface(w));
	memcpy(w, "GET / HTTP/1.1\r\nHost: x\r\n", sizeof(w));
	assert_false(ll_h2_preface(w));
}

/* The bytes of hex walked whole (the walk first passing over skip bytes): the frames want, none
 * lost, no header half read; then cut in two reads at every place: each time the same. Returns
 * how many bytes. */
static __u32 every_split(const char *hex, __u32 skip, const char *want)
{
	struct rt_h2_dir d = {.skip = skip};
	struct seen whole = {0}, two;
	__u8 b[256];
	__u32 n = (__u32)ll_unhex(hex, b), cut;

	walk(&d, b, n, &whole);
	assert_string_equal(whole.s, want);
	assert_int_equal(whole.lost, 0);
	assert_int_equal(d.skip, 0);
	assert_int_equal(d.hlen, 0);
	for (cut = 0; cut <= n; cut++) {
		memset(&d, 0, sizeof(d));
		memset(&two, 0, sizeof(two));
		d.skip = skip;
		walk(&d, b, cut, &two);
		walk(&d, b + cut, n - cut, &two);
		if (strcmp(two.s, whole.s) || two.lost)
			fail_msg("split at %u: '%s' (lost %d), whole '%s'", cut, two.s, two.lost,
				 whole.s);
	}
	return n;
}

/* The client's bytes: SETTINGS and WINDOW_UPDATE on stream 0 (no request), then HEADERS with
 * END_STREAM on streams 1 and 3: two requests; the same at every split into two reads. */
static void test_client_every_split(void **state)
{
	(void)state;
	every_split(CLIENT, LL_H2_PREFACE_LEN, "4/0/0 8/0/0 1/5/1*! 1/5/3*! ");
}

/* nginx's answer: SETTINGS, WINDOW_UPDATE, its ACK of ours (stream 0), then for each stream a
 * HEADERS (its first frame) and a DATA with END_STREAM (its last): two responses. */
static void test_server_every_split(void **state)
{
	(void)state;
	assert_int_equal(every_split(SERVER, 0, "4/0/0 8/0/0 4/1/0 1/4/1* 0/1/1*! 1/4/3* 0/1/3*! "),
			 187);
}

/* One byte a read: the header carried byte by byte. */
static void test_byte_by_byte(void **state)
{
	struct rt_h2_dir d;
	struct seen s = {0};
	__u8 b[256];
	__u32 n = (__u32)ll_unhex(SERVER, b), i;

	(void)state;
	memset(&d, 0, sizeof(d));
	for (i = 0; i < n; i++)
		walk(&d, b + i, 1, &s);
	assert_string_equal(s.s, "4/0/0 8/0/0 4/1/0 1/4/1* 0/1/1*! 1/4/3* 0/1/3*! ");
}

/* Sick: HTTP/1.1 bytes where a frame header is due (a type beyond any frame's) lose the walk;
 * more frames than LL_H2_FRAMES in one read lose it too. */
static void test_lost(void **state)
{
	static const char req[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	struct rt_h2_dir d;
	struct seen s = {0};
	__u8 many[LL_H2_FRAMES * 9 + 18];
	__u32 i;

	(void)state;
	memset(&d, 0, sizeof(d));
	walk(&d, (const __u8 *)req, sizeof(req) - 1, &s);
	assert_int_equal(s.lost, 1);
	assert_int_equal(s.frames, 0);
	/* LL_H2_FRAMES + 2 empty PINGs' headers (length 0): the walk stops at its bound */
	memset(many, 0, sizeof(many));
	for (i = 0; i < sizeof(many); i += 9)
		many[i + 3] = 6;
	memset(&d, 0, sizeof(d));
	memset(&s, 0, sizeof(s));
	walk(&d, many, sizeof(many), &s);
	assert_int_equal(s.lost, 1);
	assert_int_equal(s.frames, LL_H2_FRAMES + 1);
}

/* Which frames move a stream: odd ids only; RST_STREAM and END_STREAM end it. */
static void test_stream_frames(void **state)
{
	(void)state;
	assert_true(ll_h2_stream_frame(1, LL_H2_HEADERS));
	assert_true(ll_h2_stream_frame(3, LL_H2_DATA));
	assert_false(ll_h2_stream_frame(2, LL_H2_HEADERS)); /* a pushed stream */
	assert_false(ll_h2_stream_frame(0, 4));		     /* SETTINGS */
	assert_false(ll_h2_stream_frame(1, 8));		     /* WINDOW_UPDATE */
	assert_false(ll_h2_stream_frame(1, 2));		     /* PRIORITY */
	assert_true(ll_h2_ends(LL_H2_RST_STREAM));
	assert_true(ll_h2_ends(LL_H2_DATA | (LL_H2_END_STREAM << 8)));
	assert_false(ll_h2_ends(LL_H2_HEADERS | (4 << 8))); /* END_HEADERS only */
	assert_false(ll_h2_ends(LL_H2_CONTINUATION | (LL_H2_END_STREAM << 8)));
}

/* A read (server 0) or write (1) in a gap, as bpf/req_h2.bpf.h's h2_io() looks at it: walked
 * from its first byte, every header a client's or a server's (ll_h2_gap_frame()), at least one,
 * and the last frame ends where the read does. 1: the walk may resume there. */
static int resyncs_by(const __u8 *b, __u32 len, int server)
{
	__u32 off = 0, pass, take, sid, tf;
	struct rt_h2_dir d;
	int rc, i, frames = 0;

	memset(&d, 0, sizeof(d));
	for (i = 0; i <= LL_H2_FRAMES; i++) {
		if (ll_h2_next(&d, len - off, &pass, &take))
			return 0;
		off += pass;
		if (!take)
			return frames > 0 && !d.skip;
		memcpy(d.hdr + d.hlen, b + off, take);
		off += take;
		rc = ll_h2_got(&d, take, &sid, &tf);
		if (rc <= 0)
			return 0;
		if (!ll_h2_gap_frame(d.hdr, server))
			return 0;
		frames++;
	}
	return 0;
}

static int resyncs(const __u8 *b, __u32 len)
{
	return resyncs_by(b, len, 0);
}

/* Healthy: h2load's bytes after the preface are a client's frames from each frame's first byte
 * to their end. Sick: from every byte inside a frame the walk does not resume (taking a frame cut
 * by the read's end, 7 of those 91 places would pass); nor at the preface, on HTTP/1.1, on a cut
 * header or frame. Then single headers against RFC 9113's rules. */
static void test_client_frame_resync(void **state)
{
	__u8 b[sizeof(CLIENT) / 2], h[9] = {0};
	__u32 n = (__u32)ll_unhex(CLIENT, b), off, starts = 0, boundary[16], nb = 0, k;
	struct rt_h2_dir d;
	struct seen sn = {0};

	(void)state;
	/* the frame boundaries after the preface, from the plain walk */
	memset(&d, 0, sizeof(d));
	d.skip = LL_H2_PREFACE_LEN;
	for (off = LL_H2_PREFACE_LEN; off + 9 <= n && nb < 16;) {
		boundary[nb++] = off;
		off += 9 + (((__u32)b[off] << 16) | ((__u32)b[off + 1] << 8) | b[off + 2]);
	}
	assert_int_equal(nb, 4); /* SETTINGS, WINDOW_UPDATE, HEADERS, HEADERS */
	walk(&d, b, n, &sn);
	assert_int_equal(sn.frames, (int)nb);
	for (off = LL_H2_PREFACE_LEN; off < n - 1; off++) {
		int at = 0;

		for (k = 0; k < nb; k++)
			at |= boundary[k] == off;
		if (at)
			assert_true(resyncs(b + off, n - off));
		else if (resyncs(b + off, n - off))
			starts++;
	}
	assert_int_equal(starts, 0);
	assert_false(resyncs(b, n)); /* the preface is no frame */
	assert_false(resyncs((const __u8 *)"GET / HTTP/1.1\r\n\r\n", 18));
	assert_false(resyncs(b + boundary[0], 5)); /* a cut header only: no frame seen */
	assert_false(resyncs(b + boundary[0], n - boundary[0] - 1)); /* the last frame cut */
	assert_true(resyncs(b + boundary[2], boundary[3] - boundary[2])); /* one HEADERS */
	/* one header at a time */
	h[3] = 4; /* SETTINGS ack, stream 0, no payload */
	h[4] = 1;
	assert_true(ll_h2_gap_frame(h, 0));
	h[2] = 6; /* an ack with a payload */
	assert_false(ll_h2_gap_frame(h, 0));
	h[4] = 0; /* one setting */
	assert_true(ll_h2_gap_frame(h, 0));
	h[8] = 1; /* SETTINGS on a stream */
	assert_false(ll_h2_gap_frame(h, 0));
	h[3] = LL_H2_HEADERS; /* HEADERS, END_STREAM | END_HEADERS, stream 1 */
	h[4] = 5;
	assert_true(ll_h2_gap_frame(h, 0));
	h[8] = 2; /* an even stream: no client's */
	assert_false(ll_h2_gap_frame(h, 0));
	h[8] = 1;
	h[4] = 0x40; /* an undefined flag */
	assert_false(ll_h2_gap_frame(h, 0));
	h[4] = 0;
	h[5] = 0x80; /* the reserved bit */
	assert_false(ll_h2_gap_frame(h, 0));
	h[5] = 0;
	h[3] = LL_H2_PUSH_PROMISE; /* the server's only */
	assert_false(ll_h2_gap_frame(h, 0));
	h[3] = LL_H2_DATA;
	h[0] = 0x10; /* 1 MiB: the bound */
	h[1] = h[2] = 0;
	assert_true(ll_h2_gap_frame(h, 0));
	h[2] = 1;
	assert_false(ll_h2_gap_frame(h, 0));
}

/* A write gap: nginx's bytes (SERVER) resync at each frame's first byte and at no byte inside
 * a frame, by the server's rules (taking pushed streams' frames, byte 31, inside a WINDOW_UPDATE,
 * would pass as an empty DATA on stream 0x7fff0000); then single headers: a server's
 * PUSH_PROMISE on a client's stream, no pushed stream's frame, no PRIORITY_UPDATE. */
static void test_server_frame_resync(void **state)
{
	__u8 b[sizeof(SERVER) / 2], h[9] = {0};
	__u32 n = (__u32)ll_unhex(SERVER, b), off, starts = 0, nb = 0, at;
	__u32 boundary[16];

	(void)state;
	for (off = 0; off + 9 <= n && nb < 16;) {
		boundary[nb++] = off;
		off += 9 + (((__u32)b[off] << 16) | ((__u32)b[off + 1] << 8) | b[off + 2]);
	}
	assert_int_equal(off, n);
	assert_int_equal(nb, 7);
	for (off = 0; off < n - 1; off++) {
		__u32 k;

		for (at = 0, k = 0; k < nb; k++)
			at |= boundary[k] == off;
		if (at)
			assert_true(resyncs_by(b + off, n - off, 1));
		else if (resyncs_by(b + off, n - off, 1))
			starts++;
	}
	assert_int_equal(starts, 0);
	assert_false(resyncs_by(b, n - 1, 1)); /* the last frame cut */
	h[3] = LL_H2_PUSH_PROMISE; /* END_HEADERS, on stream 1, the promised id's 4 bytes */
	h[4] = 4;
	h[2] = 4;
	h[8] = 1;
	assert_true(ll_h2_gap_frame(h, 1));
	assert_false(ll_h2_gap_frame(h, 0));
	h[8] = 2; /* a promise on a pushed stream */
	assert_false(ll_h2_gap_frame(h, 1));
	h[3] = LL_H2_DATA; /* on the pushed stream: not taken */
	h[4] = 1;
	assert_false(ll_h2_gap_frame(h, 1));
	h[8] = 3; /* DATA, END_STREAM, on stream 3 */
	assert_true(ll_h2_gap_frame(h, 1));
	h[8] = 0; /* DATA on stream 0 */
	assert_false(ll_h2_gap_frame(h, 1));
	h[3] = 0x10; /* PRIORITY_UPDATE: the client's */
	h[4] = 0;
	assert_false(ll_h2_gap_frame(h, 1));
	h[3] = 8; /* WINDOW_UPDATE, stream 0 */
	assert_true(ll_h2_gap_frame(h, 1));
	h[5] = 0x80; /* the reserved bit */
	assert_false(ll_h2_gap_frame(h, 1));
}

/* Where a stream begins: its connection's run in h2_runs (8 entries, aligned, inside the table;
 * two connections' runs apart, almost always), a place of its own in h2_streams past it (inside
 * the table, other for the next stream). bpf/req_h2.bpf.h's h2_look() tries the run's entries
 * from (sid / 2) % 8 on, so one stream in flight at a time takes each in turn. */
static void test_stream_places(void **state)
{
	uint64_t sk = 0xffff888012345640ULL, gen = 123456789012345ULL;
	uint32_t run = ll_h2_run(sk, gen), sid, own, prev = RT_H2_STREAMS;

	(void)state;
	assert_int_equal(run % RT_H2_PROBES, 0);
	assert_true(run + RT_H2_PROBES <= RT_H2_RUNS);
	assert_int_not_equal(ll_h2_run(sk, gen + 1), run);
	assert_int_not_equal(ll_h2_run(sk + 64, gen), run);
	for (sid = 1; sid < 2000; sid += 2) {
		own = ll_h2_slot(sk, gen, sid);
		assert_true(own < RT_H2_STREAMS);
		assert_int_not_equal(own, prev);
		prev = own;
	}
}

/* A read gap's streams by their ids (ll_h2_client_streams): the odd ids above lo, up to hi. */
static void test_client_streams(void **state)
{
	uint32_t lo, hi, sid, n;

	(void)state;
	assert_int_equal(ll_h2_client_streams(0, 1), 1);  /* stream 1, the connection's first */
	assert_int_equal(ll_h2_client_streams(0, 2), 1);  /* (the first after the gap 3, less 1) */
	assert_int_equal(ll_h2_client_streams(1, 2), 0);  /* 1 before the gap, 3 the first after */
	assert_int_equal(ll_h2_client_streams(5, 10), 2); /* 7 and 9 */
	assert_int_equal(ll_h2_client_streams(9, 9), 0);
	assert_int_equal(ll_h2_client_streams(9, 3), 0);  /* never below 0 */
	assert_int_equal(ll_h2_client_streams(0x7ffffffd, 0x7fffffff), 1);
	assert_int_equal(ll_h2_client_streams(0, 0x7fffffff), 0x40000000);
	/* against a count, one id at a time */
	for (lo = 0; lo < 40; lo++)
		for (hi = 0; hi < 40; hi++) {
			for (n = 0, sid = lo + 1; sid <= hi; sid++)
				n += sid & 1;
			assert_int_equal(ll_h2_client_streams(lo, hi), n);
		}
}

/* ll_h2_preface_step() on a read of n bytes whose first LL_H2_PREFACE_LEN are at b, as the
 * kernel reads them: three little-endian words */
static int pre_words(const uint8_t *b, uint32_t n, uint32_t at, uint32_t *m)
{
	uint64_t w[3];

	memcpy(w, b, sizeof(w));
	return ll_h2_preface_step(w[0], w[1], w[2], n, at, m);
}

/* The same on the n bytes of str, zeros past them */
static int pre_step(const char *str, uint32_t n, uint32_t at, uint32_t *m)
{
	uint8_t b[LL_H2_PREFACE_LEN] = {0};

	memcpy(b, str, n < sizeof(b) ? n : sizeof(b));
	return pre_words(b, n, at, m);
}

/* The preface read in pieces: every split into reads of k bytes is recognised where it ends,
 * each piece before the last a part; broken ones and requests that only begin like it are not. */
static void test_preface_pieces(void **state)
{
	const char *pre = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
	uint8_t b[64];
	uint32_t k, at, m, n;
	int kind;

	(void)state;
	for (k = 0; k < LL_H2_PREFACE_LEN; k++) /* the words spell it */
		assert_int_equal((uint8_t)(ll_h2_preface_word(k >> 3) >> (8 * (k & 7))),
				 (uint8_t)pre[k]);
	for (k = 1; k <= LL_H2_PREFACE_LEN + 9; k++) {
		/* the preface then a SETTINGS frame header, in reads of k bytes */
		memcpy(b, pre, LL_H2_PREFACE_LEN);
		memcpy(b + LL_H2_PREFACE_LEN, "\0\0\0\4\0\0\0\0\0", 9);
		at = 0;
		for (n = 0;; n += k) {
			kind = pre_words(b + n, k, at, &m);
			if (m == LL_H2_PREFACE_LEN)
				break;
			assert_int_equal(kind, LL_H2_PRE_PART);
			assert_int_equal(m, n + k);
			at = m;
		}
		assert_int_equal(kind, LL_H2_PRE_WHOLE);
		/* the bytes of the read that were the preface's: the rest is frames */
		assert_true(LL_H2_PREFACE_LEN - at <= k);
		assert_int_equal(n + (LL_H2_PREFACE_LEN - at), LL_H2_PREFACE_LEN);
	}
	/* a POST read "P" then "OST": a request, not a preface */
	assert_int_equal(pre_step("P", 1, 0, &m), LL_H2_PRE_PART);
	assert_int_equal(pre_step("OST / HTTP/1.1", 14, 1, &m),
			 LL_H2_PRE_NONE);
	assert_int_equal(pre_step("GET / HTTP/1.1\r\n", 16, 0, &m),
			 LL_H2_PRE_NONE);
	assert_int_equal(m, 0);
	/* "PRI * HTTP/1.1": the preface's method, then other bytes */
	assert_int_equal(pre_step("PRI * HTTP/1.1\r\n", 16, 0, &m),
			 LL_H2_PRE_BAD);
	assert_int_equal(m, 11);
	assert_int_equal(pre_step("X", 1, 5, &m), LL_H2_PRE_BAD);
	assert_int_equal(pre_step("RX", 2, 1, &m), LL_H2_PRE_NONE);
}

/* The words against the preface's definition byte by byte: every at, every read length, the
 * read's bytes the preface's own then one byte wrong at each place (or none), the bytes past
 * the read random: kind and matched count equal a walk of single bytes. */
static void test_preface_words(void **state)
{
	const char *pre = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
	uint8_t b[LL_H2_PREFACE_LEN];
	uint32_t at, n, bad, i, k, m, want, seed = 7;
	int kind, ref;

	(void)state;
	for (at = 0; at <= LL_H2_PREFACE_LEN; at++)
		for (n = 1; n <= LL_H2_PREFACE_LEN + 2; n++)
			for (bad = 0; bad <= LL_H2_PREFACE_LEN; bad++) {
				for (i = 0; i < LL_H2_PREFACE_LEN; i++) {
					seed = seed * 1103515245u + 12345u;
					b[i] = at + i < LL_H2_PREFACE_LEN ? (uint8_t)pre[at + i]
									  : (uint8_t)(seed >> 16);
				}
				if (bad < LL_H2_PREFACE_LEN)
					b[bad] ^= (uint8_t)(1 + (seed >> 24) % 255);
				for (i = n; i < LL_H2_PREFACE_LEN; i++) /* not the read's */
					b[i] = (uint8_t)(seed >> (i & 15));
				kind = pre_words(b, n, at, &m);
				if (at >= LL_H2_PREFACE_LEN) {
					assert_int_equal(kind, LL_H2_PRE_BAD);
					continue;
				}
				want = LL_H2_PREFACE_LEN - at < n ? LL_H2_PREFACE_LEN - at : n;
				for (k = 0; k < want && b[k] == (uint8_t)pre[at + k]; k++)
					;
				ref = at + k == LL_H2_PREFACE_LEN ? LL_H2_PRE_WHOLE
				      : k == want		  ? LL_H2_PRE_PART
				      : at + k >= LL_H2_PRE_METHOD ? LL_H2_PRE_BAD
								  : LL_H2_PRE_NONE;
				assert_int_equal(m, at + k);
				assert_int_equal(kind, ref);
			}
}

/* Each stream's own arrival: the stamp of the segment that carried a byte, from the ring of the
 * connection's last RT_H2_ARRIVALS arrivals; unknown before the first held one or past the last;
 * across the sequence numbers' wrap. */
static void test_arrivals(void **state)
{
	struct rt_h2_arrivals a = {.next_seq = 1000};
	__u32 k;

	(void)state;
	assert_int_equal(ll_h2_arrival_of(&a, 1000), 0); /* nothing yet */
	ll_h2_arrival_add(&a, 1100, 5);	/* bytes 1000..1099 at 5 */
	ll_h2_arrival_add(&a, 1100, 6);	/* nothing new: none */
	ll_h2_arrival_add(&a, 1163, 7);	/* 1100..1162 at 7 */
	assert_int_equal(a.n, 2);
	assert_int_equal(ll_h2_arrival_of(&a, 999), 0); /* before the first held */
	assert_int_equal(ll_h2_arrival_of(&a, 1000), 5);
	assert_int_equal(ll_h2_arrival_of(&a, 1099), 5);
	assert_int_equal(ll_h2_arrival_of(&a, 1100), 7);
	assert_int_equal(ll_h2_arrival_of(&a, 1162), 7);
	assert_int_equal(ll_h2_arrival_of(&a, 1163), 0); /* not arrived (seen) yet */
	/* the ring wraps: the oldest are forgotten, their bytes unknown, not given a later stamp */
	for (k = 0; k < RT_H2_ARRIVALS; k++)
		ll_h2_arrival_add(&a, 1200 + 10 * k, 100 + k);
	assert_int_equal(ll_h2_arrival_of(&a, 1099), 0);
	assert_int_equal(ll_h2_arrival_of(&a, 1162), 0);
	assert_int_equal(ll_h2_arrival_of(&a, 1163), 100);
	assert_int_equal(ll_h2_arrival_of(&a, 1205), 101);
	assert_int_equal(ll_h2_arrival_of(&a, 1200 + 10 * (RT_H2_ARRIVALS - 1) - 1), 100 + RT_H2_ARRIVALS - 1);
	/* the sequence numbers wrap */
	a = (struct rt_h2_arrivals){.next_seq = 0xffffff00u};
	ll_h2_arrival_add(&a, 0xfffffff0u, 1);
	ll_h2_arrival_add(&a, 0x20, 2);
	assert_int_equal(ll_h2_arrival_of(&a, 0xffffffffu), 2);
	assert_int_equal(ll_h2_arrival_of(&a, 0x1f), 2);
	assert_int_equal(ll_h2_arrival_of(&a, 0xffffff10u), 1);
	assert_int_equal(ll_h2_arrival_of(&a, 0x20), 0);
	assert_int_equal(ll_h2_arrival_of(&a, 0xfffffe00u), 0);
	/* an end behind the last (a stale call): none */
	ll_h2_arrival_add(&a, 0x10, 3);
	assert_int_equal(a.n, 2);
}

LL_TEST_MAIN(test_arrivals, test_preface, test_client_every_split, test_server_every_split, test_byte_by_byte,
	     test_lost, test_stream_frames, test_stream_places, test_client_frame_resync,
	     test_server_frame_resync, test_client_streams, test_preface_pieces, test_preface_words)
