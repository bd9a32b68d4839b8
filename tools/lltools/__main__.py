# SPDX-License-Identifier: MIT
"""loadlens run | sweep | doctor | report | demo: the front command's logic (tools/loadlens)."""

import argparse
import os
import sys
import tempfile
import traceback

from . import join, procs, schema, units, verdict

EXIT_USAGE = 64

HELP = """\
loadlens - the client's round trip and the server's kernel view, joined per load level

Usage: loadlens run TARGET [-c LIST | --rate LIST] [-d DUR] [options] [-- DRIVER-OPTIONS]
       loadlens sweep TARGET [--max-c N | --rates LIST] [--p99-bound DUR] [options] [-- ...]
       loadlens doctor [--rate R --new-conn ... | --driver 'loadlens-driver ...'] [--json]
       loadlens report FILE.json... [-o report.html]
       loadlens demo

run     starts loadlens-observer on the target's port (root), then loadlens-driver (never as
        root: as the sudo user, else nobody) once per load level, and prints the client's round
        trip beside the server's accept-queue wait, socket-queue wait, service time and
        residence; the remainder (round trip - residence) is the network and the client.
sweep   steps concurrency 1, 2, 4 ... or the rate until throughput plateaus or p99 passes a
        bound; says the peak at acceptable latency, the knee, and what ran out first.
doctor  this host's limits, the observer's tracepoints, and what a planned load breaks first.
report  a self-contained HTML page with plots from run, sweep or observer JSON.

Run 'loadlens COMMAND --help' for a command's options.

Examples:
  loadlens run http://127.0.0.1:8080/ -c 1,4,16 -d 5s --json run.json
  loadlens run tcp://127.0.0.1:7000 --rate 500,1000,2000 -c 64 -- --size 128
  loadlens run http://10.0.0.5/ -c 50 --observer-json server-observer.json
  loadlens sweep http://127.0.0.1:8080/ --max-c 64 --p99-bound 20ms
  loadlens doctor --rate 60k --new-conn --duration 10m
  loadlens doctor --driver 'loadlens-driver tcp://10.0.0.5:7000 -c 200 --rate 60k --new-conn'
  loadlens report run.json -o run.html
"""


class Usage(Exception):
	pass


class Parser(argparse.ArgumentParser):
	def error(self, message):
		raise Usage(f"{self.prog}: {message}")


def split_extra(argv):
	if "--" in argv:
		i = argv.index("--")
		return argv[:i], argv[i + 1:]
	return argv, []


def common(p, default_duration):
	p.add_argument("target", help="driver target URL: tcp://, udp://, http://, https://")
	p.add_argument("-d", "--duration", default=default_duration,
		       help=f"per load level (default {default_duration})")
	p.add_argument("--port", type=int, help="server port the observer watches (default: the "
		       "target's)")
	p.add_argument("--observer-json", action="append", metavar="FILE",
		       help="a separate observer's --json summary, once per load level in order "
		       "(for a remote server); no local observer is started")
	p.add_argument("--no-runq", action="store_true",
		       help="no run-queue wait (observer --runq runs on every context switch)")
	p.add_argument("--out", help="directory for every file (default: a new /tmp/loadlens-*)")
	p.add_argument("--json", metavar="FILE", help="write the joined result as JSON")
	p.add_argument("--report", metavar="FILE", help="HTML report (default OUT/report.html)")
	p.add_argument("--no-report", action="store_true")


def context(a, extra):
	try:
		port, proto = schema.target_port_proto(a.target)
		units.duration_s(a.duration)
	except (schema.SchemaError, ValueError) as e:
		raise Usage(str(e)) from None
	if a.port:
		port = a.port
	out = a.out or tempfile.mkdtemp(prefix="loadlens-")
	os.makedirs(out, exist_ok=True)
	for path in (a.json, a.report):
		if path:
			try:
				open(path, "a").close()
			except OSError as e:
				raise Usage(f"cannot write {path}: {e.strerror}") from None
	if a.observer_json:
		for f in a.observer_json:
			if not os.access(f, os.R_OK):
				raise Usage(f"cannot read --observer-json {f}")
	observe = not a.observer_json
	if observe and os.geteuid() != 0:
		raise Usage("the observer needs root: run with sudo, or pass --observer-json FILE from "
			    "an observer run on the server")
	ident = procs.driver_identity()
	ctx = {"target": a.target, "port": port, "proto": proto, "duration": a.duration,
	       "extra": extra, "out": out, "observe": observe, "runq": not a.no_runq,
	       "observer_jsons": a.observer_json, "ident": ident,
	       "driver_timeout": units.duration_s(a.duration) + 60}
	ctx["driver_dir"] = procs.driver_dir(ident)
	return ctx


def finish(kind, ctx, a, doc, text):
	from . import run as runmod
	path = a.json or os.path.join(ctx["out"], f"{kind}.json")
	runmod.write_json(doc, path)
	print(text)
	print(f"\njoined JSON: {path}")
	if not a.no_report:
		rep = a.report or os.path.join(ctx["out"], "report.html")
		try:
			from . import report
			report.write([doc], rep, os.path.join(ctx["out"], "png"))
			print(f"report: {rep}")
		except ImportError as e:
			print(f"report: not written ({e}; install python3-matplotlib)")


def cmd_run(argv):
	argv, extra = split_extra(argv)
	p = Parser(prog="loadlens run", description="observer + driver per load level, joined")
	common(p, "5s")
	p.add_argument("-c", "--connections", default=None, help="list of concurrency levels "
		       "(default 1,4,16; with --rate: one count, default 64)")
	p.add_argument("--rate", help="list of open-loop rates (req/s): one level each")
	a = p.parse_args(argv)
	levels = make_levels(a.connections, a.rate, "1,4,16")
	if a.observer_json and len(a.observer_json) != len(levels):
		raise Usage(f"--observer-json given {len(a.observer_json)} times for {len(levels)} "
			    "load levels (one per level)")
	ctx = context(a, extra)
	from . import run as runmod
	banner(ctx, f"{len(levels)} load level(s) of {a.duration}")
	try:
		got = runmod.run_levels(ctx, levels, procs.say)
	finally:
		procs.remove_driver_dir(ctx["driver_dir"])
	doc = runmod.document("run", ctx, got)
	finish("run", ctx, a, doc, join.table(got) + findings_text(got))
	return 0


def make_levels(conns, rates, default_conns):
	try:
		if rates:
			r = units.num_list(rates)
			c = units.int_list(conns or "64")
			if len(c) != 1:
				raise Usage("with --rate, -c is one count (the connections of every level)")
			return [{"connections": c[0], "rate": x} for x in r]
		return [{"connections": x, "rate": None} for x in units.int_list(conns or default_conns)]
	except ValueError as e:
		raise Usage(str(e)) from None


def banner(ctx, what):
	who = f"as {ctx['ident'][2]}" if ctx["ident"] else "as this user"
	obs = ("observer JSON from --observer-json" if ctx["observer_jsons"] else
	       f"observer on {ctx['proto']} port {ctx['port']}")
	procs.say(f"{ctx['target']}: {what}; {obs}; driver runs {who}; files in {ctx['out']}")


def findings_text(levels):
	lines = []
	other = 0
	for lv in levels:
		for f in lv.get("findings") or []:
			if f["severity"] not in ("warning", "critical"):
				continue
			if not verdict.concerns(f, lv):
				other += 1
				continue
			lines.append(f"  {join.level_name(lv['level'])}: [{f['kind']}] {f['text']}")
	if other:
		lines.append(f"  ({other} finding(s) about other ports or host-wide counters left out; "
			     "they are in the JSON)")
	return ("\n\nobserver findings:\n" + "\n".join(lines)) if lines else ""


def cmd_sweep(argv):
	argv, extra = split_extra(argv)
	p = Parser(prog="loadlens sweep", description="step the load until a plateau or a bound")
	common(p, "3s")
	p.add_argument("--max-c", type=int, default=64, help="closed loop: 1, 2, 4 ... up to N "
		       "(default 64)")
	p.add_argument("-c", "--connections", help="closed loop: explicit concurrency steps, or "
		       "with --rates the connections of every step (default 64)")
	p.add_argument("--rates", help="open loop: explicit rate steps (req/s)")
	p.add_argument("--rate-start", help="open loop: first rate, doubled each step")
	p.add_argument("--rate-max", help="open loop: last rate (with --rate-start)")
	p.add_argument("--p99-bound", default="100ms", help="acceptable p99 round trip "
		       "(default 100ms)")
	p.add_argument("--time-limit", default="3m", help="the whole sweep (default 3m)")
	a = p.parse_args(argv)
	try:
		bound = units.duration_s(a.p99_bound) * 1e9
		limit = units.duration_s(a.time_limit)
		if a.rate_start:
			if not a.rate_max:
				raise Usage("--rate-start needs --rate-max")
			rates = ",".join(f"{x:g}" for x in units.doubling(units.number(a.rate_start),
									  units.number(a.rate_max)))
			levels = make_levels(a.connections, rates, None)
		elif a.rates:
			levels = make_levels(a.connections, a.rates, None)
		else:
			if a.max_c < 1:
				raise Usage("--max-c must be at least 1")
			levels = make_levels(a.connections, None, ",".join(
				str(x) for x in units.doubling(1, a.max_c)))
	except ValueError as e:
		raise Usage(str(e)) from None
	if a.observer_json and len(a.observer_json) < len(levels):
		raise Usage(f"--observer-json given {len(a.observer_json)} times for up to "
			    f"{len(levels)} steps (one per step)")
	ctx = context(a, extra)
	from . import run as runmod
	per = units.duration_s(a.duration)
	banner(ctx, f"sweep of up to {len(levels)} steps of {a.duration} (at most about "
		    f"{min(limit, len(levels) * (per + 1.5)):.0f} s, time limit {a.time_limit}); "
		    f"stops at a plateau or p99 > {a.p99_bound}")
	try:
		got, why = runmod.sweep_levels(ctx, levels, bound, limit, procs.say)
	finally:
		procs.remove_driver_dir(ctx["driver_dir"])
	v = verdict.verdict(got, bound)
	v["stopped_because"] = why
	doc = runmod.document("sweep", ctx, got, {"verdict": v})
	text = join.table(got) + findings_text(got)
	text += "\n\nsweep stopped: " + why + "\n" + "\n".join(verdict.describe(v, join.level_name))
	finish("sweep", ctx, a, doc, text)
	return 0


def cmd_report(argv):
	p = Parser(prog="loadlens report", description="HTML page with plots from JSON files")
	p.add_argument("files", nargs="+", help="loadlens run/sweep JSON, or observer JSON "
		       "(its --ndjson next to it as NAME.ndjson is used for the time series)")
	p.add_argument("-o", "--output", default="report.html")
	p.add_argument("--png-dir", help="also write each plot as a PNG file here")
	p.add_argument("--ndjson", action="append", default=[], help="observer NDJSON for the "
		       "time series")
	a = p.parse_args(argv)
	try:
		open(a.output, "a").close()
	except OSError as e:
		raise Usage(f"cannot write {a.output}: {e.strerror}") from None
	from . import report
	docs = []
	for f in a.files:
		try:
			docs.append(report.as_document(schema.load(f), f, a.ndjson))
		except schema.SchemaError as e:
			raise Usage(str(e)) from None
	report.write(docs, a.output, a.png_dir)
	print(f"report: {a.output}")
	return 0


def cmd_doctor(argv):
	from . import doctor
	return doctor.main(argv, Parser, Usage)


def cmd_demo(argv):
	from . import demo
	return demo.main(argv)


COMMANDS = {"run": cmd_run, "sweep": cmd_sweep, "doctor": cmd_doctor, "report": cmd_report,
	    "demo": cmd_demo}


def main(argv):
	if not argv or argv[0] in ("-h", "--help", "help"):
		print(HELP, end="")
		return 0
	cmd = COMMANDS.get(argv[0])
	if not cmd:
		print(f"loadlens: unknown command '{argv[0]}' (run, sweep, doctor, report, demo)",
		      file=sys.stderr)
		return EXIT_USAGE
	try:
		return cmd(argv[1:])
	except Usage as e:
		print(f"loadlens {argv[0]}: {e}" if not str(e).startswith("loadlens") else str(e),
		      file=sys.stderr)
		return EXIT_USAGE
	except procs.RunError as e:
		print(f"loadlens {argv[0]}: {e}", file=sys.stderr)
		return 1
	except schema.SchemaError as e:
		print(f"loadlens {argv[0]}: {e}", file=sys.stderr)
		return 1
	except KeyboardInterrupt:
		print(f"loadlens {argv[0]}: interrupted", file=sys.stderr)
		return 130
	except Exception as e:  # a bug: one line with where it happened, unless LOADLENS_DEBUG
		if os.environ.get("LOADLENS_DEBUG"):
			raise
		tb = traceback.extract_tb(e.__traceback__)[-1]
		print(f"loadlens {argv[0]}: internal error: {type(e).__name__}: {e} (at "
		      f"{os.path.basename(tb.filename)}:{tb.lineno}; LOADLENS_DEBUG=1 shows the "
		      "traceback)", file=sys.stderr)
		return 1


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
