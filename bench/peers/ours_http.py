"""Benchmark HTTP server with the generated API: ``python ours_http.py PORT [json|stateless]``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.peers.echo_server import echo_server
from generated._runtime.transports.http.server import HttpOptions, run_http

if __name__ == "__main__":
    mode = sys.argv[2] if len(sys.argv) > 2 else "sse"
    options = HttpOptions(
        json_response=mode in ("json", "stateless"), stateless=mode == "stateless"
    )
    run_http(echo_server("2025-06-18"), "127.0.0.1", int(sys.argv[1]), options)
