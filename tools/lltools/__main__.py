# SPDX-License-Identifier: MIT
"""loadlens run | sweep | doctor | report | demo: the front command's logic (tools/loadlens)."""

import argparse
import os
import sys
import tempfile
import traceback

from . import driver_inputs, files, join, procs, schema, units, verdict
from .shown import lines as shown_lines, shown

EXIT_USAGE = 64
EXIT_NOTHING_ANSWERED = 2  # run/sweep: no request succeeded at any level (the files are written)

HELP = """\
loadlens - the client's round trip and the server's kernel view, joined per load level

Usage: loadlens run TARGET [-c LIST | --rate LIST] [-d DUR] [options] [-- DRIVER-OPTIONS]
       loadlens sweep TARGET [--max-c N | --rates LIST] [--p99-bound DUR] [options] [-- ...]
       loadlens doctor [--rate R --new-conn ... | --driver 'loadlens-driver ...'] [--json]
                       [-- TARGET DRIVER-OPTIONS]
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

Exit status: 0 ok; 1 a child failed (the message names it); 2 run or sweep: no request
succeeded at any level (the table, the JSON and the report say what failed instead); 64 bad
input, in one line.

Examples:
  loadlens run http://127.0.0.1:8080/ -c 1,4,16 -d 5s --json run.json
  loadlens run tcp://127.0.0.1:7000 --rate 500,1000,2000 -c 64 -- --size 128
  loadlens run http://10.0.0.5/ -c 50 --observer-json server-observer.json
  loadlens sweep http://127.0.0.1:8080/ --max-c 64 --p99-bound 20ms
  loadlens doctor --rate 60k --new-conn --duration 10m
  loadlens doctor --driver 'loadlens-driver tcp://10.0.0.5:7000 -c 200 --rate 60k --new-conn'
  loadlens doctor -- tcp://10.0.0.5:7000 -c 50k -d 10m --connect-rate 500
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
	p.add_argument("target", help="driver target URL: tcp://, udp://, http://, https://, "
		       "grpc://, grpcs://, ldap:// (protocol options after --)")
	p.add_argument("-d", "--duration", default=default_duration,
		       help=f"per load level (default {default_duration})")
	p.add_argument("--port", type=port_arg, help="server port the observer watches (default: the "
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


MAX_CONNECTIONS = 1_000_000  # the driver's -c limit
MAX_RATE = 1e8  # the driver's --rate limit
MAX_DURATION_S = 86400.0


def port_arg(text):
	"""argparse type: a port number, 1-65535."""
	if not text.strip().isdigit() or not 0 < int(text) < 65536:
		raise argparse.ArgumentTypeError(f"bad port '{text}' (1-65535)")
	return int(text)


def driver_checked(a, levels, extra):
	"""Each level's driver command line checked by the driver itself (loadlens-driver
	--print-plan): an option it refuses is a usage error in its own words, before any work."""
	from . import run as runmod
	for level in levels:
		try:
			procs.driver_plan(runmod.driver_args(a.target, level, a.duration, extra))
		except ValueError as e:  # procs.PlanRefused: the driver's line, or no driver
			raise Usage(f"driver options: {e}") from None


def context(a, extra, levels):
	"""Every argument checked, every input read and every output place checked, before any
	work and before anything is written; then the output directory is made."""
	try:
		port, proto = schema.target_port_proto(a.target)
		units.duration_in(a.duration, 0.001, MAX_DURATION_S)
	except (schema.SchemaError, ValueError) as e:
		raise Usage(str(e)) from None
	if a.port:
		port = a.port
	if a.observer_json:
		for f in a.observer_json:
			try:
				schema.check_observer(schema.load(f), f)
			except schema.SchemaError as e:
				raise Usage(f"--observer-json {e}") from None
	observe = not a.observer_json
	if observe and os.geteuid() != 0:
		raise Usage("the observer needs root: run with sudo, or pass --observer-json FILE from "
			    "an observer run on the server")
	if a.out and os.path.lexists(a.out) and not os.path.isdir(a.out):
		raise Usage(f"--out {shown(a.out)}: it exists and is not a directory")
	for what, path in (("--json", a.json), ("--report", a.report)):
		if not path:
			continue
		parent = os.path.dirname(path) or "."
		if a.out and not os.path.exists(parent) and os.path.abspath(parent) == \
				os.path.abspath(a.out):
			continue  # in the --out directory, made below
		try:
			files.check_output(path, what)
		except files.FileError as e:
			raise Usage(str(e)) from None
	driver_checked(a, levels, extra)
	ident = procs.driver_identity()
	work = procs.driver_dir(ident)
	try:
		staged, copied = driver_inputs.stage(extra, work, ident)
		out = files.ensure_dir(a.out, "--out", follow=True) if a.out else \
			tempfile.mkdtemp(prefix="loadlens-")
	except (driver_inputs.InputError, files.FileError) as e:
		procs.remove_driver_dir(work)
		raise Usage(str(e)) from None
	for opt, path in copied:
		procs.say(f"{opt} {shown(path)}: copied where the driver's user ({ident[2]}) can read it")
	return {"target": a.target, "port": port, "proto": proto, "duration": a.duration,
		"extra": staged, "out": out, "observe": observe, "runq": not a.no_runq,
		"observer_jsons": a.observer_json, "ident": ident, "driver_dir": work,
		"driver_timeout": units.duration_s(a.duration) + 60}


def finish(kind, ctx, a, doc, text):
	from . import run as runmod
	path = a.json or os.path.join(ctx["out"], f"{kind}.json")
	runmod.write_json(doc, path, ours=not a.json)
	print(shown_lines(text))  # process names and findings come from other users' processes
	print(f"\njoined JSON: {path}")
	if not a.no_report:
		rep = a.report or os.path.join(ctx["out"], "report.html")
		try:
			from . import report
			png = files.ensure_dir(os.path.join(ctx["out"], "png"), "png directory")
			report.write([doc], rep, png, ours=not a.report)
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
	ctx = context(a, extra, levels)
	from . import run as runmod
	banner(ctx, f"{len(levels)} load level(s) of {a.duration}")
	try:
		got = runmod.run_levels(ctx, levels, procs.say)
	finally:
		procs.remove_driver_dir(ctx["driver_dir"])
	failed = verdict.nothing_answered(got)
	doc = runmod.document("run", ctx, got, {"failed": failed})
	finish("run", ctx, a, doc, join.table(got) + outcome_text(got, failed))
	return EXIT_NOTHING_ANSWERED if failed else 0


def make_levels(conns, rates, default_conns):
	try:
		if rates:
			# a list of numbers (sweep's doubling), or the command line's text
			r = rates if isinstance(rates, list) else units.num_list(rates, MAX_RATE)
			if max(r) > MAX_RATE:
				raise ValueError(f"a rate above {MAX_RATE:,.0f} req/s")
			c = units.int_list("64" if conns is None else conns, MAX_CONNECTIONS)
			if len(c) != 1:
				raise Usage("with --rate, -c is one count (the connections of every level)")
			return [{"connections": c[0], "rate": x} for x in r]
		return [{"connections": x, "rate": None}
			for x in units.int_list(default_conns if conns is None else conns,
						MAX_CONNECTIONS)]
	except ValueError as e:
		raise Usage(str(e)) from None


def banner(ctx, what):
	"""One line before the run; arguments in it escaped and cut (shown.py)."""
	who = f"as {shown(ctx['ident'][2])}" if ctx["ident"] else "as this user"
	obs = ("observer JSON from --observer-json" if ctx["observer_jsons"] else
	       f"observer on {ctx['proto']} port {ctx['port']}")
	procs.say(f"{shown(ctx['target'])}: {what}; {obs}; driver runs {who}; files in "
		  f"{shown(ctx['out'])}")


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
			lines.append(f"  {join.level_name(lv['level'])}: [{shown(f['kind'])}] "
				     f"{shown(f['text'], 2000)}")
	if other:
		lines.append(f"  ({other} finding(s) about other ports or host-wide counters left out; "
			     "they are in the JSON)")
	return ("\n\nobserver findings:\n" + "\n".join(lines)) if lines else ""


def outcome_text(levels, failed):
	"""The findings under the table; when nothing answered, the failure and every finding
	about the port instead (a note such as no_listener is the answer then)."""
	if not failed:
		return findings_text(levels)
	return "\n\n" + "\n".join(shown(x, 2000) for x in verdict.describe_failure(failed))


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
		bound = units.duration_in(a.p99_bound, 1e-6, MAX_DURATION_S) * 1e9
		limit = units.duration_s(a.time_limit)
		if limit <= 0:
			raise Usage(f"--time-limit {a.time_limit}: the sweep needs more than 0 s")
		if a.rate_max and not a.rate_start:
			raise Usage("--rate-max needs --rate-start")
		if a.rate_start:
			if not a.rate_max:
				raise Usage("--rate-start needs --rate-max")
			rates = units.doubling(units.rate(a.rate_start), units.rate(a.rate_max))
			levels = make_levels(a.connections, rates, None)
		elif a.rates:
			levels = make_levels(a.connections, a.rates, None)
		else:
			if not 1 <= a.max_c <= MAX_CONNECTIONS:
				raise Usage(f"--max-c must be 1 to {MAX_CONNECTIONS:,}")
			levels = make_levels(a.connections, None, ",".join(
				str(x) for x in units.doubling(1, a.max_c)))
	except ValueError as e:
		raise Usage(str(e)) from None
	if a.observer_json and len(a.observer_json) < len(levels):
		raise Usage(f"--observer-json given {len(a.observer_json)} times for up to "
			    f"{len(levels)} steps (one per step)")
	ctx = context(a, extra, levels)
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
	failed = verdict.nothing_answered(got)
	doc = runmod.document("sweep", ctx, got, {"verdict": v, "failed": failed})
	text = join.table(got) + outcome_text(got, failed)
	text += "\n\nsweep stopped: " + why + "\n" + "\n".join(verdict.describe(v, join.level_name))
	finish("sweep", ctx, a, doc, text)
	return EXIT_NOTHING_ANSWERED if failed else 0


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
		files.check_output(a.output, "-o")
		if a.png_dir and os.path.lexists(a.png_dir) and not os.path.isdir(a.png_dir):
			raise files.FileError(f"--png-dir {shown(a.png_dir)}: it exists and is not a "
					      "directory")
	except files.FileError as e:
		raise Usage(str(e)) from None
	from . import report
	docs = []
	for f in a.files:  # every input read and checked before anything is written
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
	return demo.main(argv, cmd_sweep)


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
	name = argv[0]

	def line(e):  # one line on stderr: control characters escaped, a huge message cut
		msg = str(e) if str(e).startswith("loadlens") else f"loadlens {name}: {e}"
		print(shown(msg, 4000), file=sys.stderr)

	try:
		return cmd(argv[1:])
	except Usage as e:
		line(e)
		return EXIT_USAGE
	except (procs.RunError, schema.SchemaError, files.FileError) as e:
		line(e)
		return 1
	except KeyboardInterrupt:
		print(f"loadlens {argv[0]}: interrupted", file=sys.stderr)
		return 130
	except Exception as e:  # a bug: one line with where it happened, unless LOADLENS_DEBUG
		if os.environ.get("LOADLENS_DEBUG"):
			raise
		tb = traceback.extract_tb(e.__traceback__)[-1]
		line(f"internal error: {type(e).__name__}: {e} (at {os.path.basename(tb.filename)}:"
		     f"{tb.lineno}; LOADLENS_DEBUG=1 shows the traceback)")
		return 1


if __name__ == "__main__":
	sys.exit(main(sys.argv[1:]))
