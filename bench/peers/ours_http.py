"""Benchmark HTTP server with the generated API: ``python ours_http.py PORT [json|stateless]``,
``PORT json-2025-11-25`` (a 2025-11-25 session, JSON answers), or ``PORT 2026-07-28`` (the
2026-07-28 server: no handshake, JSON answers)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.peers.echo_server import echo_server
from generated._runtime.transports.http.server import HttpOptions, run_http

if __name__ == "__main__":
    mode = sys.argv[2] if len(sys.argv) > 2 else "sse"
    if mode == "2026-07-28":
        run_http(echo_server(mode), "127.0.0.1", int(sys.argv[1]), HttpOptions())
        sys.exit(0)
    if mode == "json-2025-11-25":
        options = HttpOptions(json_response=True)
        run_http(echo_server("2025-11-25"), "127.0.0.1", int(sys.argv[1]), options)
        sys.exit(0)
    options = HttpOptions(
        json_response=mode in ("json", "stateless"), stateless=mode == "stateless"
    )
    run_http(echo_server("2025-06-18"), "127.0.0.1", int(sys.argv[1]), options)
