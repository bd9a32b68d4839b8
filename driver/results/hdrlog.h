/* SPDX-License-Identifier: MIT */
/*
 * --hdr-log FILE: the HdrHistogram interval log (format version 1.3): a header with
 * #[StartTime: ...] and #[BaseTime: ...], then one line per interval,
 * "start,length,max,base64(V2 compressed histogram)", start and length in seconds from BaseTime,
 * max in milliseconds (the value unit ratio HdrHistogram's log writer uses by default).
 *
 * The conversion is exact: an HdrHistogram with 1 ns units, lowest discernible value 1, 2
 * significant digits and highest trackable value 2^38-1 has 256 sub-buckets (128 per half) and
 * exactly our buckets (include/loadlens/hist.h): counts index i of one is bucket i of the other.
 */
#ifndef LOADLENS_DRV_HDRLOG_H
#define LOADLENS_DRV_HDRLOG_H

#include <stddef.h>
#include <stdint.h>
#include "loadlens/ll_hist.h"

#define DRV_HDR_COOKIE_V2 0x1c849313	       /* V2 encoding (base 0x1c849303 | 0x10) */
#define DRV_HDR_COOKIE_V2_COMPRESSED 0x1c849314 /* V2 compressed (base 0x1c849304 | 0x10) */
#define DRV_HDR_SIG_DIGITS 2
#define DRV_HDR_HEADER 40

struct drv_hdrlog;

/* Take fd, write the header; NULL on allocation failure (fd closed). */
struct drv_hdrlog *drv_hdrlog_new(int fd, uint64_t start_unix_ns);
/* One interval line: start and length in ns from the start. 0 or -errno (counted, not fatal). */
int drv_hdrlog_interval(struct drv_hdrlog *l, uint64_t start_ns, uint64_t len_ns,
			const struct ll_hist *h);
/* Close the file: 0 or the first write error (-errno). */
int drv_hdrlog_free(struct drv_hdrlog *l);

/* Pure: the V2 (uncompressed) encoding of h into buf; its length, or 0 if cap is too small. */
size_t drv_hdr_encode_v2(const struct ll_hist *h, uint8_t *buf, size_t cap);
/* Pure: the V2 compressed encoding (zlib) of h; its length, or 0 on failure. */
size_t drv_hdr_encode_compressed(const struct ll_hist *h, uint8_t *buf, size_t cap,
				 uint8_t *tmp, size_t tmp_cap);
/* Pure: standard base64 of in[0..n) into out (4 * ceil(n / 3) + 1 bytes), NUL-terminated. */
size_t drv_base64(const uint8_t *in, size_t n, char *out);

#endif /* LOADLENS_DRV_HDRLOG_H */
