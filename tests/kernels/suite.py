#!/usr/bin/python3
"""The kernel matrix's checks, run as root on the running kernel (inside a guest booted by
tools/kernels/guest.py test, or on the host itself):

1. check     loadlens-observer --check and --check=json exit 0 (the observer can run here);
2. count     2,000 TCP connections, one request each: accepted connections and requests counted
             three ways (driver, refserver, observer) must be equal and exact;
3. reqtime   request timing against the refserver's own clock at 1 ms and 5 ms of service (one
             worker, one request in flight): every request counted by all three, and the
             observer's service-time p50 within 2% of the server's own;
4. scenarios 5 healthy and 5 sick scenarios of tests/integration/scenarios, each judged by its
             harness exactly as on the host: the same verdict (healthy silent, sick fires the
             expected finding live, in time, naming the expected process or port).

No limit is loosened for an emulated CPU: these checks compare the observer with the server's
own clock and counts, not with wall-clock budgets. (The driver's own timing tests, whose limits
hold only on a real CPU, are not part of the matrix.)

    suite.py [--bin DIR] [--out DIR] [--only check,count,reqtime,scenarios]

Prints one line per check (ok / FAIL) and writes OUT/summary.json; exit 0 when every check
passed, 1 otherwise, 77 (with the reason) when not root.
"""
import argparse
import json
import os
import platform
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.normpath(os.path.join(HERE, "../.."))
HARNESS = os.path.join(SRC, "tests/integration/scenarios/harness.py")
# Quick scenarios (10-15 s each under TCG) that cover connections, the census, fds, the accept
# queue and request timing; none needs more than 2 CPUs or the host to itself.
SCENARIOS = [
	"healthy_keepalive_refserver", "healthy_short_run", "healthy_short_burst",
	"healthy_client_closes", "healthy_close_python",
	"sick_close_wait_leak", "sick_fin_wait2_orphans", "sick_fd_leak",
	"sick_listen_overflow", "sick_worker_saturation",
]
COUNT_N = 2000
# service time -> requests: about 1.5 s of service each
REQTIME = [("1ms", 1000000, 1500), ("5ms", 5000000, 300)]
REQTIME_PCT = 2.0


class Failed(Exception):
	pass


class Procs:
	"""Background processes of one check, their output in files, all stopped at the end."""

	def __init__(self, tmp):
		self.tmp, self.procs = tmp, {}

	def start(self, name, argv):
		out = open(os.path.join(self.tmp, name + ".out"), "w")
		err = open(os.path.join(self.tmp, name + ".err"), "w")
		self.procs[name] = subprocess.Popen(argv, stdout=out, stderr=err,
						    stdin=subprocess.DEVNULL)
		out.close()
		err.close()

	def err(self, name):
		with open(os.path.join(self.tmp, name + ".err"), errors="replace") as f:
			return f.read()

	def wait_for(self, name, pattern, secs):
		deadline = time.monotonic() + secs
		while time.monotonic() < deadline:
			if re.search(pattern, self.err(name)):
				return
			if self.procs[name].poll() is not None:
				break
			time.sleep(0.1)
		raise Failed("%s did not print '%s' within %d s (exit %s): %s" % (
			name, pattern, secs, self.procs[name].poll(), self.err(name)[-1500:]))

	def stop(self, name):
		p = self.procs.pop(name)
		p.send_signal(signal.SIGINT)
		try:
			rc = p.wait(20)
		except subprocess.TimeoutExpired:
			p.kill()
			p.wait()
			raise Failed("%s did not stop within 20 s of SIGINT" % name)
		if rc != 0:
			raise Failed("%s exited %d: %s" % (name, rc, self.err(name)[-1500:]))

	def close(self):
		for p in self.procs.values():
			p.kill()
			p.wait()
		self.procs = {}


def free_port():
	for _ in range(200):
		port = random.randrange(20000, 30000)
		with socket.socket() as s:
			try:
				s.bind(("127.0.0.1", port))
				return port
			except OSError:
				continue
	raise Failed("no free port")


def load(path):
	with open(path) as f:
		return json.load(f)


def cpu(n, argv):
	"""argv pinned to CPU n where there are two CPUs (server on 0, load on 1, as on the host)."""
	return ["taskset", "-c", str(n)] + argv if os.cpu_count() >= 2 else argv


def tcp_slot(obs):
	slots = [s for s in (obs.get("request_timing") or {}).get("slots", [])
		 if s.get("proto") == "tcp"]
	return slots[0] if slots else {}


def mechanism(procs, name):
	"""What the observer says it times requests with ('requests: ...' of its start line)."""
	m = re.search(r"requests: ([^;)]*)", procs.err(name))
	return m.group(1).strip() if m else "request timing off"


class Suite:
	def __init__(self, bindir, out):
		self.bin, self.out = bindir, out
		self.results = []

	def exe(self, name):
		return os.path.join(self.bin, "loadlens-" + name)

	def record(self, check, ok, detail, **figures):
		self.results.append(dict(check=check, ok=ok, detail=detail, **figures))
		print("%-4s %-34s %s" % ("ok" if ok else "FAIL", check, detail), flush=True)

	def run(self, check, fn, *args):
		t = time.monotonic()
		tmp = tempfile.mkdtemp(prefix="loadlens-kernels.", dir=self.out)
		procs = Procs(tmp)
		try:
			fn(check, procs, tmp, *args)
		except Failed as e:
			self.record(check, False, str(e))
		except (OSError, ValueError, subprocess.SubprocessError) as e:
			self.record(check, False, "%s: %s" % (type(e).__name__, e))
		finally:
			procs.close()
		self.results[-1]["wall_s"] = round(time.monotonic() - t, 1)

	# --- 1. check ---

	def check(self, check, procs, tmp):
		text = subprocess.run([self.exe("observer"), "--check"], stdout=subprocess.PIPE,
				      stderr=subprocess.STDOUT, text=True, timeout=120)
		with open(os.path.join(self.out, "check.txt"), "w") as f:
			f.write(text.stdout)
		js = subprocess.run([self.exe("observer"), "--check=json"], stdout=subprocess.PIPE,
				    stderr=subprocess.PIPE, text=True, timeout=120)
		with open(os.path.join(self.out, "check.json"), "w") as f:
			f.write(js.stdout)
		print(text.stdout, end="", flush=True)
		if text.returncode != 0:
			raise Failed("loadlens-observer --check exited %d" % text.returncode)
		if js.returncode != 0:
			raise Failed("--check=json exited %d: %s" % (js.returncode, js.stderr[-500:]))
		try:
			json.loads(js.stdout)
		except ValueError as e:
			raise Failed("--check=json is not JSON: %s" % e)
		self.record(check, True, "--check and --check=json exit 0 (check.txt, check.json)")

	# --- 2. three-way count ---

	def count(self, check, procs, tmp):
		port, n = free_port(), COUNT_N
		rs, obs, drv = (os.path.join(tmp, x + ".json") for x in ("rs", "obs", "drv"))
		procs.start("refserver", cpu(0, [self.exe("refserver"), "--proto", "tcp", "--listen",
						 "127.0.0.1:%d" % port, "--json", rs]))
		procs.wait_for("refserver", "listening", 30)
		procs.start("observer", [self.exe("observer"), "--port", str(port), "-i", "1s",
					 "--json", obs])
		procs.wait_for("observer", "observing", 90)
		d = subprocess.run(cpu(1, [self.exe("driver"), "tcp://127.0.0.1:%d" % port,
					   "--new-conn", "-c", "4", "-n", str(n), "-q", "--json", drv]),
				   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
				   timeout=300)
		if d.returncode != 0:
			raise Failed("the driver exited %d: %s" % (d.returncode, d.stdout[-800:]))
		time.sleep(1.5)  # the last closes reach the observer's next interval
		procs.stop("observer")
		procs.stop("refserver")
		drv, rs, obs = load(drv), load(rs), load(obs)
		figures = {
			"connections: driver": drv.get("connections"),
			"connections: refserver accepted": rs.get("connections_accepted"),
			"connections: observer accepted": obs.get("accepted"),
			"requests: driver": drv.get("requests"),
			"requests: refserver": rs.get("requests"),
			"requests: observer": tcp_slot(obs).get("requests"),
		}
		wrong = ["%s %s" % (k, v) for k, v in figures.items() if v != n]
		for k in ("drops", "lost_events"):
			if obs.get(k):
				wrong.append("observer %s %s" % (k, obs[k]))
		detail = "%d new connections: accepted %s = %s = %s, requests %s = %s = %s " \
			 "(driver = refserver = observer); timing by %s" % (
				 n, *figures.values(), mechanism(procs, "observer"))
		if wrong:
			raise Failed(detail + "; not %d: %s" % (n, ", ".join(wrong)))
		self.record(check, True, detail, figures=figures)

	# --- 3. request timing against the refserver's own clock ---

	def reqtime(self, check, procs, tmp, service, service_ns, n):
		port = free_port()
		rs, obs, drv = (os.path.join(tmp, x + ".json") for x in ("rs", "obs", "drv"))
		# SCHED_FIFO as on the host (tests/integration/lib.sh start_refserver_rt): no other
		# process preempts the server between the kernel's read and its own clock
		rt = ["chrt", "-f", "10"] if subprocess.run(["chrt", "-f", "10", "true"],
							     stderr=subprocess.DEVNULL).returncode == 0 \
			else []
		procs.start("refserver", rt + cpu(0, [
			self.exe("refserver"), "--proto", "tcp", "--listen", "127.0.0.1:%d" % port,
			"--service-time", service, "--workers", "1", "--json", rs]))
		procs.wait_for("refserver", "listening", 30)
		procs.start("observer", [self.exe("observer"), "--port", str(port), "-i", "1s",
					 "--json", obs])
		procs.wait_for("observer", "observing", 90)
		d = subprocess.run(cpu(1, [self.exe("driver"), "tcp://127.0.0.1:%d" % port, "-c",
					   "1", "-n", str(n), "-q", "--json", drv]),
				   stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
				   timeout=300)
		if d.returncode != 0:
			raise Failed("the driver exited %d: %s" % (d.returncode, d.stdout[-800:]))
		time.sleep(0.3)
		procs.stop("observer")
		procs.stop("refserver")
		drv, rs, obs = load(drv), load(rs), load(obs)
		slot = tcp_slot(obs)
		svc = slot.get("service_time") or {}
		counts = {"driver": drv.get("requests"), "refserver": rs.get("responses"),
			  "observer": slot.get("requests"), "observer timed": svc.get("count")}
		wrong = ["%s %s" % (k, v) for k, v in counts.items() if v != n]
		p50, ref = svc.get("p50"), (rs.get("service_time") or {}).get("p50")
		if not isinstance(p50, (int, float)) or not ref:
			raise Failed("no service time: observer p50 %s, refserver p50 %s (timing by %s)"
				     % (p50, ref, mechanism(procs, "observer")))
		dev = 100.0 * (p50 - ref) / ref
		p99, ref99 = svc.get("p99"), (rs.get("service_time") or {}).get("p99")
		detail = ("%s: %d requests counted by driver/refserver/observer %s/%s/%s; service "
			  "p50 %.3f ms vs the server's %.3f ms (%+.2f%%, limit ±%g%%), p99 %.3f vs "
			  "%.3f ms; timing by %s" % (
				  service, n, counts["driver"], counts["refserver"], counts["observer"],
				  p50 / 1e6, ref / 1e6, dev, REQTIME_PCT, (p99 or 0) / 1e6,
				  (ref99 or 0) / 1e6, mechanism(procs, "observer")))
		if wrong:
			raise Failed(detail + "; not %d: %s" % (n, ", ".join(wrong)))
		if abs(dev) > REQTIME_PCT:
			raise Failed(detail)
		self.record(check, True, detail, p50_ns=p50, server_p50_ns=ref, deviation_pct=dev,
			    p99_ns=p99, server_p99_ns=ref99)

	# --- 4. scenarios, judged by their own harness ---

	def scenario(self, check, procs, tmp, name):
		res_dir = os.path.join(self.out, "scenarios")
		env = dict(os.environ, LOADLENS_BIN=self.bin, LOADLENS_SCENARIO_RESULTS=res_dir)
		try:
			p = subprocess.run(["/usr/bin/python3", HARNESS, name], env=env,
					   stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
					   text=True, timeout=240)
		except subprocess.TimeoutExpired:
			raise Failed("the harness ran past 240 s")
		with open(os.path.join(res_dir, name + ".log"), "w") as f:
			f.write(p.stdout)
		try:
			res = load(os.path.join(res_dir, name + ".json"))
		except (OSError, ValueError):
			res = {}
		found = ", ".join(res.get("findings", [])) or "no finding"
		want = ", ".join(res.get("expect", [])) or "silent"
		if p.returncode != 0:
			fails = [l[6:] for l in p.stdout.splitlines() if l.startswith("FAIL: ")]
			raise Failed("%s (expected %s; got %s): %s" % (
				"skipped" if p.returncode == 77 else "exit %d" % p.returncode, want,
				found, "; ".join(fails) or p.stdout[-800:]))
		self.record(check, True, "expected %s; got %s" % (want, found),
			    findings=res.get("findings"), delay_s=res.get("delay_s"))


def main():
	ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
	ap.add_argument("--bin", default=os.environ.get("LOADLENS_BIN",
							os.path.join(SRC, "build/bin")))
	ap.add_argument("--out", default=None, help="results directory (default: a new one in "
			"/tmp)")
	ap.add_argument("--only", default="check,count,reqtime,scenarios")
	a = ap.parse_args()
	if os.geteuid() != 0:
		print("SKIP: needs root (BPF, network namespaces)")
		return 77
	only = set(a.only.split(","))
	out = os.path.abspath(a.out or tempfile.mkdtemp(prefix="loadlens-kernels."))
	os.makedirs(os.path.join(out, "scenarios"), exist_ok=True)
	s = Suite(os.path.abspath(a.bin), out)
	t = time.monotonic()
	print("kernel %s, %d CPUs, build %s" % (platform.release(), os.cpu_count(), s.bin),
	      flush=True)
	if "check" in only:
		s.run("check", s.check)
	if "count" in only:
		s.run("count three ways", s.count)
	if "reqtime" in only:
		for service, ns, n in REQTIME:
			s.run("request timing %s" % service, s.reqtime, service, ns, n)
	if "scenarios" in only:
		for name in SCENARIOS:
			s.run("scenario " + name, s.scenario, name)
	failed = [r["check"] for r in s.results if not r["ok"]]
	summary = {"kernel": platform.release(), "cpus": os.cpu_count(),
		   "wall_s": round(time.monotonic() - t, 1), "passed": len(s.results) - len(failed),
		   "failed": failed, "results": s.results}
	with open(os.path.join(out, "summary.json"), "w") as f:
		json.dump(summary, f, indent=1)
	for d in os.listdir(out):  # the checks' temp dirs (their outputs are in the results)
		if d.startswith("loadlens-kernels.") and not failed:
			shutil.rmtree(os.path.join(out, d), ignore_errors=True)
	print("%s: %d of %d checks passed in %.0f s%s (%s)" % (
		platform.release(), summary["passed"], len(s.results), summary["wall_s"],
		"; FAILED: " + ", ".join(failed) if failed else "", out), flush=True)
	return 1 if failed else 0


if __name__ == "__main__":
	sys.exit(main())
