#!/usr/bin/env python3
"""The kernel x arch x feature table of the README, from runs: each column is one kernel's
`loadlens-observer --check` as the kernel matrix recorded it (tests/kernels/suite.py writes it
to OUT/summary.json, the check's `mechanisms`), or the host's own `--check=json`.

    feature_table.py [--host CHECK_JSON] SUMMARY_JSON|CHECK_JSON...

Prints a Markdown table: a row a feature, a column a kernel (arch, series), each cell the
mechanism that kernel's run chose, in a few words, or "off". Nothing is guessed: a kernel that
was not run has no column.
"""
import argparse
import json
import re
import sys

# The check's mechanism texts, in a few words each (the first pattern that matches names it);
# a text none matches is shown as it is.
SHORT = [
	(r"^tp_btf sock:inet_sock_set_state", "tp_btf"),
	(r"^bpf_rdonly_cast", "kfunc loads"),
	(r"^bpf_probe_read_kernel", "helper reads"),
	(r"^sk_storage", "sk_storage"),
	(r"^bounded hashes", "bounded hash"),
	(r"^tracepoints sock:", "sock: tracepoints"),
	(r"^fentry sock_def_readable", "fentry/fexit"),
	(r"^uprobes on libssl", "libssl uprobes"),
	(r"^the socket hooks on the plaintext a kTLS server", "socket hooks"),
	(r"^bpf_task_pt_regs", "user registers"),
	(r"^the kernel stack's saved registers", "kernel stack registers"),
	(r"^frame walk.*bpf_task_pt_regs", "frame walk (user registers)"),
	(r"^frame walk.*kernel stack", "frame walk (kernel stack registers)"),
	(r"^tracepoint syscalls:sys_exit_accept4", "syscall tier"),
	(r"^tracepoints syscalls:", "syscall tier"),
	(r"^tp_btf skb:kfree_skb", "kfree_skb reason"),
	(r"^tp_btf tcp:", "tp_btf"),
	(r"^BPF task and task_file iterators", "task_file iterator"),
	(r"^BPF tcp iterator", "tcp iterator"),
]


def short(mechanism):
	"""A mechanism's text in a few words; None (the feature is off) -> 'off'."""
	if not mechanism:
		return "off"
	for pattern, words in SHORT:
		if re.search(pattern, mechanism):
			return words
	return mechanism


def label(release, machine=None):
	"""'6.1.0-56-amd64' -> 'x86-64 6.1'; '6.12.57+deb13-arm64' -> 'arm64 6.12'; a release with
	no Debian arch suffix takes MACHINE (uname -m) for its arch."""
	m = re.match(r"(\d+\.\d+)", release)
	series = m.group(1) if m else release
	if re.search(r"(amd64|x86_64)$", release) or (machine == "x86_64" and
						       not re.search(r"(arm64|ppc64|powerpc)", release)):
		arch = "x86-64"
	elif re.search(r"arm64$", release) or machine == "aarch64":
		arch = "arm64"
	elif re.search(r"(ppc64(el|le)?|powerpc64le)$", release) or machine == "ppc64le":
		arch = "ppc64le"
	else:
		arch = machine or "?"
	return "%s %s" % (arch, series)


def column_of_summary(summary):
	"""(label, {feature: mechanism}) from a kernel matrix run's summary.json; None where its
	check did not run or did not pass."""
	for r in summary.get("results", []):
		if r.get("check") == "check" and r.get("ok") and "mechanisms" in r:
			return label(summary.get("kernel", "?"), summary.get("machine")), r["mechanisms"]
	return None


def column_of_check(check, machine):
	"""(label, {feature: mechanism}) from `loadlens-observer --check=json`."""
	mech = {f["feature"]: (f.get("mechanism") if f.get("ok") else None)
		for f in check.get("features", [])}
	return label(check.get("kernel", "?"), machine), mech


def series_key(col):
	arch, _, ver = col[0].partition(" ")
	nums = tuple(int(x) for x in re.findall(r"\d+", ver))
	return (arch != "x86-64", arch, nums)


def table(columns):
	"""Markdown lines: a row a feature (in the first column's order, then any others), a column
	a kernel, sorted by arch (x86-64 first) then version."""
	columns = sorted(columns, key=series_key)
	features = []
	for _, mech in columns:
		features += [f for f in mech if f not in features]
	lines = ["| feature | " + " | ".join(c[0] for c in columns) + " |",
		 "|---|" + "---|" * len(columns)]
	for f in features:
		cells = [short(mech[f]) if f in mech else "-" for _, mech in columns]
		lines.append("| %s | %s |" % (f, " | ".join(cells)))
	return lines


def main(argv):
	ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
	ap.add_argument("--host", metavar="CHECK_JSON", help="this host's loadlens-observer "
			"--check=json output, as a column")
	ap.add_argument("--host-machine", default="x86_64", help="the host's uname -m")
	ap.add_argument("summaries", nargs="*", metavar="SUMMARY_JSON")
	a = ap.parse_args(argv)
	columns = []
	try:
		for path in a.summaries:
			with open(path) as f:
				js = json.load(f)
			# a run's summary.json, or the check.json a guest run keeps beside it
			col = (column_of_check(js, None) if "features" in js else
			       column_of_summary(js))
			if col:
				columns.append(col)
			else:
				print("feature_table.py: %s: no passed check with mechanisms" % path,
				      file=sys.stderr)
		if a.host:
			with open(a.host) as f:
				columns.append(column_of_check(json.load(f), a.host_machine))
	except (OSError, ValueError) as e:
		print("feature_table.py: %s" % e, file=sys.stderr)
		return 64
	if not columns:
		print("feature_table.py: no column: give a summary.json or --host", file=sys.stderr)
		return 64
	print("\n".join(table(columns)))
	return 0


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
