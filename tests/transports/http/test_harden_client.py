"""Issue #9, defects 8 and 9: the HTTP client transport against scripted fake servers."""

from __future__ import annotations

import re
from typing import Any

import pytest

from generated._runtime.roles.peer import MCPError
from generated._runtime.transports.http import sse
from generated._runtime.transports.http.sse import EventTooLarge, SSEParser
from tests.support.http_support import bounded
from tests.transports.http.test_http_client_fake import (
    SSE,
    Drop,
    Fake,
    Hit,
    Reply,
    Script,
    calls,
    connected,
    event,
    progress,
    result,
    stop_servers,
    tool_call,
)

__all__ = ["stop_servers"]  # the fixture that stops the fakes, used by every test here


def test_parser_drops_what_a_cut_connection_left_half_read() -> None:
    """A new connection starts clean; the last event id and retry survive it."""
    parser = SSEParser()
    parser.feed(b'retry: 50\nid: 1\ndata: {"a": 1}\n\nid: 2\ndata: {"jsonrpc":"2.0","meth')
    assert parser.last_event_id == "1"
    parser.reconnected()
    (got,) = parser.feed(b'event: message\nid: 2\ndata: {"b": 2}\n\n')
    assert (got.event, got.id, got.data) == ("message", "2", '{"b": 2}')
    assert parser.retry == 50


def test_parser_does_not_reuse_the_id_of_a_cut_event() -> None:
    """An id read for an event that never completed is not given to the next connection's event."""
    parser = SSEParser()
    parser.feed(b"id: 7\ndata: {}\n\nid: 8\n")
    parser.reconnected()
    (got,) = parser.feed(b"data: {}\n\n")
    assert got.id == "7"


@bounded
async def test_event_after_a_mid_event_cut_is_not_lost() -> None:
    """Defect 8: the first event of a resumed stream was lost (stale parser state)."""

    def answer(hit: Hit) -> Reply:
        if hit.method == "POST":
            _, token = tool_call(hit)
            half = event(progress(token, 2), "a2")[:25]
            return Reply(
                200, headers=SSE, stream=Script(event(progress(token, 1), "a1"), half, Drop())
            )
        if hit.headers.get("last-event-id") == "a1":
            rid, token = tool_call(calls(fake)[0])
            rest = event(progress(token, 2), "a2") + event(result(rid, {"content": []}), "a3")
            return Reply(200, headers=SSE, stream=Script(rest))
        return Reply(405)

    fake = Fake(answer)
    client = await connected(fake, retry_delay=0.05)
    got: list[float] = []
    await client.call_tool(name="t", progress=lambda p: got.append(p.progress))
    assert got == [1, 2]
    await client.close()


OAUTH_401 = {"error": "invalid_token", "error_description": "The access token expired"}
CHALLENGE = 'Bearer error="invalid_token", resource_metadata="http://a/.well-known/x"'


@pytest.mark.parametrize(
    ("status", "reply"),
    [
        (401, Reply(401, json=OAUTH_401, headers={"www-authenticate": CHALLENGE})),
        (403, Reply(403, json={"error": "insufficient_scope"})),
        (502, Reply(502, json={"jsonrpc": "2.0", "id": None, "error": "not an object"})),
        (400, Reply(400, json=[1, 2])),
    ],
)
@bounded
async def test_http_error_status_is_reported_not_parsed(status: int, reply: Reply) -> None:
    """Defect 9: a 401 with an OAuth body raised RemoteProtocolError("Invalid error: ...")."""

    def answer(hit: Hit) -> Reply:
        return Reply(405) if hit.method == "GET" else reply

    client = await connected(Fake(answer))
    with pytest.raises(MCPError) as info:
        await client.call_tool(name="t")
    assert info.value.code == -32603
    assert f"HTTP error {status}" in info.value.message
    data: dict[str, Any] = info.value.data
    assert data["httpStatus"] == status
    if status == 401:
        assert data["wwwAuthenticate"] == CHALLENGE
        assert "invalid_token" in data["body"]
    await client.close()


def test_parser_bounds_one_event() -> None:
    """A server cannot make the client buffer an endless event or line."""
    parser = SSEParser(max_event_chars=100)
    parser.feed(b"data: " + b"x" * 60 + b"\n")
    with pytest.raises(EventTooLarge):
        parser.feed(b"data: " + b"x" * 60 + b"\n")
    parser.reconnected()
    with pytest.raises(EventTooLarge):
        parser.feed(b"data: " + b"y" * 200)
    parser.reconnected()
    (event,) = parser.feed(b"data: ok\n\n")
    assert event.data == "ok"


class _ScanCount:
    """Stands for the parser's line-end pattern and counts the characters it is given."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern, self.scanned = pattern, 0

    def split(self, text: str) -> list[str]:
        """Split as the pattern does, counting ``text``."""
        self.scanned += len(text)
        return self.pattern.split(text)


def test_parser_reads_each_character_of_a_long_line_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A line arriving in many chunks is not searched again from its start at every chunk
    (that made an event near the bound take a minute to refuse): the work is the bytes fed."""
    scan = _ScanCount(sse._LINE_END)  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(sse, "_LINE_END", scan)
    parser = SSEParser(max_event_chars=100_000)
    chunk = b"x" * 1000
    assert parser.feed(b"data: ") == []
    fed = len(b"data: ")
    for _ in range(99):
        assert parser.feed(chunk) == []
        fed += len(chunk)
    (event,) = parser.feed(b"\n\n")
    assert event.data == "x" * 99_000
    assert scan.scanned <= fed + 2  # each character searched for a line end once
    with pytest.raises(EventTooLarge):
        for _ in range(2):
            parser.feed(b"data: " + b"y" * 60_000)
