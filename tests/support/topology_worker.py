"""A topology worker: the demo server plus ``tick``, a tool that reports progress slowly (so a
test can cut the stream carrying it midway), ``announce``, which tells every listen stream
subscribed to note 1 that it changed, ``stamp`` (its argument goes in an ``Mcp-Param-*``
header) and ``retag`` (renames that header), and ``hold``, which answers its tag after a pause. The
worker logs ``received TAG`` for each ``hold`` call as soon as the HTTP server hands the app
its body (flushed: the line outlives a SIGKILL), so a test knows what a killed worker had
received."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))

import demo_server

from generated._runtime.roles.tasks import TaskSupport
from generated._runtime.transports.http import server as http_server
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


STATELESS: list[Any] = []
"""The demo's 2026-07-28 face, once ``main`` made it (``announce`` publishes on it)."""


def _every_revision(server: Any) -> Any:
    """The demo's faces; the 2026-07-28 one honours listen subscriptions to resources and
    runs ``hold`` as a task when asked (in the task store the backend hands it)."""
    servers = EVERY_REVISION(server)
    STATELESS.extend(s for s in servers if "initialize" not in s.METHODS)
    for face in STATELESS:
        face.resource_subscriptions = True
        face.task_support = TaskSupport(tools={"hold": "optional"})  # the backend's store
    return servers


EVERY_REVISION = demo_server.every_revision
demo_server.every_revision = _every_revision


@demo_server.tools.tool(
    t.Tool(name="announce", description="Say note 1 changed.", input_schema=demo_server.NO_ARGS)
)
async def announce(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Publish ``notifications/resources/updated`` for note 1 to its listeners (every worker)."""
    await STATELESS[0].notify_resource_updated(demo_server.note_uri("1"))
    return demo_server.text("announced")


HOLD_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"tag": {"type": "string"}, "pause": {"type": "number"}},
    "required": ["tag"],
}


@demo_server.tools.tool(
    t.Tool(name="hold", description="Answer tag after a pause.", input_schema=HOLD_SCHEMA)
)
async def hold(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Pause, then answer the tag."""
    await asyncio.sleep(float(args.get("pause", 0.05)))
    return demo_server.text(str(args["tag"]))


STAMP_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"region": {"type": "string", "x-mcp-header": "Region"}},
    "required": ["region"],
}
"""``stamp``'s input schema, changed in place by ``retag`` (the header ``region`` goes in)."""


@demo_server.tools.tool(
    t.Tool(name="stamp", description="Answer the region.", input_schema=STAMP_SCHEMA)
)
async def stamp(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Answer the region (sent in a ``Mcp-Param-*`` header too)."""
    return demo_server.text(str(args["region"]))


RETAG_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"header": {"type": "string"}, "publish": {"type": "boolean"}},
    "required": ["header"],
}


@demo_server.tools.tool(
    t.Tool(name="retag", description="Rename stamp's header.", input_schema=RETAG_SCHEMA)
)
async def retag(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Rename the header ``stamp``'s region goes in; with ``publish``, say the tools changed
    (on the bus every worker listens to)."""
    STAMP_SCHEMA["properties"]["region"]["x-mcp-header"] = str(args["header"])
    if args.get("publish"):
        await STATELESS[0].notify_tools_changed()
    return demo_server.text("retagged")


TAG = re.compile(rb'"tag":"([^"]+)"')


class LoggingApp(http_server.McpHttpApp):
    """The ASGI app, logging the tag of each ``hold`` call body it is handed."""

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        """Serve the request, logging ``received TAG`` as its body comes in."""

        async def logged() -> Any:
            message = await receive()
            found = TAG.search(message.get("body", b""))
            if found is not None:
                print(f"received {found.group(1).decode()}", flush=True)
            return message

        await super().__call__(scope, logged, send)


http_server.McpHttpApp = LoggingApp  # type: ignore[misc] (run_http builds this app)


if __name__ == "__main__":
    demo_server.main()
