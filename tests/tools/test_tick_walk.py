# SPDX-License-Identifier: MIT
"""tools/tick_walk.py on hand-written strace logs of an instrumented observer: a healthy walk
passes; a read in the features phase, a folder entered twice, no tick at all fail, each named."""
import os
import sys
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools"))
import tick_walk  # noqa: E402

# a line a function: its offset (hex), name and source file
SYMBOL_LINES = """\
100 main /src/observer/main.c
110 interval /src/observer/main.c
120 wait_signal /src/observer/main.c
130 read_all /src/observer/obs_run.c
200 obs_sources_read /src/observer/sources/read.c
300 tick /src/observer/features/connections.c
310 tick /src/observer/features/requests.c
400 obs_record_write /src/observer/output/ndjson.c
500 obs_findings_tick /src/observer/rules/findings_run.c
600 obs_mx_src_tick /src/observer/metrics/metrics_src.c
700 obs_systier_tick /src/observer/kernel/systier.c
800 ll_warn /src/lib/cli.c
"""
SYMS = tick_walk.Symbols({int(off, 16): (name, path)
			  for off, name, path in map(str.split, SYMBOL_LINES.splitlines())})

# tests/data/tick_walk_healthy.strace: main waits, then two ticks: sources (read through
# obs_run.c's read_all), features, output, rules, metrics, and the loop's syscall tier switch; the
# reader thread 51 reads all along; the last tick's summary (features, rules) comes after its
# return and is no tick
HEALTHY_LOG = os.path.join(os.path.dirname(__file__), "..", "data", "tick_walk_healthy.strace")
with open(HEALTHY_LOG, encoding="utf-8") as f:
	HEALTHY = f.read()

# a read of /proc/net/netstat and a map lookup in the features phase of the first tick
READ_IN_FEATURES = """\
50 10:00:01.001150 pread64(6</proc/50/net/netstat>, "TcpExt: SyncookiesSent", 16383, 0) = 419
50 10:00:01.001160 bpf(BPF_MAP_LOOKUP_ELEM, {map_fd=7<anon_inode:bpf-map>}, 32) = 0
"""

# the loop waits again after the second tick: its summary (features, rules) is then in it
WAIT_AFTER_SUMMARY = """\
50 10:00:02.001650 write(-1, "walk enter 120", 14) = -1 EBADF (Bad file descriptor)
50 10:00:02.001660 rt_sigtimedwait([INT TERM], NULL, NULL, 8) = 2
50 10:00:02.001670 write(-1, "walk exit 120", 13) = -1 EBADF (Bad file descriptor)
"""

# a directory of /proc listed by the interval itself, after the rules' phase
READ_BY_INTERVAL = """\
50 10:00:01.002750 getdents64(8</proc/50/fd>, 0x55, 32768) = 0
"""


def walk(log):
	return tick_walk.walk(tick_walk.parse(log.splitlines(True)), SYMS)


def sick(lines, after):
	"""HEALTHY with lines put after its line that begins with after."""
	i = HEALTHY.index("\n", HEALTHY.index("\n" + after) + 1) + 1
	return HEALTHY[:i] + lines + HEALTHY[i:]


class TickWalkTest(unittest.TestCase):
	def test_healthy_walk_passes(self):
		ticks = walk(HEALTHY)
		self.assertEqual(tick_walk.check(ticks, 2), [])
		self.assertEqual(len(ticks), 2)
		first = ticks[0].phases()
		# the top-level read_all is walked through, a call outside the observer (lib/) is
		# in no folder; the loop's switch of the syscall tier (kernel/) after the interval
		# is in the tick, its wait is not
		self.assertEqual([(p.folder, p.names) for p in first], [
			("sources", ["obs_sources_read"]),
			("features", ["connections.c:tick", "requests.c:tick"]),
			("output", ["obs_record_write"]),
			(None, ["ll_warn"]),
			("rules", ["obs_findings_tick"]),
			("metrics", ["obs_mx_src_tick"]),
			("kernel", ["obs_systier_tick"]),
		])
		# the reader thread's reads and the split write are not the main thread's; the wait
		# inside the read phase does not end the tick
		self.assertEqual(dict(first[0].reads), {"bpf(MAP_LOOKUP_BATCH)": 1, "sendto": 1,
							"recvmsg": 1, "pread64": 1})
		# /dev/urandom and the time zone are not the kernel's state; the NDJSON is a write
		self.assertEqual(dict(first[1].others), {"openat": 1, "read": 1})
		self.assertEqual(dict(first[2].others), {"openat": 1, "read": 1, "write": 1})
		self.assertEqual(dict(first[3].others), {"write": 1})
		# the syscall tier's child is asked on a UNIX socket: no read of the kernel's state
		self.assertEqual(dict(first[6].others), {"write": 1, "read": 1})
		# the last tick ends at the interval's return: the summary after it is no tick
		self.assertEqual([p.folder for p in ticks[1].phases()],
				 ["sources", "features", "output", "rules"])

	def test_read_in_features_phase_fails(self):
		log = sick(READ_IN_FEATURES, "50 10:00:01.001100")
		self.assertEqual(tick_walk.check(walk(log)), [
			"tick 1: reads after the read phase, in features/ (connections.c:tick, "
			"requests.c:tick): bpf(MAP_LOOKUP_ELEM) 1, pread64 1",
		])

	def test_folder_entered_twice_fails(self):
		log = sick(WAIT_AFTER_SUMMARY, "50 10:00:02.001600")
		self.assertEqual(tick_walk.check(walk(log)), [
			"tick 2: features/ entered 2 times: "
			"sources > features > output > rules > features > rules",
			"tick 2: rules/ entered 2 times: "
			"sources > features > output > rules > features > rules",
			"tick 2: reads after the read phase, in features/ (connections.c:tick): "
			"bpf(OBJ_GET_INFO_BY_FD) 1",
		])

	def test_read_by_top_level_code_after_the_read_phase_fails(self):
		log = sick(READ_BY_INTERVAL, "50 10:00:01.002700")
		self.assertEqual(tick_walk.check(walk(log)), [
			"tick 1: reads after the read phase, in (top) (interval): getdents64 1",
		])

	def test_no_tick_fails(self):
		log = "".join(l + "\n" for l in HEALTHY.splitlines() if "walk" not in l)
		self.assertEqual(walk(log), [])
		self.assertEqual(tick_walk.check([], 1), [
			"0 ticks found, 1 expected: is the binary loadlens-observer-walk, and did "
			"it run its interval?",
		])

	def test_reads_of_the_kernel_state(self):
		kind = tick_walk.read_kind
		self.assertEqual(kind("bpf", "BPF_MAP_LOOKUP_ELEM, {map_fd=3}, 32"),
				 "bpf(MAP_LOOKUP_ELEM)")
		self.assertEqual(kind("openat", 'AT_FDCWD</>, "/proc/net/netstat", 0'), "openat")
		self.assertEqual(kind("openat", '5</proc/50>, "fd", O_RDONLY'), "openat")
		self.assertEqual(kind("openat", 'AT_FDCWD</>, "/etc/services", O_RDONLY'), None)
		self.assertEqual(kind("read", "3</sys/fs/cgroup/cpu.stat>, 0x1, 10"), "read")
		self.assertEqual(kind("read", "3<pipe:[12]>, 0x1, 10"), None)
		self.assertEqual(kind("read", "3, 0x1, 10"), "read")  # not named: counted
		self.assertEqual(kind("sendto", "6<TCP:[1.2.3.4:80->5.6.7.8:9]>, 0x1, 3, 0"), None)
		self.assertEqual(kind("recvfrom", "4<NETLINK:[ROUTE:50]>, 0x1, 3, 0"), "recvfrom")
		self.assertEqual(kind("ioctl", "3<anon_inode:bpf-link>, 0x1"), None)

	def test_folders_of_files(self):
		self.assertEqual(tick_walk.folder_of("/x/observer/sources/census.c"), "sources")
		self.assertEqual(tick_walk.folder_of("/x/observer/main.c"), ".")
		self.assertEqual(tick_walk.folder_of("/x/lib/cli.c"), None)
		self.assertEqual(tick_walk.folder_of("??"), None)


if __name__ == "__main__":
	unittest.main()
