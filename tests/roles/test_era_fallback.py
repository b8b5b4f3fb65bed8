"""Auto mode's probe/fallback matrix: -32601, silence, exit (stdio/memory); 400, 404, 405 (HTTP)."""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest

from generated._runtime.core.transport import RelatedId, Transport
from generated._runtime.core.wire import Inbound, Outbound
from generated._runtime.roles.connect import HandshakeServer, connect_auto
from generated._runtime.transports.http.client import connect_http_auto
from generated._runtime.transports.memory import memory_pair
from tests.support.era_support import (
    EchoHandshake,
    EraClient,
    FixtureServer,
    HandshakeClient,
    Recorder,
)
from tests.support.http_support import STEP_S, serve, until_started

FAST = 0.3


class DropProbe:
    """A server-side transport that never delivers ``server/discover`` (a silent handshake peer)."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner

    async def read(self) -> bytes | Inbound | None:
        while (frame := await self.inner.read()) is not None:
            if not isinstance(frame, bytes) or b'"server/discover"' not in frame:
                return frame
        return None

    async def write(self, message: Outbound, related: RelatedId = None) -> None:
        await self.inner.write(message, related)

    def negotiated(self, version: str) -> None:
        self.inner.negotiated(version)

    async def close(self) -> None:
        await self.inner.close()


class EmptyDiscover(DropProbe):
    """A handshake server that answers ``server/discover`` with an empty result (as the
    conformance harness's mock servers answer any request they do not know)."""

    async def read(self) -> bytes | Inbound | None:
        while (frame := await self.inner.read()) is not None:
            if not isinstance(frame, bytes) or b'"server/discover"' not in frame:
                return frame
            request_id = json.loads(frame)["id"]
            answer = json.dumps({"jsonrpc": "2.0", "id": request_id, "result": {}}).encode()
            await self.inner.write(Outbound(answer, "response", None, (request_id,)))
        return None


@contextlib.asynccontextmanager
async def opener(
    make_server: Callable[[Transport], Awaitable[None]],
) -> AsyncIterator[tuple[Callable[[], Awaitable[Transport]], list[Recorder]]]:
    """An ``open_transport`` for connect_auto: each call starts a server task on a new pair."""
    tasks: list[asyncio.Task[None]] = []
    ends: list[Recorder] = []

    async def open_transport() -> Transport:
        client_end, server_end = memory_pair()
        tasks.append(asyncio.create_task(make_server(server_end)))
        ends.append(Recorder(client_end))
        return ends[-1]

    try:
        yield open_transport, ends
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def test_stateless_server_keeps_the_stateless_client() -> None:
    async with opener(lambda end: FixtureServer().serve(end)) as (open_transport, ends):
        chosen = await connect_auto(EraClient(), [HandshakeClient()], open_transport)
        assert isinstance(chosen, EraClient)
        assert [f["method"] for f in ends[0].sent] == ["server/discover"]
        await chosen.close()


async def test_handshake_answer_to_the_probe_falls_back_to_initialize() -> None:
    async with opener(lambda end: EchoHandshake().serve(end)) as (open_transport, ends):
        chosen = await connect_auto(EraClient(), [HandshakeClient()], open_transport)
        assert isinstance(chosen, HandshakeClient)
        probe_answer = ends[0].received[0]
        probe_id = ends[0].sent[0]["id"]
        assert probe_answer["id"] == probe_id and probe_answer["error"]["code"] in (-32601, -32600)
        assert [f.get("method") for f in ends[0].sent] == [
            "server/discover",
            "initialize",
            "notifications/initialized",
        ]
        assert (await chosen.call_tool(name="echo")).content[0].text == "handshake echo"  # type: ignore[union-attr]
        await chosen.close()


async def test_a_result_that_is_no_discover_result_falls_back_to_initialize() -> None:
    async with opener(lambda end: EchoHandshake().serve(EmptyDiscover(end))) as (
        open_transport,
        ends,
    ):
        chosen = await connect_auto(EraClient(), [HandshakeClient()], open_transport)
        assert isinstance(chosen, HandshakeClient)
        assert ends[0].received[0]["result"] == {}
        assert [f.get("method") for f in ends[0].sent] == [
            "server/discover",
            "initialize",
            "notifications/initialized",
        ]
        assert (await chosen.call_tool(name="echo")).content[0].text == "handshake echo"  # type: ignore[union-attr]
        await chosen.close()


async def test_silence_within_the_bound_falls_back() -> None:
    async with opener(lambda end: EchoHandshake().serve(DropProbe(end))) as (open_transport, ends):
        started = asyncio.get_running_loop().time()
        chosen = await connect_auto(
            EraClient(), [HandshakeClient()], open_transport, probe_timeout=FAST
        )
        assert isinstance(chosen, HandshakeClient)
        assert asyncio.get_running_loop().time() - started < FAST + 2
        assert len(ends) == 1  # same process, no restart
        assert (await chosen.call_tool(name="echo")).content[0].text == "handshake echo"  # type: ignore[union-attr]
        await chosen.close()


async def test_a_server_that_exits_on_the_probe_is_started_again_as_handshake() -> None:
    calls = 0

    async def dies_first(end: Transport) -> None:
        nonlocal calls
        calls += 1
        if calls == 1:
            await end.read()
            await end.close()  # a handshake-era server that exits on an unknown first message
            return
        await EchoHandshake().serve(end)

    async with opener(dies_first) as (open_transport, ends):
        chosen = await connect_auto(
            EraClient(), [HandshakeClient()], open_transport, probe_timeout=FAST
        )
        assert isinstance(chosen, HandshakeClient) and len(ends) == 2
        assert ends[1].sent[0]["method"] == "initialize"
        await chosen.close()


async def test_a_stateless_server_slower_than_the_probe_bound_is_still_found() -> None:
    async def slow(end: Transport) -> None:
        await asyncio.sleep(FAST * 2)  # starts after the probe gave up
        await FixtureServer().serve(end)

    async with opener(slow) as (open_transport, ends):
        chosen = await connect_auto(
            EraClient(), [HandshakeClient()], open_transport, probe_timeout=FAST
        )
        assert isinstance(chosen, EraClient) and len(ends) == 2
        assert [f.get("method") for f in ends[0].sent] == [
            "server/discover",
            "notifications/cancelled",
            "initialize",
        ]
        assert [f.get("method") for f in ends[1].sent] == ["server/discover"]
        assert (await chosen.call_tool(name="test_simple_text")).content
        await chosen.close()


async def test_no_handshake_client_means_the_probe_error_surfaces() -> None:
    async with opener(lambda end: EchoHandshake().serve(end)) as (open_transport, _):
        with pytest.raises(HandshakeServer):
            await connect_auto(EraClient(), [], open_transport)


def refusing(status: int | None, inner: Any) -> Any:
    """An ASGI app answering the ``server/discover`` probe with ``status`` and a non-JSON-RPC body.

    ``None``: never answer it (an HTTP+SSE endpoint that holds the POST open).
    """

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            await inner(scope, receive, send)
            return
        body = b""
        more = True
        while more:
            message = await receive()
            body += message.get("body", b"")
            more = message.get("more_body", False)
        if b'"server/discover"' in body:
            if status is None:
                while (await receive())["type"] != "http.disconnect":
                    pass
                return
            await send(
                {
                    "type": "http.response.start",
                    "status": status,
                    "headers": [(b"content-type", b"text/plain")],
                }
            )
            await send({"type": "http.response.body", "body": b"nope"})
            return
        replay = [{"type": "http.request", "body": body, "more_body": False}]

        async def again() -> dict[str, Any]:
            return replay.pop() if replay else await receive()

        await inner(scope, again, send)

    return app


@pytest.mark.parametrize("status", [400, 404, 405])
async def test_http_4xx_without_a_stateless_error_falls_back(status: int) -> None:
    async with serve(EchoHandshake()) as (app, url):
        app_wrapped = refusing(status, app)
        async with serve_app(app_wrapped) as wrapped_url:
            chosen = await connect_http_auto(EraClient(), [HandshakeClient()], wrapped_url + "/mcp")
            assert isinstance(chosen, HandshakeClient)
            assert (await chosen.call_tool(name="echo")).content[0].text == "handshake echo"  # type: ignore[union-attr]
            await chosen.close()
    del url


async def test_http_probe_that_hangs_falls_back_within_the_bound() -> None:
    async with serve(EchoHandshake()) as (app, _), serve_app(refusing(None, app)) as url:
        started = asyncio.get_running_loop().time()
        chosen = await connect_http_auto(
            EraClient(), [HandshakeClient()], url + "/mcp", probe_timeout=FAST
        )
        assert isinstance(chosen, HandshakeClient)
        assert asyncio.get_running_loop().time() - started < FAST + 3
        await chosen.close()


async def test_http_handshake_server_refusing_the_sessionless_probe_falls_back() -> None:
    async with serve(EchoHandshake()) as (_, url):
        chosen = await connect_http_auto(EraClient(), [HandshakeClient()], url + "/mcp")
        assert isinstance(chosen, HandshakeClient)
        await chosen.close()


async def test_http_dual_era_server_keeps_the_stateless_client() -> None:
    async with serve([FixtureServer(), EchoHandshake()]) as (_, url):
        chosen = await connect_http_auto(EraClient(), [HandshakeClient()], url + "/mcp")
        assert isinstance(chosen, EraClient)
        result = await chosen.call_tool(name="test_input_required_result_elicitation")
        assert result.content[0].text == "Hello, name-answer!"  # type: ignore[union-attr]
        await chosen.close()
        handshake = HandshakeClient()
        from generated._runtime.transports.http.client import connect_http

        init = await connect_http(handshake, url + "/mcp")
        assert init.protocol_version == "2025-11-25"
        assert (await handshake.call_tool(name="echo")).content[0].text == "handshake echo"  # type: ignore[union-attr]
        await handshake.close()


@contextlib.asynccontextmanager
async def serve_app(app: Any) -> AsyncIterator[str]:
    """Serve any ASGI app like ``serve`` does."""
    import socket

    import uvicorn

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(
        uvicorn.Config(
            app, log_config=None, log_level="warning", lifespan="off", timeout_graceful_shutdown=1
        )
    )
    task = asyncio.create_task(server.serve(sockets=[sock]))
    try:
        await until_started(server, task)
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        server.should_exit = True
        await asyncio.wait_for(task, STEP_S)
        sock.close()
