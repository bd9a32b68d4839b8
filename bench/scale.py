#!/usr/bin/python3
"""N idle connections on one host: one loadlens-driver command opens them against
nginx, holds them, and the observer counts them.

Everything runs in a network namespace of its own (its port range, somaxconn); fs.file-max is
raised only when the run needs it, and put back. nginx runs enough workers (reuseport) that none
holds more than NGINX_PER_WORKER connections: root has no CAP_SYS_RESOURCE here, so no process
holds more than the hard RLIMIT_NOFILE (20,000) fds; the driver spreads its connections over
worker processes of its own for the same reason (-p, automatic).

Each second: the driver's RSS and PSS (all its processes), the observer's CPU, `ss -s` of the
namespace and the observer's counts (its NDJSON record of that interval: the census when one
was taken, else the live counts from the state moves and their error bound). Once the hold
begins every interval must match `ss` exactly. Afterwards a second observer is started on the
held connections to time a census of all of them (its first), and the kernel's memory per
socket is read from /proc/meminfo and /proc/slabinfo.

usage: bench/scale.py [--bin build/bin] N [N...]   (e.g. 10000 100000 1000000)
Prints a Markdown block for BENCHMARKS.md; exit 1 if a count did not match.
"""
import argparse
import json
import math
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

# a process's children, as the scenario harness reads them (tests/integration/scenarios/sandbox.py)
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
				"integration", "scenarios"))
from sandbox import children  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
# connections per nginx worker on average: reuseport's hash spreads them unevenly, and a worker at
# its worker_connections (19,900 of its 20,000 fds) closes idle keep-alive connections to reuse
# them (a 54-worker run lost 576 of 1M that way)
NGINX_PER_WORKER = 17000
SOURCES = int(os.environ.get("SCALE_SOURCES", "64"))  # 127.0.0.2 ..: every one adds a port range
CONNECT_RATE = os.environ.get("SCALE_CONNECT_RATE", "20k")
HOLD_S = int(os.environ.get("SCALE_HOLD_S", "60"))

NGINX_CONF = """daemon off;
master_process on;
worker_processes {workers};
worker_rlimit_nofile 20000;
pid {dir}/nginx.pid;
error_log {dir}/error.log warn;
events {{ worker_connections {wconn}; accept_mutex off; }}
http {{
	access_log off;
	keepalive_requests 1000000;
	keepalive_timeout 3600s;
	client_header_timeout 3600s;
	send_timeout 3600s;
	client_body_temp_path {dir}/tmp/body;
	proxy_temp_path {dir}/tmp/proxy;
	fastcgi_temp_path {dir}/tmp/fastcgi;
	uwsgi_temp_path {dir}/tmp/uwsgi;
	scgi_temp_path {dir}/tmp/scgi;
	server {{
		listen 127.0.0.1:{port} backlog=65535 reuseport;
		location / {{ return 200 "hello, scale\\n"; }}
	}}
}}
"""

SLABS = ("TCP", "TCPv6", "request_sock_TCP", "sock_inode_cache", "filp", "dentry",
	 "eventpoll_epi", "eventpoll_pwq", "kmalloc-64", "kmalloc-128", "kmalloc-192",
	 "kmalloc-256", "kmalloc-512", "kmalloc-1k", "skbuff_head_cache", "ep_head")


def sh(*argv, **kw):
	return subprocess.run(list(argv), check=True, capture_output=True, text=True, **kw).stdout


def meminfo():
	out = {}
	for line in open("/proc/meminfo"):
		k, v = line.split(":")
		out[k] = int(v.split()[0]) * 1024
	return out


def slabinfo():
	out = {}
	for line in open("/proc/slabinfo"):
		f = line.split()
		if f and f[0] in SLABS:
			out[f[0]] = (int(f[1]), int(f[3]))  # active objects, object size
	return out


def tree(pid):
	out, todo = [], [pid]
	while todo:
		p = todo.pop()
		out.append(p)
		todo += children(p)
	return out


def rss_pss(pids):
	rss = pss = 0
	for p in pids:
		try:
			for line in open("/proc/%d/smaps_rollup" % p):
				if line.startswith("Rss:"):
					rss += int(line.split()[1]) * 1024
				elif line.startswith("Pss:"):
					pss += int(line.split()[1]) * 1024
		except OSError:
			pass
	return rss, pss


def cpu_s(pid):
	try:
		f = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
	except OSError:
		return None
	return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")


def ss_counts(ns):
	"""The namespace's TCP sockets by state, from `ss -s` (/proc/net/sockstat: no walk)."""
	out = sh("ip", "netns", "exec", ns, "ss", "-s")
	m = re.search(r"TCP:\s+(\d+) \(estab (\d+), closed (\d+), orphaned (\d+), timewait (\d+)\)",
		      out)
	return {"total": int(m.group(1)), "estab": int(m.group(2)),
		"timewait": int(m.group(5))}


def fds(pid):
	try:
		return len(os.listdir("/proc/%d/fd" % pid))
	except OSError:
		return None


def last_record(path, pos):
	"""New interval records of the observer's NDJSON since byte pos."""
	recs = []
	try:
		with open(path) as f:
			f.seek(pos)
			data = f.read()
	except OSError:
		return recs, pos
	end = data.rfind("\n") + 1
	for line in data[:end].splitlines():
		try:
			r = json.loads(line)
		except ValueError:
			continue
		if r.get("type") == "interval":
			recs.append(r)
	return recs, pos + len(data[:end].encode())


def sysctl_set(path, value, saved):
	with open(path) as f:
		saved[path] = f.read().strip()
	with open(path, "w") as f:
		f.write(str(value))


class Run:
	def __init__(self, n, bindir):
		self.n = n
		self.bin = bindir
		self.ns = "llscale%d" % os.getpid()
		self.tmp = tempfile.mkdtemp(prefix="llscale.")
		self.procs = []
		self.saved = {}

	def spawn(self, argv, out, netns=True):
		pre = ["ip", "netns", "exec", self.ns] if netns else []
		p = subprocess.Popen(pre + argv, stdout=open(out, "w"), stderr=subprocess.STDOUT,
				     start_new_session=True)
		self.procs.append(p)
		return p

	def setup(self):
		sh("ip", "netns", "add", self.ns)
		sh("ip", "-n", self.ns, "link", "set", "lo", "up")
		for k, v in (("net.ipv4.ip_local_port_range", "1024 65535"),
			     ("net.core.somaxconn", "65535"),
			     ("net.ipv4.tcp_max_syn_backlog", "65535")):
			sh("ip", "netns", "exec", self.ns, "sysctl", "-qw", "%s=%s" % (k, v))
		nr, _, mx = (int(x) for x in open("/proc/sys/fs/file-nr").read().split())
		need = 2 * self.n + 100000
		if nr + need > mx:  # host-wide: put back at the end
			sysctl_set("/proc/sys/fs/file-max", nr + need + 500000, self.saved)
		self.port = 8080

	def start_nginx(self):
		d = os.path.join(self.tmp, "nginx")
		os.makedirs(os.path.join(d, "tmp"))
		self.workers = max(2, math.ceil(self.n / NGINX_PER_WORKER) + 1)
		with open(os.path.join(d, "nginx.conf"), "w") as f:
			f.write(NGINX_CONF.format(workers=self.workers, dir=d, port=self.port,
						  wconn=19900))
		self.nginx = self.spawn(["nginx", "-p", d, "-e", d + "/error.log", "-c",
					 d + "/nginx.conf"], os.path.join(self.tmp, "nginx.out"))
		for _ in range(200):
			if len(children(self.nginx.pid)) >= self.workers:
				break
			time.sleep(0.05)
		self.nginx_workers = children(self.nginx.pid)

	def start_observer(self, name, duration=None):
		argv = [os.path.join(self.bin, "loadlens-observer"), "--port", str(self.port),
			"--pid", str(self.nginx.pid), "--children", "-i", "1s",
			"--ndjson", os.path.join(self.tmp, name + ".ndjson"),
			"--json", os.path.join(self.tmp, name + ".json")]
		if duration:
			argv += ["-d", duration]
		p = self.spawn(argv, os.path.join(self.tmp, name + ".out"))
		path = os.path.join(self.tmp, name + ".ndjson")
		for _ in range(300):  # attached: its first record
			if os.path.exists(path) and os.path.getsize(path):
				break
			time.sleep(0.1)
		return p

	def run(self):
		out = {"n": self.n}
		self.setup()
		self.start_nginx()
		obs = self.start_observer("observer")
		mem0, slab0 = meminfo(), slabinfo()
		srcs = ",".join("127.0.0.%d" % i for i in range(2, 2 + SOURCES))
		rate = float(CONNECT_RATE.rstrip("kM")) * {"k": 1e3, "M": 1e6}.get(
			CONNECT_RATE[-1], 1)
		ramp = self.n / rate
		# -d only bounds the run: the driver is stopped (SIGINT: it still reports) HOLD_S after
		# every connection is up, however long the ramp took on a busy machine
		dur = "%ds" % int(3 * ramp + 120 + HOLD_S)
		cmd = [os.path.join(self.bin, "loadlens-driver"), "http://127.0.0.1:%d/" % self.port,
		       "-c", str(self.n), "-d", dur, "--delay", "3600s", "--connect-rate", CONNECT_RATE,
		       "--timeout", "600s",
		       "--source-addr", srcs, "--json", os.path.join(self.tmp, "driver.json")]
		out["command"] = "loadlens-driver " + " ".join(cmd[1:-2])
		t0 = time.monotonic()
		drv = self.spawn(cmd, os.path.join(self.tmp, "driver.out"))
		pos, samples, hold_t = 0, [], None
		ocpu0 = cpu_s(obs.pid)
		while drv.poll() is None:
			time.sleep(1)
			t = time.monotonic() - t0
			pids = tree(drv.pid)
			rss, pss = rss_pss(pids)
			ss = ss_counts(self.ns)
			recs, pos = last_record(os.path.join(self.tmp, "observer.ndjson"), pos)
			s = {"t": t, "rss": rss, "pss": pss, "procs": len(pids), "ss": ss,
			     "obs_cpu": cpu_s(obs.pid), "recs": recs,
			     "fds": {w: fds(w) for w in self.nginx_workers}}
			samples.append(s)
			if hold_t is None and ss["estab"] >= 2 * self.n:
				hold_t = t
				out["ramp_s"] = t
				mem1, slab1 = meminfo(), slabinfo()
				out["hold_cpu0"] = cpu_s(obs.pid)
			if hold_t is not None and t - hold_t >= HOLD_S * 0.5 and "census" not in out:
				out["census"] = self.census_probe()
			if hold_t is not None and t - hold_t >= HOLD_S and "stopped_t" not in out:
				out["stopped_t"] = t
				drv.send_signal(signal.SIGINT)
		out["driver_rc"] = drv.returncode
		out["samples"] = samples
		out["hold_t"] = hold_t
		if hold_t is not None:
			out["mem"] = {k: mem1[k] - mem0[k] for k in ("MemAvailable", "Slab", "SUnreclaim",
								       "Percpu", "KernelStack")}
			out["slab"] = {k: (slab1[k][0] - slab0.get(k, (0, 0))[0], slab1[k][1])
				       for k in slab1}
		try:
			out["driver"] = json.load(open(os.path.join(self.tmp, "driver.json")))
		except (OSError, ValueError):
			out["driver"] = None
		out["driver_out"] = open(os.path.join(self.tmp, "driver.out")).read()[-3000:]
		obs.send_signal(signal.SIGINT)
		obs.wait(timeout=60)
		try:
			out["observer"] = json.load(open(os.path.join(self.tmp, "observer.json")))
		except (OSError, ValueError):
			out["observer"] = None
		return out

	def census_probe(self):
		"""The census alone, three times on the held sockets (user and kernel CPU apart); then
		a second observer on them: its first census walks all of them."""
		# built with the observer (observer/CMakeLists.txt): 3 runs with each mechanism
		tool = os.path.join(self.bin, "census_time")
		self.census_runs = [json.loads(l) for l in sh(
			"ip", "netns", "exec", self.ns, tool, str(self.port), "-n", "3").splitlines()
			if l.startswith("{")]
		p = self.start_observer("probe", duration="4s")
		p.wait(timeout=120)
		try:
			j = json.load(open(os.path.join(self.tmp, "probe.json")))
		except (OSError, ValueError):
			return None
		recs, _ = last_record(os.path.join(self.tmp, "probe.ndjson"), 0)
		first = next((r for r in recs if r.get("census")), None)
		return {"runs": self.census_runs,
			"took_ms": first["census"]["took_ms"] if first else None,
			"sockets": first["census"]["sockets"] if first else None,
			"established": first["census"].get("ESTABLISHED") if first else None,
			"summary": j.get("forensics", j).get("census_ms_max") if isinstance(j, dict)
			else None}

	def cleanup(self):
		for p in reversed(self.procs):
			if p.poll() is None:
				try:
					os.killpg(p.pid, signal.SIGTERM)
				except OSError:
					pass
		for p in self.procs:
			try:
				p.wait(timeout=30)
			except subprocess.TimeoutExpired:
				os.killpg(p.pid, signal.SIGKILL)
				p.wait()
		subprocess.run(["ip", "netns", "del", self.ns], capture_output=True)
		for path, v in self.saved.items():
			with open(path, "w") as f:
				f.write(v)
		shutil.rmtree(self.tmp, ignore_errors=True)


def check(out):
	"""Every interval of the hold: the observer's ESTABLISHED equals ss; returns mismatches."""
	bad, checked = [], 0
	for s in out["samples"]:
		if out["hold_t"] is None or s["t"] < out["hold_t"] + 2 or \
				s["ss"]["estab"] != 2 * out["n"]:
			continue  # the ramp and the close: ss and the record are not one instant
		for r in s["recs"]:
			c = r.get("census") or r.get("live")
			if not c:
				continue
			checked += 1
			if c.get("ESTABLISHED") != s["ss"]["estab"] or (
					r.get("live_error") not in (0, None)):
				bad.append((round(s["t"], 1), c.get("ESTABLISHED"), s["ss"]["estab"],
					    r.get("live_error")))
			for f in r.get("fds") or []:  # the nginx workers' fds against /proc
				if f["pid"] in s["fds"] and f["open"] != s["fds"][f["pid"]]:
					bad.append((round(s["t"], 1), "fds", f["pid"], f["open"],
						    s["fds"][f["pid"]]))
	return checked, bad


def report(out):
	n = out["n"]
	hold = [s for s in out["samples"] if out["hold_t"] is not None and
		s["t"] >= out["hold_t"] + 2 and s["t"] <= out.get("stopped_t", 1e9) and
		s["ss"]["estab"] >= 2 * n]
	peak_rss = max((s["rss"] for s in hold), default=0)
	peak_pss = max((s["pss"] for s in hold), default=0)
	cpu = [(s["t"], s["obs_cpu"]) for s in hold if s["obs_cpu"] is not None]
	obs_pct = (cpu[-1][1] - cpu[0][1]) / (cpu[-1][0] - cpu[0][0]) * 100 if len(cpu) > 1 else None
	checked, bad = check(out)
	censuses = [r["census"] for s in out["samples"] for r in s["recs"] if r.get("census")]
	deferred = sum(1 for s in out["samples"] for r in s["recs"] if r.get("census_deferred"))
	lines = ["| connections | %d (%d sockets) |" % (n, 2 * n),
		 "| ramp (connect-rate %s) | %.1f s |" % (CONNECT_RATE, out.get("ramp_s") or -1),
		 "| held (all %d up, then SIGINT) | %.0f s, sampled %d times; %d processes |" % (
			 2 * n, (out.get("stopped_t") or 0) - (out["hold_t"] or 0), len(hold),
			 max((s["procs"] for s in hold), default=0)),
		 "| driver RSS, all processes | %.1f MB = **%d B per connection** |" % (
			 peak_rss / 1e6, peak_rss / n),
		 "| driver PSS, all processes | %.1f MB = %d B per connection |" % (
			 peak_pss / 1e6, peak_pss / n),
		 "| observer CPU while held | %s |" % ("%.2f%% of one CPU" % obs_pct
						      if obs_pct is not None else "n/a"),
		 "| observer = ss -s, every interval of the hold | %d of %d intervals%s |" % (
			 checked - len(bad), checked, (": mismatches %s" % bad[:5]) if bad else ""),
		 "| censuses taken / deferred | %d / %d; slowest %.0f ms |" % (
			 len(censuses), deferred, max((c["took_ms"] for c in censuses), default=0)),
		 ]
	c = out.get("census")
	if c:
		lines.append("| census of all held sockets (second observer's first) | %s ms for "
			     "%s sockets (ESTABLISHED %s) |" % (
				     "%.0f" % c["took_ms"] if c["took_ms"] else "?", c["sockets"],
				     c["established"]))
	if out.get("mem"):
		m = out["mem"]
		lines.append("| kernel: MemAvailable fell by | %.2f GB = %d B per socket (driver and "
			     "nginx userspace included) |" % (-m["MemAvailable"] / 1e9,
							     -m["MemAvailable"] / (2 * n)))
		lines.append("| kernel: Slab grew by | %.2f GB = %d B per socket |" % (
			m["Slab"] / 1e9, m["Slab"] / (2 * n)))
		per = sorted(((d * sz, k, d, sz) for k, (d, sz) in out["slab"].items() if d > 0),
			     reverse=True)
		lines.append("| slabs per socket | %s |" % ", ".join(
			"%s %.0f B" % (k, b / (2 * n)) for b, k, d, sz in per[:6]))
	for r in (c or {}).get("runs", []):
		lines.append("| census alone (bench/census_time.c, %s) | %d sockets: %.0f ms wall, "
			     "%.0f ms user + %.0f ms kernel CPU |" % (r.get("mech", "sock_diag"),
				r["sockets"], r["wall_ms"], r["user_ms"], r["sys_ms"]))
	d = out.get("driver")
	if d:
		lines.append("| driver result | %d connections opened, %d requests, %d errors, "
			     "%d processes |" % (d["connections"], d["requests"], d["errors_total"],
						 d.get("procs", 1)))
	o = out.get("observer")
	if o:
		lines.append("| observer summary | %s |" % json.dumps(
			{k: v for k, v in o.get("forensics", o).items()
			 if k in ("censuses", "census_deferred", "census_max", "targets_full",
				  "port_groups_capped", "lost",
				  "reconcile_max_diff", "live_error_max")}))
	return lines, bad


def main():
	ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
	ap.add_argument("--bin", default=os.path.join(HERE, "..", "build", "bin"))
	ap.add_argument("--raw", help="write every sample as JSON to this file")
	ap.add_argument("n", nargs="+", type=int)
	a = ap.parse_args()
	if os.geteuid():
		print("bench/scale.py: run as root (network namespace, sysctls, BPF)")
		return 64
	rc, raw = 0, []
	for n in a.n:
		r = Run(n, os.path.abspath(a.bin))
		try:
			out = r.run()
		finally:
			r.cleanup()
		raw.append(out)
		lines, bad = report(out)
		print("\n#### %d connections\n\n| | |\n|---|---|" % n)
		print("\n".join(lines))
		print("\ncommand: `%s`" % out["command"])
		sys.stdout.flush()
		rc |= 1 if bad or not out.get("hold_t") else 0
	if a.raw:
		with open(a.raw, "w") as f:
			json.dump(raw, f)
	return rc


if __name__ == "__main__":
	sys.exit(main())
