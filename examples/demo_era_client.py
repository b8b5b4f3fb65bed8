"""The 2026-07-28 demo client: auto mode against the dual-era demo server, stdio then HTTP.

Over each transport: probe (``server/discover``), list tools, sign the guestbook (the server
asks the name by MRTR; ``on_elicit`` answers, the call is retried with ``inputResponses``),
listen for tool-list changes while adding a tool, and then a 2025-11-25 client on the same
server process signs too (the same handler asks by a server->client request). Exits 1 on the
first deviation.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from generated.runtime import connect_auto, connect_http, connect_http_auto, spawn_server
from generated.v2025_11_25 import Client as HandshakeEraClient
from generated.v2025_11_25 import types as t25
from generated.v2026_07_28 import Client
from generated.v2026_07_28 import types as t

SERVER = str(Path(__file__).resolve().parent / "demo_era_server.py")


class Deviation(Exception):
    """The server did something the demo did not expect."""


def check(ok: bool, what: str) -> None:
    """Print an ok line, or stop the demo."""
    if not ok:
        raise Deviation(what)
    print(f"  ok  {what}")


class DemoClient(Client):
    """Answers the guestbook's question."""

    async def on_elicit(self, params: Any, ctx: Any) -> t.ElicitResult:
        """Accept, as Ada."""
        return t.ElicitResult(action="accept", content={"name": "Ada"})


class DemoHandshakeClient(HandshakeEraClient):
    """The 2025-11-25 client: the same answer, to a server->client request."""

    async def on_elicit(self, params: Any, ctx: Any) -> t25.ElicitResult:
        """Accept, as Grace."""
        return t25.ElicitResult(action="accept", content={"name": "Grace"})


async def run(client: Any) -> None:
    """The 2026-07-28 steps against a connected client."""
    check(client.protocol_version == "2026-07-28", f"auto mode chose {client.protocol_version}")
    names = [tool.name for tool in (await client.list_tools()).tools]
    check(names[:2] == ["add_tool", "sign_guestbook"], f"tools/list: {names}")
    text = (await client.call_tool(name="sign_guestbook")).content[0].text
    check(text.startswith("thank you Ada"), f"MRTR elicitation: {text!r}")
    events: list[tuple[str, Any]] = []
    changed = asyncio.Event()

    async def on_event(method: str, params: Any) -> None:
        events.append((method, params))
        if method == "notifications/tools/list_changed":
            changed.set()

    listen = asyncio.create_task(client.stateless.listen({"toolsListChanged": True}, on_event))
    while not events:
        await asyncio.sleep(0.01)
    check(events[0][0] == "notifications/subscriptions/acknowledged", "listen acknowledged first")
    await client.call_tool(name="add_tool")
    await asyncio.wait_for(changed.wait(), 5)
    sub = events[-1][1]["_meta"]["io.modelcontextprotocol/subscriptionId"]
    check(bool(sub), f"tools/list_changed tagged with subscription {sub!r}")
    listen.cancel()


async def handshake_steps(handshake: DemoHandshakeClient) -> None:
    """The same server process, initialize era."""
    check(handshake.protocol_version == "2025-11-25", "a 2025-11-25 client (initialize handshake)")
    text = (await handshake.call_tool(name="sign_guestbook")).content[0].text  # type: ignore[union-attr]
    check(text.startswith("thank you Grace"), f"server->client elicitation: {text!r}")


async def over_stdio() -> None:
    """Auto mode over stdio, then a handshake client on a second process."""
    print("== 2026-07-28 over stdio")
    client = await connect_auto(
        DemoClient(), [DemoHandshakeClient()], lambda: spawn_server(sys.executable, [SERVER])
    )
    try:
        await run(client)
    finally:
        await client.close()
    handshake = DemoHandshakeClient()
    await handshake.connect_stdio(sys.executable, [SERVER])
    try:
        await handshake_steps(handshake)
    finally:
        await handshake.close()


async def over_http() -> None:
    """Auto mode over Streamable HTTP, and a handshake client on the same server process."""
    print("== 2026-07-28 over Streamable HTTP")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen([sys.executable, SERVER, "--http", str(port)])
    try:
        deadline = time.monotonic() + 20
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            if process.poll() is not None or time.monotonic() > deadline:
                raise Deviation("the HTTP demo server did not start")
            await asyncio.sleep(0.1)
        url = f"http://127.0.0.1:{port}/mcp"
        client = await connect_http_auto(DemoClient(), [DemoHandshakeClient()], url)
        try:
            await run(client)
        finally:
            await client.close()
        handshake = DemoHandshakeClient()
        await connect_http(handshake, url)
        try:
            await handshake_steps(handshake)
        finally:
            await handshake.close()
    finally:
        process.terminate()
        process.wait(5)


async def main() -> int:
    """Both transports; 0 when every step behaved as expected."""
    try:
        await over_stdio()
        await over_http()
    except Deviation as exc:
        print(f"  FAILED  {exc}")
        return 1
    print("== era demo finished: every step behaved as expected")
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
