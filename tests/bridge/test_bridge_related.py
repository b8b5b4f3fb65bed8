"""Two calls in flight through ``mcpgen bridge --http`` to an HTTP upstream whose tool asks:
what the upstream sends on one call's POST stream (its log message, its elicitation) reaches
the downstream request that call forwards, and each answer goes back to the call that asked.
Two calls of one session: each on its own SSE stream (asserted on the downstream wire); two
stateless clients' calls on the bridge's one shared upstream connection: each in its own MRTR
round.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from generated import v2026_07_28 as v2026
from generated._runtime.transports.http.client import connect_http
from generated.v2026_07_28 import types as t26
from tests.bridge.test_bridge_sessions import bridge_to
from tests.support.http_support import (
    V0618,
    EventReader,
    Raw,
    bounded,
    call,
    messages,
    raw_client,
)

ELICIT = "elicitation/create"
LOG = "notifications/message"
PROGRESS = "notifications/progress"


@dataclass
class Stream:
    """One tools/call's SSE stream as the downstream client read it, labelled by its call."""

    label: str
    rid: int
    reader: EventReader
    frames: list[Any] = field(default_factory=list[Any])

    def of(self, method: str) -> list[Any]:
        """The params of the frames of ``method`` that came on this stream."""
        return [f.get("params") for f in self.frames if f.get("method") == method]

    @property
    def result(self) -> Any:
        """The call's result (the stream's last frame)."""
        return self.frames[-1]["result"]


async def first_frame(stream: Stream) -> None:
    """Read up to the stream's first message (the upstream's progress: its call arrived)."""
    while not stream.frames:
        stream.frames.extend(messages([await stream.reader.next()]))


def answered(stream: Stream) -> bool:
    """Whether the call's response came (the last frame read)."""
    last = stream.frames[-1] if stream.frames else {}
    return last.get("id") == stream.rid and "method" not in last


async def answer_until_result(raw: Raw, stream: Stream) -> None:
    """Read ``stream`` to its call's response; answer each elicitation with the stream's label
    (so a result names the stream its question was asked on)."""
    while not answered(stream):
        for frame in messages([await stream.reader.next()]):
            stream.frames.append(frame)
            if frame.get("method") != ELICIT:
                continue
            content = {"name": f"answered on {stream.label}"}
            result = {"action": "accept", "content": content}
            reply = {"jsonrpc": "2.0", "id": frame["id"], "result": result}
            posted = await raw.post(reply, mcp_protocol_version=V0618)
            assert posted.status_code == 202, posted.text


@bounded
async def test_a_question_reaches_the_request_whose_upstream_call_asked() -> None:
    """Call 1 then call 2 in one session; the upstream logs and elicits on both calls' POST
    streams once both are under way: each log message and question arrives on its own call's
    stream (not on the latest call's), and each result carries the answer given there."""
    with bridge_to("http") as url:
        base, _, path = url.rpartition("/")
        async with raw_client(base) as http:
            raw = Raw(http, f"/{path}")
            await raw.start()
            version = {"mcp_protocol_version": V0618}
            first_call = call(1, "pair", {"text": "first"}, token="first")
            second_call = call(2, "pair", {"text": "second"}, token="second")
            async with raw.stream("POST", first_call, **version) as one:
                first = Stream("first", 1, one)
                await first_frame(first)  # the first call is under way upstream
                async with raw.stream("POST", second_call, **version) as two:
                    second = Stream("second", 2, two)
                    await first_frame(second)  # both are: the upstream logs and asks now
                    await asyncio.gather(
                        answer_until_result(raw, first), answer_until_result(raw, second)
                    )
    for stream in (first, second):
        assert [p["progressToken"] for p in stream.of(PROGRESS)] == [stream.label]
        assert [p["data"] for p in stream.of(LOG)] == [stream.label], stream.frames
        assert [p["message"] for p in stream.of(ELICIT)] == [stream.label], stream.frames
        text = stream.result["content"][0]["text"]
        assert text == f"answered on {stream.label}", stream.frames


class Stateless(v2026.Client):
    """A 2026-07-28 client (no session: its questions come as MRTR rounds) answering as ``who``."""

    def __init__(self, who: str) -> None:
        super().__init__(name=who, version="1", timeout=60)
        self.who = who
        self.asked: list[str] = []

    async def on_elicit(self, params: Any, ctx: Any) -> t26.ElicitResult:
        """Answer with this client's name."""
        self.asked.append(str(getattr(params, "message", "?")))
        return t26.ElicitResult(action="accept", content={"name": self.who})


@bounded
async def test_stateless_clients_questions_reach_their_own_rounds() -> None:
    """Two 2026-07-28 clients' calls share the bridge's one upstream connection; the upstream
    asks on both calls' POST streams while both are in flight: each question is put to the
    client whose call it came through, in its MRTR round (it was refused as naming neither)."""
    with bridge_to("http") as url:
        ada, bob = Stateless("ada"), Stateless("bob")
        await connect_http(ada, url)
        await connect_http(bob, url)
        try:
            results = await asyncio.gather(
                ada.call_tool(name="pair", arguments={"text": "for ada"}),
                bob.call_tool(name="pair", arguments={"text": "for bob"}),
            )
        finally:
            await ada.close()
            await bob.close()
    texts = [getattr(result.content[0], "text", None) for result in results]
    assert texts == ["ada", "bob"], results
    assert set(ada.asked) == {"for ada"} and set(bob.asked) == {"for bob"}
