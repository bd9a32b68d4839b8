#!/usr/bin/python3
"""An independent reader of HdrHistogram interval logs, written from the format's published
specification (HdrHistogram's "Histogram log format" and the V2 encoding), standard library only.

Usage: hdrlog_decode.py LOG -> JSON on stdout:
  {"start_time", "base_time", "intervals": [{"start", "length", "max_ms", "count"}],
   "params": {...}, "total": {"count", "buckets": {index: count}, "p50", "p90", "p99", "p999"}}
Percentiles are HdrHistogram's: the first index whose cumulative count reaches
ceil(p/100 * total), reported as the lowest and highest value equivalent to that index.
"""
import base64
import json
import math
import struct
import sys
import zlib

V2 = 0x1C849303
V2_COMPRESSED = 0x1C849304


def cookie_base(c):
    return c & ~0xF0


def zigzag_leb128(buf, pos):
    """One ZigZag LEB128-64b9B value: 8 bytes of 7 bits, a 9th of 8 bits."""
    value = shift = 0
    for i in range(9):
        b = buf[pos]
        pos += 1
        if i == 8:
            value |= b << 56
            break
        value |= (b & 0x7F) << shift
        shift += 7
        if not b & 0x80:
            break
    return (value >> 1) ^ -(value & 1), pos


def decode(blob):
    c, length = struct.unpack(">ii", blob[:8])
    if cookie_base(c) != V2_COMPRESSED:
        raise ValueError("not a V2 compressed histogram: cookie %#x" % c)
    raw = zlib.decompress(blob[8:8 + length])
    c, plen, norm, digits, lowest, highest, ratio = struct.unpack(">iiiiqqd", raw[:40])
    if cookie_base(c) != V2:
        raise ValueError("not a V2 histogram: cookie %#x" % c)
    counts, pos, idx = {}, 40, 0
    while pos < 40 + plen:
        v, pos = zigzag_leb128(raw, pos)
        if v < 0:
            idx += -v
        else:
            if v:
                counts[idx] = counts.get(idx, 0) + v
            idx += 1
    params = {"digits": digits, "lowest": lowest, "highest": highest, "norm": norm,
              "ratio": ratio}
    return params, counts


def layout(params):
    """Sub-bucket geometry from the parameters, as HdrHistogram derives it."""
    largest_single = 2 * 10 ** params["digits"]
    sub_mag = int(math.ceil(math.log2(largest_single)))
    half_mag = max(sub_mag, 1) - 1
    unit_mag = int(math.floor(math.log2(params["lowest"])))
    return half_mag, unit_mag


def index_range(i, half_mag, unit_mag):
    """[lowest, highest] value equivalent to counts index i."""
    half = 1 << half_mag
    bucket = (i >> half_mag) - 1
    sub = (i & (half - 1)) + half
    if bucket < 0:
        sub -= half
        bucket = 0
    low = sub << (bucket + unit_mag)
    return low, low + (1 << (bucket + unit_mag)) - 1


def main():
    start = base = None
    intervals, total, params = [], {}, None
    for line in open(sys.argv[1]):
        line = line.strip()
        if line.startswith("#[StartTime: "):
            start = float(line[len("#[StartTime: "):].split()[0])
        elif line.startswith("#[BaseTime: "):
            base = float(line[len("#[BaseTime: "):].split()[0])
        elif not line or line.startswith("#") or line.startswith('"StartTimestamp"'):
            continue
        else:
            fields = line.split(",")
            if fields[0].startswith("Tag="):
                fields = fields[1:]
            t, length, mx, b64 = fields
            params, counts = decode(base64.b64decode(b64))
            for k, v in counts.items():
                total[k] = total.get(k, 0) + v
            intervals.append({"start": float(t), "length": float(length), "max_ms": float(mx),
                              "count": sum(counts.values())})
    n = sum(total.values())
    out = {"start_time": start, "base_time": base, "intervals": intervals, "params": params,
           "total": {"count": n, "buckets": {str(k): v for k, v in sorted(total.items())}}}
    if params and n:
        half_mag, unit_mag = layout(params)
        out["half_mag"] = half_mag
        for name, p in (("p50", 50), ("p90", 90), ("p99", 99), ("p999", 99.9)):
            rank, seen = max(1, math.ceil(p / 100 * n)), 0
            for k in sorted(total):
                seen += total[k]
                if seen >= rank:
                    out["total"][name] = index_range(k, half_mag, unit_mag)
                    break
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
