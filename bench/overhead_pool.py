#!/usr/bin/python3
"""Pool the paired rounds that bench/reqtime_overhead.sh kept with TSV=FILE (several runs in one
file, or several files): per load, each setting's throughput loss and CPU-a-request increase
against the same round's run without the observer ("off"), and against FLOOR ("floor", the no-op
programs) where both ran; the median of the pairs and its 95% bootstrap interval.

    bench/overhead_pool.py FILE... [--against floor]
"""
import argparse
import random
import statistics as st


def bootstrap(v, k=4000):
	"""95% bootstrap interval of the median of v (fixed seed: the same file, the same figures)."""
	rng = random.Random(1)
	m = sorted(st.median(rng.choices(v, k=len(v))) for _ in range(k))
	return m[int(0.025 * k)], m[int(0.975 * k)]


def read(paths):
	"""{(run, load, port, round): {setting: (req/s, server+wrk CPU us a request, server's)}}"""
	rounds = {}
	for path in paths:
		with open(path) as f:
			for line in f:
				c = line.rstrip("\n").split("\t")
				if len(c) != 6:
					continue
				rps, n, scpu, ccpu = map(float, c[5].split())
				rounds.setdefault(tuple(c[:4]), {})[c[4]] = (
					rps, 1e6 * (scpu + ccpu) / n, 1e6 * scpu / n)
	return rounds


def main():
	ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
	ap.add_argument("files", nargs="+")
	ap.add_argument("--against", default="floor", help="a second baseline (default: floor)")
	a = ap.parse_args()
	rounds = read(a.files)
	for load in sorted({k[1] for k in rounds}):
		by = [d for k, d in rounds.items() if k[1] == load]
		settings = sorted({s for d in by for s in d} - {"off"})
		for base in ("off", a.against):
			for s in settings:
				pairs = [d for d in by if s in d and base in d and s != base]
				if not pairs:
					continue
				loss = [100 * (1 - d[s][0] / d[base][0]) for d in pairs]
				cpu = [100 * (d[s][1] / d[base][1] - 1) for d in pairs]
				srv = [d[s][2] - d[base][2] for d in pairs]
				print("%s: %s against %s, %d pairs: loss %.1f%% [95%% %.1f..%.1f]; CPU a request "
				      "%+.1f%% [%.1f..%.1f]; the server's %+.2f us [%+.2f..%+.2f]" % (
					      load, s, base, len(pairs), st.median(loss), *bootstrap(loss),
					      st.median(cpu), *bootstrap(cpu), st.median(srv), *bootstrap(srv)))


if __name__ == "__main__":
	main()
