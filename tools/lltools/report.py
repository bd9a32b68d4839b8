# SPDX-License-Identifier: MIT
"""loadlens report: one self-contained HTML page (PNG plots as data URIs) from run, sweep or
observer JSON. matplotlib (Debian's python3-matplotlib), Agg backend: no display needed."""

import base64
import html
import io
import os
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib import ticker  # noqa: E402

from . import files, join, run as runmod, schema, verdict  # noqa: E402

COLORS = {"network_client": "#8da0cb", "accept_queue": "#e78ac3", "socket_queue": "#fc8d62",
	  "run_queue": "#ffd92f", "service": "#66c2a5"}
LABELS = {"network_client": "network + client (RTT - residence)",
	  "accept_queue": "accept queue (first requests' share)",
	  "socket_queue": "socket queue (arrival -> read)",
	  "run_queue": "run queue (serving threads waiting for a CPU)",
	  "service": "service (read -> first write)"}
ORDER = ("service", "run_queue", "socket_queue", "accept_queue", "network_client")


def as_document(doc, path, ndjson_paths=()):
	"""A run/sweep document as is; an observer summary wrapped, with its NDJSON time series
	(the given --ndjson files, else PATH with .ndjson for .json, if it exists)."""
	if isinstance(doc, dict) and doc.get("tool") == "loadlens" and doc.get("kind") in ("run",
											   "sweep"):
		return doc
	if schema.is_driver(doc):
		raise schema.SchemaError(f"{path}: a driver result alone; give `loadlens run` JSON, or "
					 "join it with its observer run")
	schema.check_observer(doc, path)
	nd = list(ndjson_paths)
	guess = os.path.splitext(path)[0] + ".ndjson"
	if not nd and os.path.exists(guess):
		nd = [guess]
	lv = {"files": {"observer_ndjson": nd[0]}} if nd else {}
	ts = runmod.timeseries([lv]) if nd else []
	ports = ", ".join(str(p) for p in doc.get("ports") or [])
	return {"tool": "loadlens", "kind": "observer",
		"target": f"port {ports}" if ports else "all ports", "observer": doc,
		"levels": [], "timeseries": ts}


def _png(fig):
	buf = io.BytesIO()
	fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
	plt.close(fig)
	return buf.getvalue()


def _xaxis(levels):
	"""x values and label: concurrency, or the rate for open-loop levels."""
	if levels and all(lv["level"].get("rate") for lv in levels):
		return [lv["level"]["rate"] for lv in levels], "offered rate (requests/s, open loop)"
	return [lv["level"].get("connections") for lv in levels], "concurrency (connections, closed loop)"


def _ms(v):
	return None if v is None else v / 1e6


def plot_throughput(levels, title):
	x, xl = _xaxis(levels)
	fig, ax = plt.subplots(figsize=(7.5, 4))
	cl = [lv["driver"].get("throughput_rps") for lv in levels]
	sv = [(lv.get("server") or {}).get("throughput_rps") for lv in levels]
	ax.plot(x, cl, "o-", color="#1b9e77", label="client: completed requests/s (driver)")
	if any(v is not None for v in sv):
		ax.plot(x, [v if v is not None else float("nan") for v in sv], "s--", color="#7570b3",
			label="server: responses/s (observer)")
	_logx(ax, x)
	ax.set_xlabel(xl)
	ax.set_ylabel("throughput (requests/s)")
	# room above the highest point for its label (flat throughput put it on the title)
	top = max([v for v in cl + sv if v is not None] or [0])
	ax.set_ylim(0, top * 1.15 if top > 0 else 1)
	ax.set_title(f"Throughput against load: {title}")
	ax.grid(True, alpha=0.3)
	ax.legend(loc="lower right")
	for xi, yi in zip(x, cl):
		if yi is not None:
			ax.annotate(f"{yi:,.0f}", (xi, yi), textcoords="offset points", xytext=(0, 6),
				    ha="center", fontsize=8)
	return _png(fig), _count(cl) + _count(sv)


def _logx(ax, x):
	xs = [v for v in x if v]
	if len(xs) > 1 and max(xs) / min(xs) >= 4:
		ax.set_xscale("log", base=2)
		ax.set_xticks(xs)
		ax.set_xticklabels([f"{v:g}" for v in xs])


def plot_latency(levels, title):
	x, xl = _xaxis(levels)
	fig, ax = plt.subplots(figsize=(7.5, 4))
	n = 0
	for p, style in (("p50", "o-"), ("p90", "^-"), ("p99", "v-")):
		y = [_ms((lv["driver"].get("rtt") or {}).get(p)) for lv in levels]
		n += _count(y)
		ax.plot(x, [v if v is not None else float("nan") for v in y], style,
			label=f"client round trip {p}")
	if levels and all(lv["level"].get("rate") for lv in levels):
		y = [_ms((lv["driver"].get("latency_intended") or {}).get("p99")) for lv in levels]
		n += _count(y)
		ax.plot(x, [v if v is not None else float("nan") for v in y], "v--", color="#d62728",
			label="client p99 from the intended send (open loop)")
	for p, style in (("p50", "o:"), ("p99", "v:")):
		y = [_ms(((lv.get("server") or {}).get("residence") or {}).get(p)) for lv in levels]
		n += _count(y)
		if any(v is not None for v in y):
			ax.plot(x, [v if v is not None else float("nan") for v in y], style,
				color="gray" if p == "p50" else "black", label=f"server residence {p}")
	_logx(ax, x)
	ax.set_yscale("log")
	ax.yaxis.set_major_locator(ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
	ax.yaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
	ax.yaxis.set_minor_formatter(ticker.NullFormatter())
	ax.set_xlabel(xl)
	ax.set_ylabel("latency (ms, log scale)")
	ax.set_title(f"Latency percentiles against load: {title}")
	ax.grid(True, which="both", alpha=0.3)
	ax.legend(fontsize=8, loc="upper left")
	return _png(fig), n


def plot_split(levels, title):
	have = [lv for lv in levels if lv.get("stack_mean_ns")]
	if not have:
		return None, 0
	fig, ax = plt.subplots(figsize=(7.5, 4.2))
	names = [join.level_name(lv["level"]) for lv in have]
	bottom = [0.0] * len(have)
	for k in ORDER:
		vals = [max(_ms(lv["stack_mean_ns"][k]), 0.0) for lv in have]
		ax.bar(names, vals, bottom=bottom, color=COLORS[k], label=LABELS[k], edgecolor="white",
		       linewidth=0.5)
		bottom = [b + v for b, v in zip(bottom, vals)]
	for i, lv in enumerate(have):
		ax.annotate(f"RTT {join.fmt_ns(lv['driver']['rtt']['mean'])}", (i, bottom[i]),
			    textcoords="offset points", xytext=(0, 4), ha="center", fontsize=8)
	ax.set_ylabel("mean time per request (ms)")
	ax.set_xlabel("load level")
	ax.set_ylim(top=max(bottom) * 1.15 if max(bottom) > 0 else 1)
	ax.set_title(f"Where a request's time goes (means; they add up to the RTT): {title}",
		     fontsize=10)
	h, lab = ax.get_legend_handles_labels()
	ax.legend(h[::-1], lab[::-1], fontsize=8, loc="upper left")  # top of the stack first
	ax.grid(True, axis="y", alpha=0.3)
	return _png(fig), len(have) * len(ORDER)


def plot_observer_split(obs, title):
	"""One stacked bar per observed (port, protocol) slot: server-side parts only."""
	slots = [s for s in ((obs.get("request_timing") or {}).get("slots") or [])
		 if s.get("requests")]
	if not slots:
		return None, 0
	rq = schema.hist((obs.get("request_timing") or {}).get("run_queue_wait"))
	fig, ax = plt.subplots(figsize=(7.5, 4))
	names, bottom = [], []
	parts = {k: [] for k in ("service", "run_queue", "socket_queue", "accept_queue")}
	for s in slots:
		names.append(f"{s['proto']}/{s['port']}")
		n = s["requests"]
		st = join.stack_means({"mean": 0}, {"mean": 0}, schema.hist(s.get("accept_queue_share")),
				      schema.hist(s.get("socket_queue_wait")),
				      schema.hist(s.get("service_time")), rq, n)
		for k in parts:
			parts[k].append(_ms(st[k]))
	bottom = [0.0] * len(names)
	for k in parts:
		ax.bar(names, parts[k], bottom=bottom, color=COLORS[k], label=LABELS[k], width=0.4)
		bottom = [b + v for b, v in zip(bottom, parts[k])]
	for i, b in enumerate(bottom):
		ax.annotate(f"residence {join.fmt_ns(b * 1e6)}", (i, b), textcoords="offset points",
			    xytext=(0, 4), ha="center", fontsize=8)
	ax.set_ylim(0, max(bottom) * 1.6 if max(bottom) > 0 else 1)
	ax.set_xlim(-0.8, len(names) - 0.2)
	ax.set_ylabel("mean time per request at the server (ms)")
	ax.set_xlabel("observed port")
	ax.set_title(f"Server residence by part (observer only): {title}", fontsize=10)
	h, lab = ax.get_legend_handles_labels()
	ax.legend(h[::-1], lab[::-1], fontsize=8, loc="upper left")
	ax.grid(True, axis="y", alpha=0.3)
	return _png(fig), len(names) * len(parts)


def plot_timeseries(ts, levels, title):
	if not ts:
		return None, 0
	t = [p["t"] for p in ts]
	fig, axes = plt.subplots(4, 1, figsize=(7.5, 8), sharex=True)

	def series(key):
		return [p[key] if p.get(key) is not None else float("nan") for p in ts]

	ax = axes[0]
	ax.plot(t, series("time_wait"), ".-", color="#d95f02", label="sockets in TIME_WAIT (census)")
	ax.set_ylabel("sockets")
	ax.legend(fontsize=8, loc="best")
	ax = axes[1]
	ax.plot(t, series("ports_in_use"), ".-", color="#1b9e77",
		label="ephemeral ports in use, busiest destination")
	rng = next((p["port_range"] for p in ts if p.get("port_range")), None)
	if rng:
		ax.text(0.99, 0.92, f"port range: {rng:,} per destination", transform=ax.transAxes,
			ha="right", va="top", fontsize=8)
	ax.set_ylabel("ports")
	ax.legend(fontsize=8, loc="best")
	ax = axes[2]
	ax.plot(t, series("fds_open"), ".-", color="#7570b3", label="open fds, fullest watched process")
	lim = next((p for p in ts if p.get("fds_soft_limit")), None)
	if lim:
		ax.text(0.99, 0.92, f"{lim.get('fds_comm')}: soft limit {lim['fds_soft_limit']:,}",
			transform=ax.transAxes, ha="right", va="top", fontsize=8)
	ax.set_ylabel("fds")
	ax.legend(fontsize=8, loc="best")
	ax = axes[3]
	ax.plot(t, series("failures_per_s"), ".-", color="#e7298a",
		label="syscall failures/s (EADDRNOTAVAIL, EMFILE, ENFILE, EADDRINUSE)")
	ax.plot(t, series("listen_overflows_per_s"), "x-", color="#66a61e", label="listen overflows/s")
	ax.plot(t, series("resets_sent_per_s"), "+-", color="#a6761d", label="resets sent/s")
	ax.set_ylabel("per second")
	ax.set_xlabel("time since the first observer interval (s)")
	ax.legend(fontsize=8, loc="upper left")
	for a, keys in zip(axes, (("time_wait",), ("ports_in_use",), ("fds_open",),
				  ("failures_per_s", "listen_overflows_per_s", "resets_sent_per_s"))):
		a.grid(True, alpha=0.3)
		a.set_ylim(bottom=0)
		if not any(p.get(k) is not None for p in ts for k in keys):
			a.text(0.5, 0.5, "no data in the observer's records (e.g. no census, no "
			       "watched process)", transform=a.transAxes, ha="center", va="center",
			       fontsize=9, color="gray")
			a.set_yticks([])
	# the load levels, as shaded spans with their names
	starts = {}
	for p in ts:
		starts.setdefault(p["level"], [p["t"], p["t"]])[1] = p["t"]
	for i, (lv, (a0, a1)) in enumerate(sorted(starts.items())):
		if lv < len(levels):
			for a in axes:
				a.axvspan(a0 - 0.5, a1 + 0.5, color="gray", alpha=0.08 if i % 2 else 0.0)
			axes[0].text((a0 + a1) / 2, 1.02, join.level_name(levels[lv]["level"]),
				     transform=axes[0].get_xaxis_transform(), ha="center", fontsize=7)
	fig.suptitle(f"Connections, ports, fds and errors over time: {title}", y=1.0)
	fig.tight_layout()
	keys = ("time_wait", "ports_in_use", "fds_open", "failures_per_s")
	return _png(fig), sum(_count(p.get(k) for p in ts) for k in keys)


def _count(vals):
	return sum(1 for v in vals if v is not None)


PNG_DIR = None  # set by write(): also save each PNG there


def _img(plot, alt):
	png, n = plot
	if png is None or not n:
		return f"<p class=none>{html.escape(alt)}: no data for this plot.</p>"
	if PNG_DIR:
		name = alt.replace(" ", "-") + ".png"
		k = 1
		while os.path.lexists(os.path.join(PNG_DIR, name)):
			k += 1
			name = f"{alt.replace(' ', '-')}-{k}.png"
		files.write(os.path.join(PNG_DIR, name), png, "--png-dir", True)
	b = base64.b64encode(png).decode("ascii")
	return (f'<figure data-points="{n}"><img alt="{html.escape(alt)}" '
		f'src="data:image/png;base64,{b}"><figcaption>{html.escape(alt)} ({n} data points)'
		'</figcaption></figure>')


def section(doc):
	title = doc.get("target") or "?"
	levels = doc.get("levels") or []
	out = [f"<h2>{html.escape(doc.get('kind', ''))}: {html.escape(title)}</h2>"]
	if doc.get("kind") == "observer":
		out.append(_img(plot_observer_split(doc["observer"], title), "server split"))
		out.append(_img(plot_timeseries(doc.get("timeseries"), [], title), "time series"))
		fs = schema.findings(doc["observer"])
		if fs:
			out.append("<h3>Findings</h3><ul>" + "".join(
				f"<li>[{html.escape(f['kind'])}] {html.escape(f['text'])}</li>" for f in fs)
				   + "</ul>")
		return "\n".join(out)
	if doc.get("failed"):
		out.append("<div class=failed><pre>" + html.escape(
			"\n".join(verdict.describe_failure(doc["failed"]))) + "</pre></div>")
	if doc.get("verdict"):
		v = doc["verdict"]
		lines = [f"sweep stopped: {doc['verdict'].get('stopped_because', '?')}"]
		lines += verdict.describe(v, join.level_name)
		out.append("<div class=verdict><pre>" + html.escape("\n".join(lines)) + "</pre></div>")
	out.append("<pre>" + html.escape(join.table(levels)) + "</pre>")
	out.append(_img(plot_throughput(levels, title), "throughput against load"))
	out.append(_img(plot_latency(levels, title), "latency percentiles against load"))
	out.append(_img(plot_split(levels, title), "stacked split per load level"))
	out.append(_img(plot_timeseries(doc.get("timeseries"), levels, title), "time series"))
	fs = [(lv, f) for lv in levels for f in lv.get("findings") or []]
	if fs:
		out.append("<h3>Observer findings</h3><ul>" + "".join(
			f"<li>{html.escape(join.level_name(lv['level']))}: [{html.escape(f['kind'])}, "
			f"{html.escape(f['severity'])}] {html.escape(f['text'])}</li>" for lv, f in fs) +
			   "</ul>")
	return "\n".join(out)


CSS = """body{font-family:sans-serif;max-width:100em;margin:1em auto;padding:0 1em;color:#222}
pre{background:#f6f6f6;padding:.6em;overflow-x:auto;font-size:12px}
figure{display:inline-block;vertical-align:top;width:49%;margin:.5em 0}
figure img{width:100%;border:1px solid #ddd}figcaption{font-size:12px;color:#555}
.verdict pre{background:#eef6ee;white-space:pre-wrap}
.failed pre{background:#fbe9e7;border-left:4px solid #c62828;white-space:pre-wrap}.none{color:#888}"""


# once loaded, the page says how many of its images decoded (headless checks read it back)
ONLOAD = ("<script>window.addEventListener('load',function(){var n=0,i=document.images;"
	  "for(var k=0;k<i.length;k++)if(i[k].complete&&i[k].naturalWidth>0)n++;"
	  "document.body.setAttribute('data-images-loaded',n+'/'+i.length);});</script>")


def write(docs, path, png_dir=None, ours=False):
	global PNG_DIR
	PNG_DIR = png_dir
	if png_dir:
		files.ensure_dir(png_dir, "--png-dir", follow=True)
	body = "\n".join(section(d) for d in docs)
	page = (f"<!DOCTYPE html>\n<html><head><meta charset=utf-8><title>loadlens report</title>"
		f"<style>{CSS}</style>{ONLOAD}</head><body>\n<h1>loadlens report</h1>\n"
		f"<p>Written {time.strftime('%Y-%m-%d %H:%M:%S')}. Client figures come from "
		f"loadlens-driver, server figures from loadlens-observer (eBPF, tracepoints); "
		f"docs/loadlens.md says how they are joined.</p>\n{body}\n</body></html>\n")
	files.write(path, page, "report", ours)
