# SPDX-License-Identifier: MIT
"""Reading the driver's and the observer's JSON (docs/driver.md, docs/observer.md). Pure."""

import json
import os

from . import files

# Old observer finding kinds (forensics.findings before the findings contract) -> contract kinds
OLD_KINDS = {
	"ports": "port_exhaustion",
	"ports_forecast": "port_exhaustion",
	"fds": "fd_exhaustion",
	"fd_leak": "fd_leak",
	"system_fds": "system_fds",
	"close_wait": "close_wait_leak",
	"time_wait": "time_wait",
	"listen": "listen_overflow",
	"addrinuse": "addrinuse",
	"target": "target_exit",
}

# Severity of an old finding (they had none): what the contract would give it
OLD_SEVERITY = {
	"time_wait": "note",
}


class SchemaError(ValueError):
	"""A file is not the document it should be."""


def load(path, follow=True):
	"""A JSON document from a regular file (files.read_text: bounded, never a FIFO); with
	follow=False, never through a symbolic link (a file another user wrote)."""
	try:
		text = files.read_text(path, "", follow=follow)
		if not text.strip():
			raise SchemaError(f"{path} is empty (the observer writes its --json when it stops: "
					  "is it still running?)")
		return json.loads(text)
	except files.FileError as e:
		raise SchemaError(str(e).strip()) from None
	except (json.JSONDecodeError, RecursionError) as e:
		raise SchemaError(f"{path}: not JSON ({e})") from None


def load_ndjson(path):
	"""Records of an observer --ndjson file; a torn last line (observer killed) is left out."""
	out = []
	if not os.path.lexists(path):
		return out
	try:
		text = files.read_text(path, "")
	except files.FileError as e:
		raise SchemaError(str(e).strip()) from None
	for line in text.splitlines():
		line = line.strip()
		if not line:
			continue
		try:
			out.append(json.loads(line))
		except (json.JSONDecodeError, RecursionError):
			continue
	return out


def is_driver(doc):
	return isinstance(doc, dict) and doc.get("tool") == "loadlens-driver"


def is_observer(doc):
	return isinstance(doc, dict) and doc.get("tool") == "loadlens-observer"


def check_driver(doc, path="driver JSON"):
	if not is_driver(doc):
		raise SchemaError(f"{path}: not a loadlens-driver result (no \"tool\": \"loadlens-driver\")")
	return doc


def check_observer(doc, path="observer JSON"):
	if not is_observer(doc):
		raise SchemaError(f"{path}: not a loadlens-observer summary "
				  "(no \"tool\": \"loadlens-observer\")")
	return doc


def hist(h):
	"""A histogram object (ll_hist_to_json) as a small dict of ns figures, or None if empty."""
	if not isinstance(h, dict) or not h.get("count"):
		return None
	return {k: h.get(k) for k in ("count", "mean", "p50", "p90", "p99", "p999", "max", "sum")}


MAX_TARGET = 2400  # the driver's URL limits (loadlens/parse.h): host 255, path 2,047, and the rest


def target_port_proto(target):
	"""(port, proto) the observer sees for a driver target URL: http(s) are TCP."""
	if len(target) > MAX_TARGET:
		raise SchemaError(f"target of {len(target):,} bytes: longer than the driver takes "
				  f"({MAX_TARGET:,}: a host of 255 and a path of 2,047)")
	scheme, _, rest = target.partition("://")
	if not rest:
		raise SchemaError(f"target '{target}' is not a URL (tcp://, udp://, http://, https://)")
	hostport = rest.split("/", 1)[0]
	if hostport.startswith("["):
		port = hostport.rpartition("]")[2].lstrip(":")
	else:
		port = hostport.rpartition(":")[2] if ":" in hostport else ""
	defaults = {"http": 80, "https": 443}
	if scheme not in ("tcp", "udp", "http", "https"):
		raise SchemaError(f"target '{target}': unknown scheme '{scheme}'")
	if port == "":
		if scheme not in defaults:
			raise SchemaError(f"target '{target}' has no port")
		return defaults[scheme], "tcp"
	if not port.isdigit() or not 0 < int(port) < 65536:
		raise SchemaError(f"target '{target}': bad port '{port}'")
	return int(port), ("udp" if scheme == "udp" else "tcp")


def observer_slot(obs, port, proto):
	"""The request_timing slot of (port, proto), or the all-ports slot (port 0), or None."""
	rt = obs.get("request_timing") or {}
	slots = rt.get("slots") or []
	for s in slots:
		if s.get("port") == port and s.get("proto") == proto:
			return s
	for s in slots:
		if s.get("port") == 0 and s.get("proto") == proto:
			return s
	return None


def findings(obs):
	"""The observer's findings in the contract's shape, whichever shape the file has.

	Accepts the contract's top-level `findings` ({kind, severity, text, evidence, first_seen,
	last_seen}) and the older `forensics.findings` ({kind, text}, old kind names)."""
	out = []
	top = obs.get("findings")
	if isinstance(top, list):
		for f in top:
			if isinstance(f, dict) and "kind" in f:
				out.append({
					"kind": f["kind"],
					"severity": f.get("severity", "warning"),
					"text": f.get("text", ""),
					"evidence": f.get("evidence") or {},
					"first_seen": f.get("first_seen"),
				})
		return out
	old = (obs.get("forensics") or {}).get("findings")
	if isinstance(old, list):
		for f in old:
			if not isinstance(f, dict) or "kind" not in f:
				continue
			kind = OLD_KINDS.get(f["kind"], f["kind"])
			out.append({
				"kind": kind,
				"severity": f.get("severity") or OLD_SEVERITY.get(f["kind"], "warning"),
				"text": f.get("text", ""),
				"evidence": f.get("evidence") or {},
				"first_seen": f.get("first_seen"),
			})
	return out


def ndjson_findings(records):
	"""Live finding events of an --ndjson stream (records with "type": "finding")."""
	return [r for r in records if r.get("type") == "finding"]


def ndjson_intervals(records):
	"""Interval records: "type": "interval", or, before the contract, records with no type."""
	return [r for r in records if r.get("type", "interval") == "interval"]
