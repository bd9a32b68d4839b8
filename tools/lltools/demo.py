# SPDX-License-Identifier: MIT
"""loadlens demo: a short sweep against the reference server with a known service time (1 ms per
request, one worker that sleeps: capacity 1,000 req/s with the CPU idle), then the joined split,
the verdict and the report. Bounded: at most 5 steps of 2 s."""

import os
import socket
import tempfile

from . import procs


def free_port():
	with socket.socket() as s:
		s.bind(("127.0.0.1", 0))
		return s.getsockname()[1]


def main(argv, sweep):
	"""sweep: the front command's `loadlens sweep`, passed in: this module imports no
	command."""
	out = os.environ.get("LOADLENS_DEMO_DIR") or tempfile.mkdtemp(prefix="loadlens-demo-")
	port = int(os.environ.get("LOADLENS_DEMO_PORT") or free_port())
	print(f"== loadlens demo: a reference HTTP server on 127.0.0.1:{port}, one worker, 1 ms of "
	      "service per request\n   (sleeping, so the CPU stays idle: capacity 1,000 req/s); "
	      "a sweep over concurrency 1..16,\n   the observer on the port and the driver per "
	      f"step; files in {out}\n", flush=True)
	srv = procs.start_refserver(f"127.0.0.1:{port}", out, "refserver",
				    ["--proto", "http", "--workers", "1", "--service-time", "1ms",
				     "--service-mode", "sleep"])
	try:
		return sweep([f"http://127.0.0.1:{port}/", "--max-c", "16", "-d", "2s",
				      "--p99-bound", "50ms", "--time-limit", "60s", "--out", out] +
				     list(argv))
	finally:
		srv.stop()
