// SPDX-License-Identifier: MIT
/* The HdrHistogram interval log writer (hdrlog.h); the encoding from the format's specification. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>
#include "results/hdrlog.h"

/* a count takes at most 9 bytes (ZigZag LEB128 of 64 bits); a run of zeros one count */
#define HDR_RAW_CAP (DRV_HDR_HEADER + (size_t)LL_HIST_BUCKETS * 9)

struct drv_hdrlog {
	FILE *f;
	uint8_t *raw;
	uint8_t *z;
	size_t z_cap;
	char *b64;
	int err;
};

static uint8_t *be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
	return p + 4;
}

static uint8_t *be64(uint8_t *p, uint64_t v)
{
	p = be32(p, (uint32_t)(v >> 32));
	return be32(p, (uint32_t)v);
}

/* ZigZag, then LEB128 of at most 9 bytes (the 9th holds 8 bits). */
static uint8_t *zz(uint8_t *p, int64_t v)
{
	uint64_t u = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
	int i;

	for (i = 0; i < 8 && u >= 0x80; i++) {
		*p++ = (uint8_t)(u | 0x80);
		u >>= 7;
	}
	*p++ = (uint8_t)u;
	return p;
}

size_t drv_hdr_encode_v2(const struct ll_hist *h, uint8_t *buf, size_t cap)
{
	uint8_t *p = buf + DRV_HDR_HEADER;
	uint64_t conv;
	double one = 1.0;
	int64_t zeros = 0;
	uint32_t i, last = 0;
	bool any = false;

	if (cap < HDR_RAW_CAP)
		return 0;
	for (i = 0; i < LL_HIST_BUCKETS; i++)
		if (h->counts[i]) {
			last = i;
			any = true;
		}
	for (i = 0; any && i <= last; i++) {
		if (!h->counts[i]) {
			zeros++;
			continue;
		}
		if (zeros)
			p = zz(p, zeros > 1 ? -zeros : 0);
		zeros = 0;
		p = zz(p, (int64_t)(h->counts[i] > INT64_MAX ? INT64_MAX : h->counts[i]));
	}
	memcpy(&conv, &one, sizeof(conv));
	be32(buf, DRV_HDR_COOKIE_V2);
	be32(buf + 4, (uint32_t)(p - buf - DRV_HDR_HEADER)); /* payload length */
	be32(buf + 8, 0);					/* normalizing index offset */
	be32(buf + 12, DRV_HDR_SIG_DIGITS);
	be64(buf + 16, 1);			 /* lowest discernible value */
	be64(buf + 24, LL_HIST_MAX_VALUE);	 /* highest trackable value */
	be64(buf + 32, conv);		 /* integer to double conversion ratio */
	return (size_t)(p - buf);
}

size_t drv_hdr_encode_compressed(const struct ll_hist *h, uint8_t *buf, size_t cap,
				 uint8_t *tmp, size_t tmp_cap)
{
	size_t n = drv_hdr_encode_v2(h, tmp, tmp_cap);
	uLongf zlen;

	if (!n || cap < 8)
		return 0;
	zlen = (uLongf)(cap - 8);
	if (compress2(buf + 8, &zlen, tmp, (uLong)n, Z_DEFAULT_COMPRESSION) != Z_OK)
		return 0;
	be32(buf, DRV_HDR_COOKIE_V2_COMPRESSED);
	be32(buf + 4, (uint32_t)zlen);
	return 8 + (size_t)zlen;
}

size_t drv_base64(const uint8_t *in, size_t n, char *out)
{
	static const char a[] =
		"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	size_t i, o = 0;
	uint32_t v;

	for (i = 0; i + 2 < n; i += 3) {
		v = (uint32_t)in[i] << 16 | (uint32_t)in[i + 1] << 8 | in[i + 2];
		out[o++] = a[v >> 18];
		out[o++] = a[(v >> 12) & 63];
		out[o++] = a[(v >> 6) & 63];
		out[o++] = a[v & 63];
	}
	if (i < n) {
		v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0);
		out[o++] = a[v >> 18];
		out[o++] = a[(v >> 12) & 63];
		out[o++] = i + 1 < n ? a[(v >> 6) & 63] : '=';
		out[o++] = '=';
	}
	out[o] = '\0';
	return o;
}

struct drv_hdrlog *drv_hdrlog_new(int fd, uint64_t start_unix_ns)
{
	struct drv_hdrlog *l = calloc(1, sizeof(*l));
	double start = (double)start_unix_ns / 1e9;
	char date[64];
	time_t t = (time_t)(start_unix_ns / 1000000000ULL);
	struct tm tm;

	if (l) {
		l->f = fdopen(fd, "w");
		l->z_cap = compressBound(HDR_RAW_CAP) + 8;
		l->raw = malloc(HDR_RAW_CAP);
		l->z = malloc(l->z_cap);
		l->b64 = malloc(l->z_cap / 3 * 4 + 8);
	}
	if (!l || !l->f || !l->raw || !l->z || !l->b64) {
		if (l && l->f)
			fclose(l->f);
		else
			close(fd);
		if (l) {
			free(l->raw);
			free(l->z);
			free(l->b64);
			free(l);
		}
		return NULL;
	}
	gmtime_r(&t, &tm);
	strftime(date, sizeof(date), "%a %b %d %H:%M:%S UTC %Y", &tm);
	fprintf(l->f, "#[loadlens-driver: latency from the intended send, values in ns, "
		      "Interval_Max in ms]\n");
	fprintf(l->f, "#[Histogram log format version 1.3]\n");
	fprintf(l->f, "#[StartTime: %.3f (seconds since epoch), %s]\n", start, date);
	fprintf(l->f, "#[BaseTime: %.3f (seconds since epoch)]\n", start);
	fprintf(l->f, "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
		      "\"Interval_Compressed_Histogram\"\n");
	fflush(l->f);
	return l;
}

int drv_hdrlog_interval(struct drv_hdrlog *l, uint64_t start_ns, uint64_t len_ns,
			const struct ll_hist *h)
{
	size_t n = drv_hdr_encode_compressed(h, l->z, l->z_cap, l->raw, HDR_RAW_CAP);

	if (!n)
		return l->err ? l->err : (l->err = -ENOMEM);
	drv_base64(l->z, n, l->b64);
	if (fprintf(l->f, "%.3f,%.3f,%.3f,%s\n", (double)start_ns / 1e9, (double)len_ns / 1e9,
		    (double)ll_hist_max(h) / 1e6, l->b64) < 0 && !l->err)
		l->err = -errno;
	if (fflush(l->f) && !l->err)
		l->err = -errno;
	return l->err;
}

int drv_hdrlog_free(struct drv_hdrlog *l)
{
	int err;

	if (!l)
		return 0;
	err = l->err;
	if (fclose(l->f) && !err)
		err = -errno;
	free(l->raw);
	free(l->z);
	free(l->b64);
	free(l);
	return err;
}
