"""A topology worker: the demo server plus ``tick``, a tool that reports progress slowly (so a
test can cut the stream carrying it midway)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples"))

import demo_server

from generated.v2025_11_25 import ServerContext
from generated.v2025_11_25 import types as t

TICK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"n": {"type": "integer"}, "pause": {"type": "number"}},
    "required": ["n"],
}


@demo_server.tools.tool(
    t.Tool(name="tick", description="Progress n times.", input_schema=TICK_SCHEMA)
)
async def tick(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Report progress 1..n, pausing between steps; answer ``ticked n``."""
    n, pause = int(args["n"]), float(args.get("pause", 0.02))
    for i in range(1, n + 1):
        await ctx.progress(i, n)
        await asyncio.sleep(pause)
    return demo_server.text(f"ticked {n}")


if __name__ == "__main__":
    demo_server.main()
