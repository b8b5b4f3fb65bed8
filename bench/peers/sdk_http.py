"""Benchmark HTTP server with the official SDK: ``python sdk_http.py PORT [json|stateless]``."""

from __future__ import annotations

import sys
from pathlib import Path

import uvicorn
from mcp.server.lowlevel import Server

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench.peers.sdk_server import call_tool, list_tools

if __name__ == "__main__":
    mode = sys.argv[2] if len(sys.argv) > 2 else "sse"
    server = Server("bench-sdk", on_list_tools=list_tools, on_call_tool=call_tool)
    app = server.streamable_http_app(
        json_response=mode in ("json", "stateless"), stateless_http=mode == "stateless"
    )
    uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), log_level="warning")
