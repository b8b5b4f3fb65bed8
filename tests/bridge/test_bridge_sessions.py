"""Two clients on one ``mcpgen bridge --http`` at once, to a handshake upstream over stdio and
over HTTP: each session's upstream questions (elicitation, sampling, ``roots/list``) and log
messages reach that session's client only, and each answer goes back to the call that asked.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
from collections.abc import AsyncGenerator, Generator
from pathlib import Path
from typing import Any

import pytest

from generated._runtime.core.errors import MCPError
from generated._runtime.roles.bridge import AMBIGUOUS, Bridge
from generated._runtime.roles.era import serve
from generated._runtime.transports.http.client import connect_http
from generated._runtime.transports.memory import memory_pair
from generated.converters import BRIDGE
from generated.v2025_06_18 import Client
from generated.v2025_06_18 import types as t
from tests.bridge.asking_server import AskingServer
from tests.bridge.changing_server import NOTE
from tests.bridge.test_bridge_http_gone import listening
from tests.bridge.test_bridge_lifecycle import BOUND_S, children, running
from tests.bridge.test_bridge_stdio import MCPGEN
from tests.support.process_support import free_port, http_process

ROOT = Path(__file__).resolve().parents[2]
PYTHON = sys.executable
ASKING = str(ROOT / "tests" / "bridge" / "asking_server.py")
CHANGING = str(ROOT / "tests" / "bridge" / "changing_server.py")
MEET_TIMEOUT_S = 30.0


class Meeting:
    """Both clients' handlers wait here, so both questions are in flight at the same time."""

    def __init__(self, parties: int = 2) -> None:
        self.parties = parties
        self.arrived = 0
        self.everyone = asyncio.Event()

    async def meet(self) -> None:
        """Arrive; return once every party has (a question held open meanwhile)."""
        self.arrived += 1
        if self.arrived >= self.parties:
            self.everyone.set()
        await asyncio.wait_for(self.everyone.wait(), MEET_TIMEOUT_S)


class Person(Client):
    """A client that answers as ``who``, with its own roots, noting what it was asked."""

    def __init__(self, who: str, meeting: dict[str, Meeting]) -> None:
        super().__init__(name=who, version="1", timeout=60)
        self.who = who
        self.meeting = meeting
        self.asked: list[str] = []
        self.logs: list[Any] = []
        self.updated: list[str] = []

    async def on_elicit(self, params: t.ElicitRequestParams, ctx: Any) -> t.ElicitResult:
        """Answer with this client's name."""
        self.asked.append(params.message)
        await self.meeting["ask"].meet()
        return t.ElicitResult(action="accept", content={"name": self.who})

    async def on_create_message(
        self, params: t.CreateMessageRequestParams, ctx: Any
    ) -> t.CreateMessageResult:
        """Complete with this client's name."""
        content = params.messages[0].content
        self.asked.append(content.text if isinstance(content, t.TextContent) else "?")
        await self.meeting["sample"].meet()
        text = t.TextContent(text=f"{self.who} sampled")
        return t.CreateMessageResult(role="assistant", content=text, model="m")

    async def on_list_roots(self, params: Any, ctx: Any) -> t.ListRootsResult:
        """This client's own root."""
        await self.meeting["roots"].meet()
        return t.ListRootsResult(roots=[t.Root(uri=f"file:///home/{self.who}")])

    async def on_notification(self, method: str, params: Any) -> None:
        """Note log messages and resource updates."""
        if method == "notifications/message":
            self.logs.append(getattr(params, "data", None))
        elif method == "notifications/resources/updated":
            self.updated.append(str(getattr(params, "uri", None)))


def bridge_http(port: int, *upstream: str) -> list[str]:
    """``python -m mcpgen bridge --http 127.0.0.1:PORT UPSTREAM...`` (for ``http_process``)."""
    return ["-m", "mcpgen", "bridge", "--http", f"127.0.0.1:{port}", *upstream]


@contextlib.contextmanager
def bridge_to(kind: str) -> Generator[str]:
    """A bridge over HTTP to the asking server over ``kind`` (stdio or http); yields its URL."""
    if kind == "stdio":
        with http_process(lambda port: bridge_http(port, "--", PYTHON, ASKING)) as url:
            yield url
        return
    with (
        http_process(lambda port: [ASKING, "--http", str(port)]) as upstream,
        http_process(lambda port: bridge_http(port, "--url", upstream)) as url,
    ):
        yield url


@contextlib.asynccontextmanager
async def two_people(url: str) -> AsyncGenerator[tuple[Person, Person]]:
    """Ada and Bob, each in a session of their own on the bridge at ``url``."""
    meeting = {phase: Meeting() for phase in ("ask", "sample", "roots")}
    ada, bob = Person("ada", meeting), Person("bob", meeting)
    await connect_http(ada, url)
    try:
        await connect_http(bob, url)
        try:
            yield ada, bob
        finally:
            await bob.close()
    finally:
        await ada.close()


def text_of(result: t.CallToolResult) -> str:
    """The text of a tool result's first block."""
    block = result.content[0]
    assert isinstance(block, t.TextContent), result
    return block.text


async def both(ada: Person, bob: Person, tool: str) -> tuple[str, str]:
    """Ada and Bob call ``tool`` at once, each with their own text; the two answers."""
    answers = await asyncio.gather(
        ada.call_tool(name=tool, arguments={"text": f"{tool} for ada"}),
        bob.call_tool(name=tool, arguments={"text": f"{tool} for bob"}),
    )
    return text_of(answers[0]), text_of(answers[1])


@pytest.mark.parametrize("upstream", ["stdio", "http"])
async def test_each_session_is_asked_its_own_questions(upstream: str) -> None:
    """Concurrent calls of two sessions whose upstream asks: each client gets only its own
    question, roots and log message, and each answer reaches the call that asked."""
    with bridge_to(upstream) as url:
        async with two_people(url) as (ada, bob):
            assert await both(ada, bob, "ask") == ("ada", "bob")
            assert await both(ada, bob, "sample") == ("ada sampled", "bob sampled")
            assert ada.asked == ["ask for ada", "sample for ada"]
            assert bob.asked == ["ask for bob", "sample for bob"]
            assert await both(ada, bob, "roots") == ("file:///home/ada", "file:///home/bob")
            assert await both(ada, bob, "log") == ("logged", "logged")
            assert ada.logs == ["log for ada"] and bob.logs == ["log for bob"]


async def until(condition: Any, what: str) -> None:
    """Wait (bounded) until ``condition()`` holds."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + BOUND_S
    while not condition():
        assert loop.time() < deadline, what
        await asyncio.sleep(0.1)


@contextlib.asynccontextmanager
async def bridge_command(*options: str, upstream: str = ASKING) -> AsyncGenerator[tuple[int, str]]:
    """``mcpgen bridge --http ... OPTIONS -- python UPSTREAM`` as a process, listening; yields
    its pid and URL, and stops it (SIGINT) at the end."""
    port = free_port()
    process = await asyncio.create_subprocess_exec(
        *[MCPGEN, "bridge", "--http", f"127.0.0.1:{port}", *options, "--", PYTHON, upstream],
        cwd=ROOT,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.DEVNULL,
        stderr=asyncio.subprocess.DEVNULL,
    )
    try:
        await listening(port, process)
        yield process.pid, f"http://127.0.0.1:{port}/mcp"
    finally:
        with contextlib.suppress(ProcessLookupError):
            process.send_signal(signal.SIGINT)
        try:
            await asyncio.wait_for(process.wait(), BOUND_S)
        except TimeoutError:
            os.kill(process.pid, signal.SIGKILL)
            await process.wait()


async def test_a_session_has_its_own_upstream_process_until_it_ends() -> None:
    """Over a stdio upstream, a session's first call spawns its own server process, which ends
    when the session does (DELETE); the bridge's first connection stays."""
    async with bridge_command() as (pid, url):
        [shared] = children(pid)
        ada = Person("ada", {})
        await connect_http(ada, url)
        try:
            assert text_of(await ada.call_tool(name="log", arguments={"text": "hi"})) == "logged"
            [own] = [child for child in children(pid) if child != shared]
            assert ada.logs == ["hi"]
        finally:
            await ada.close()
        await until(lambda: not running(own), "the session's upstream process did not end")
        assert running(shared)


async def test_max_sessions_bounds_the_sessions_and_their_upstream_processes() -> None:
    """With ``--max-sessions 1`` a second session is refused (503, -32000) while the first is
    live, and admitted once it has ended (its server process gone, the new one spawned)."""
    async with bridge_command("--max-sessions", "1") as (pid, url):
        ada, bob = Person("ada", {}), Person("bob", {})
        await connect_http(ada, url)
        try:
            await ada.call_tool(name="log", arguments={"text": "hi"})  # a live, proven session
            assert len(children(pid)) == 2  # the bridge's first connection and Ada's
            with pytest.raises(MCPError, match="1 sessions are live"):
                await connect_http(bob, url)
        finally:
            await ada.close()
        await until(lambda: len(children(pid)) == 1, "Ada's upstream process did not end")
        bob = Person("bob", {})
        await connect_http(bob, url)
        try:
            assert text_of(await bob.call_tool(name="log", arguments={"text": "b"})) == "logged"
            assert len(children(pid)) == 2
        finally:
            await bob.close()


async def test_a_sessions_subscription_goes_up_its_own_connection() -> None:
    """Ada's ``resources/subscribe`` reaches her session's upstream only: her ``touch`` brings
    her the update; Bob's upstream has nothing subscribed and brings him none."""
    async with bridge_command(upstream=CHANGING) as (_, url), two_people(url) as (ada, bob):
        await ada.subscribe(uri=NOTE)
        assert text_of(await ada.call_tool(name="touch")) == NOTE
        assert text_of(await bob.call_tool(name="touch")) == ""
        await until(lambda: ada.updated, "Ada got no update")
        assert ada.updated == [NOTE] and bob.updated == []


async def test_on_one_shared_connection_a_question_among_several_clients_is_refused() -> None:
    """Two sessions on one upstream connection (a ``Bridge`` served without an upstream per
    session): while Ada's call waits for her answer, the question of Bob's call names neither
    call, so it is refused with a named error, never put to Ada; Ada's own is answered."""
    bridge = Bridge(BRIDGE)
    up_client, up_server = memory_pair()
    tasks = [asyncio.create_task(AskingServer().serve(up_server))]
    ours = BRIDGE.clients["2025-06-18"](name="bridge", version="1", timeout=None)
    bridge.upstream_handlers(ours)
    await ours.connect(up_client)
    bridge.attach(ours)
    meeting = {"ask": Meeting()}
    ada, bob = Person("ada", meeting), Person("bob", meeting)
    try:
        for person in (ada, bob):
            down_client, down_server = memory_pair()
            tasks.append(asyncio.create_task(serve(down_server, bridge.served)))
            await person.connect(down_client)
        asking = asyncio.create_task(ada.call_tool(name="ask", arguments={"text": "for ada"}))
        await until(lambda: ada.asked, "Ada was not asked")
        refused = await bob.call_tool(name="ask", arguments={"text": "for bob"})
        assert refused.is_error is True and AMBIGUOUS in text_of(refused), refused
        meeting["ask"].everyone.set()
        assert text_of(await asyncio.wait_for(asking, BOUND_S)) == "ada"
        assert ada.asked == ["for ada"] and bob.asked == []
    finally:
        for person in (ada, bob):
            await person.close()
        await bridge.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
