"""The scenario table of docs/observer/scenarios.md: what each scenario does and expects, and with
result directories (harness.py saved them) an outcome column for each."""
import json
import os
import re

import scenarios


BRIEF = [
	(r"unexpected finding ([\w_]+)/", r"extra \1"),
	(r"no live NDJSON finding record of kind ([\w_]+); the summary has it",
	 r"\1 only in the summary"),
	(r"no live NDJSON finding record of kind ([\w_]+); not in", r"no \1"),
	(r"the note ([\w_]+) is missing", None),
	(r"([\w_]+) at t=[\d.]+, ([\d.]+) s after the onset", r"\1 late (+\2 s)"),
	(r"([\w_]+) at t=[\d.]+, ([\d.]+) s before the onset", r"\1 early (-\2 s)"),
	(r"([\w_]+) evidence (\w+)=(\S+), expected (\S+)", r"\1 names \2 \3, not \4"),
	(r"([\w_]+): no '\[HH", r"\1 not on stderr"),
	(r"([\w_]+) is not repeated in the summary", r"\1 not in the summary"),
	(r"the observer counted (\d+) requests, the driver (\d+)",
	 r"\1 requests counted, driver \2"),
]


def brief(problems):
	out = []
	for p in problems:
		for pat, rep in BRIEF:
			m = re.match(pat, p)
			if m:
				if rep:
					out.append(m.expand(rep))
				break
		else:
			out.append(p.split("\n")[0][:80])
	return "; ".join(dict.fromkeys(out))  # each once, in order


def table(dirs):
	"""Markdown: one row per scenario, one outcome column per result directory (none: the
	reference table of the docs, which tests/tools/test_doc_counts.py compares with the page)."""
	res = []
	for d in dirs:
		r = {}
		for sc in scenarios.SCENARIOS:
			try:
				with open(os.path.join(d, sc["name"] + ".json")) as f:
					r[sc["name"]] = json.load(f)
			except OSError:
				pass
		res.append(r)
	print("| Scenario | What it does | Expected |" +
	      "".join(" Outcome (%d) |" % (i + 1) for i in range(len(dirs))))
	print("|---|---|---|" + "---|" * len(dirs))
	for sc in scenarios.SCENARIOS:
		exp = ", ".join("`%s`" % e["kind"] for e in sc.get("expect", []))
		if sc["group"] == "healthy":
			exp = (exp + " note" if exp else "nothing")
		cells = []
		for r in res:
			x = r.get(sc["name"])
			if not x:
				cells.append("not run")
				continue
			c = "**%s**" % x["outcome"]
			if x["outcome"] == "pass" and x.get("delay_s"):
				c += " (%s)" % ", ".join("%+.2f s" % v
							  for v in x["delay_s"].values())
			elif x["outcome"] != "pass":
				c += ": " + brief(x.get("problems", []))
			cells.append(c.replace("|", "/"))
		print("| `%s` | %s | %s |" % (sc["name"], sc["what"], exp) +
		      "".join(" %s |" % c for c in cells))
	return 0
