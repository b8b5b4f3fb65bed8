"""A POST's body as ASGI hands it over: whole in one message (most), or in several."""

from __future__ import annotations

import json
from typing import Any

from generated._runtime.transports.http.server import HttpOptions, McpHttpApp
from generated._runtime.transports.http.stream import Stream
from generated.v2025_06_18 import Server
from tests.support.http_support import initialize

INITIALIZE = json.dumps(initialize(1)).encode()


class _Plain(Server):
    """A server with no tools: initialize is all these tests need."""

    name = "plain"


async def _post(app: McpHttpApp, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """POST to ``app`` with ``messages`` as what ``receive`` returns, in order."""
    pending = list(messages)
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return pending.pop(0) if pending else {"type": "http.disconnect"}

    async def send(message: Any) -> None:
        sent.append(message)

    accept = b"application/json, text/event-stream"
    names = ((b"host", b"127.0.0.1"), (b"content-type", b"application/json"), (b"accept", accept))
    scope = {"type": "http", "method": "POST", "path": "/mcp", "headers": list(names)}
    await app(scope, receive, send)
    return sent


def _chunks(body: bytes, size: int) -> list[dict[str, Any]]:
    """``body`` as ``http.request`` messages of ``size`` bytes, the last without ``more_body``."""
    parts = [body[i : i + size] for i in range(0, len(body), size)]
    return [
        {"type": "http.request", "body": part, "more_body": i < len(parts) - 1}
        for i, part in enumerate(parts)
    ]


async def test_a_body_in_several_messages_is_read_whole() -> None:
    """An initialize split over several messages is answered as one body."""
    app = McpHttpApp([_Plain()], HttpOptions(json_response=True))
    sent = await _post(app, _chunks(INITIALIZE, 16))
    assert sent[0]["status"] == 200
    answer = json.loads(sent[1]["body"])
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == "2025-06-18"


async def test_a_body_past_the_limit_is_refused_in_one_message_or_several() -> None:
    """413 whether the body comes whole or in chunks each under the limit."""
    limit = len(INITIALIZE) - 1
    for messages in (_chunks(INITIALIZE, len(INITIALIZE)), _chunks(INITIALIZE, 16)):
        app = McpHttpApp([_Plain()], HttpOptions(json_response=True, max_body=limit))
        sent = await _post(app, messages)
        assert sent[0]["status"] == 413
        assert not app.sessions


async def test_a_client_gone_before_its_body_gets_400() -> None:
    """A disconnect instead of the body: 400, no session made."""
    app = McpHttpApp([_Plain()], HttpOptions(json_response=True))
    sent = await _post(app, [{"type": "http.disconnect"}])
    assert sent[0]["status"] == 400
    assert not app.sessions


async def test_an_event_that_does_not_fit_is_not_queued_at_once() -> None:
    """``put_now`` queues within the bound only; ``put`` then makes room (no reader: drops)."""
    stream = Stream("post-1", max_bytes=4)
    assert stream.put_now("1", b"abc")
    assert not stream.put_now("2", b"de")
    assert stream.queued_bytes == 3
    await stream.put("2", b"de")
    assert stream.get_nowait() == ("2", b"de")
    stream.close()
    assert stream.put_now("3", b"f")  # ended: taken, not queued (the store keeps it)
    assert stream.get_nowait() is None and stream.empty()
