"""Fuzzing (issue #9): hostile frames to the session core, a stdio server process and the ASGI app.

Each frame's answer is checked against the oracle of ``fuzz_support`` (the JSON-RPC code and
id it must carry, from the spec alone), and after each frame the peer must still answer a
ping (or, in the stateless era, ``server/discover``). Every era is fuzzed (#16): initialize-era
sessions, the dual-era stdio loop before and after ``initialize``, and 2026-07-28 POSTs, with
frames of that era and ids of every JSON type. The session core gets thousands of frames per
kind; the processes fewer. Bounded in time: fixed example counts, derandomized (the long run
in bench/fuzz_long.py is random).
"""

from __future__ import annotations

import asyncio
import json
import queue
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings

from generated._runtime.core.events import Request
from generated._runtime.core.session import Session
from generated.v2025_06_18.methods import METHODS
from tests.support.era_support import EchoHandshake, FixtureServer
from tests.support.fuzz_support import (
    KINDS,
    META_CAPABILITIES,
    META_VERSION,
    STATELESS_VERSION,
    Era,
    check_answer,
    expect,
    frames,
    stateless_hostile,
)
from tests.support.http_support import (
    ACCEPT_BOTH,
    JSON_CT,
    initialize,
    live_app,
    notification,
    serve,
)
from tests.transports.stdio.test_runtime_stdio import SCRIPT

ROOT = Path(__file__).resolve().parents[2]
CORE_EXAMPLES = 1000
"""Frames per kind fed to the session core (8 kinds: 8,000 frames)."""
PROCESS_EXAMPLES = 400
"""Frames fed to the stdio process and to the HTTP app."""
ANSWER_S = 30.0
"""How long a process may take to answer one frame before it counts as a hang."""


def fuzz_settings(examples: int) -> settings:
    """Fixed count, no deadline, reproducible, no example database."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )


class CoreServer:
    """A 2025-06-18 server session driven by hand: accepted requests are answered ``{}``."""

    def __init__(self) -> None:
        self.session = Session(METHODS, role="server")
        self.pings = 0

    def feed(self, frame: bytes) -> list[Any]:
        """Feed one frame; return every frame the session sends back, decoded."""
        for event in self.session.receive(frame):
            if isinstance(event, Request):
                self.session.send_response(event.id, {})
        return [json.loads(out) for out in self.session.data_to_send()]

    def ping(self) -> None:
        """The session still takes a request and answers it."""
        self.pings += 1
        rid = f"ping-{self.pings}"
        answers = self.feed(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "ping"}).encode())
        assert answers == [{"jsonrpc": "2.0", "id": rid, "result": {}}]


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_session_core_answers_every_hostile_frame_by_the_spec(kind: str) -> None:
    """Thousands of frames of one kind: the right code and id, no exception, pings answered."""
    server = CoreServer()

    @fuzz_settings(CORE_EXAMPLES)
    @given(frame=KINDS[kind])
    def check(frame: bytes) -> None:
        problem = check_answer(expect(frame), server.feed(frame))
        assert problem is None, (frame[:300], problem)
        server.ping()

    check()


class LineProcess:
    """A stdio server process spoken to line by line, with bounded waits (a thread reads)."""

    def __init__(self, args: Sequence[str] = (SCRIPT,)) -> None:
        """Start ``python ARGS`` from the project root."""
        self.process = subprocess.Popen(
            [sys.executable, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=ROOT
        )
        self.lines: queue.Queue[bytes] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.put(line)
        self.lines.put(b"")

    def send(self, frame: bytes) -> None:
        """Write one line."""
        assert self.process.stdin is not None
        self.process.stdin.write(frame + b"\n")
        self.process.stdin.flush()

    def recv(self) -> Any:
        """The next line, decoded; fails on a hang or an exit."""
        try:
            line = self.lines.get(timeout=ANSWER_S)
        except queue.Empty:
            raise AssertionError("the server hung") from None
        assert line, f"the server exited with {self.process.wait()}"
        return json.loads(line)

    def until_pong(self, rid: str) -> list[Any]:
        """Send a ping; return the frames that came before its answer."""
        before, pong = self.until_answer({"jsonrpc": "2.0", "id": rid, "method": "ping"})
        assert pong == {"jsonrpc": "2.0", "id": rid, "result": {}}, pong
        return before

    def until_answer(self, request: dict[str, Any]) -> tuple[list[Any], Any]:
        """Send a request; return the frames that came before its answer, and the answer."""
        self.send(json.dumps(request).encode())
        before = []
        while not _answers(frame := self.recv(), request["id"]):
            before.append(frame)
        return before, frame

    def close(self) -> int:
        """Close stdin; return the exit code."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(ANSWER_S)


def _answers(frame: Any, request_id: Any) -> bool:
    """Whether ``frame`` is a response to the request ``request_id``."""
    return isinstance(frame, dict) and "method" not in frame and frame.get("id") == request_id


def stdio_line(frame: bytes) -> bytes:
    """A frame as one stdio line: no line breaks inside (they would split it)."""
    return frame.replace(b"\n", b" ").replace(b"\r", b" ")


STDIO_SERVERS: dict[str, Sequence[str]] = {
    "initialize-era": [SCRIPT],
    "dual-era": ["-m", "tests.support.era_fixture_server", "stdio"],
    "stateless": ["-m", "tests.support.era_fixture_server", "stdio-stateless"],
    "demo": [str(ROOT / "examples" / "demo_server.py")],
}
"""Stdio servers of each kind, as arguments to the Python interpreter (run from the root)."""
FUZZED_ERAS: dict[Era, tuple[str, str | None]] = {
    "initialize": ("initialize-era", "2025-06-18"),
    "stateless": ("dual-era", None),
    "dual": ("dual-era", "2025-11-25"),
}
"""Each era of the oracle: the server that reads it, and the revision it is initialized with
(None: never; the dual-era loop then hands every frame to the stateless engine)."""


def stateless_probe(rid: str) -> dict[str, Any]:
    """A ``server/discover`` of the stateless era: the server still answers."""
    meta = {META_VERSION: STATELESS_VERSION, META_CAPABILITIES: {}}
    return {"jsonrpc": "2.0", "id": rid, "method": "server/discover", "params": {"_meta": meta}}


@pytest.mark.parametrize("era", sorted(FUZZED_ERAS))
def test_stdio_server_process_answers_hostile_frames_and_keeps_serving(era: Era) -> None:
    """Hostile lines to a real server process: right codes, never an exit, always an answer.

    Each era is fuzzed: an initialize-era server after its handshake, the dual-era loop
    before any ``initialize`` (every frame to the stateless engine, 2026-07-28 frames among
    them) and after one (each frame routed by its ``_meta``).
    """
    kind, version = FUZZED_ERAS[era]
    server = LineProcess(STDIO_SERVERS[kind])
    try:
        if version is not None:
            server.send(json.dumps(initialize(0, version)).encode())
            assert "result" in server.recv()
            server.send(json.dumps(notification("notifications/initialized")).encode())
        hostile = frames if era == "initialize" else stateless_hostile
        count = iter(range(10**9))

        @fuzz_settings(PROCESS_EXAMPLES)
        @given(frame=hostile.map(stdio_line).filter(fit_before_handshake(version)))
        def check(frame: bytes) -> None:
            server.send(frame)
            rid = f"probe-{next(count)}"
            if version is not None:
                answers = server.until_pong(rid)
            else:
                answers, answer = server.until_answer(stateless_probe(rid))
                assert "supportedVersions" in answer.get("result", {}), answer
            problem = check_answer(expect(frame.strip(), era=era), answers)
            assert problem is None, (frame[:300], problem)

        check()
        assert server.close() == 0
    finally:
        if server.process.poll() is None:
            server.process.kill()


def fit_before_handshake(version: str | None) -> Callable[[bytes], bool]:
    """Lines worth sending: not blank; before a handshake, none that could start one."""
    if version is not None:
        return lambda frame: frame.strip() != b""
    return lambda frame: frame.strip() != b"" and b'"initialize"' not in frame


def http_answers(response: httpx.Response) -> list[Any]:
    """The JSON-RPC messages of an HTTP answer (a JSON body or an SSE stream)."""
    if response.status_code == 202:
        return []
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        lines = re.split(r"\r\n|\r|\n", response.text)  # SSE line ends only, not U+0085 etc.
        return [
            json.loads(line[5:]) for line in lines if line.startswith("data:") and line[5:].strip()
        ]
    return [response.json()]


def http_status_fits(response: httpx.Response, answers: list[Any]) -> bool:
    """400 for a refused body, 200 for a request's answer, 202 for nothing to answer."""
    if not answers:
        return response.status_code == 202
    error = answers[0].get("error") if len(answers) == 1 else None
    if isinstance(error, dict) and error.get("code") in (-32700, -32600):
        return response.status_code == 400
    return response.status_code == 200


async def test_http_app_answers_hostile_bodies_and_keeps_serving() -> None:
    """Hostile bodies POSTed into one session: 4xx + right code, or the right answer; pings pass."""
    async with live_app(nodelay=True) as live:
        await live.raw.start()
        headers = {**ACCEPT_BOTH, **JSON_CT, "mcp-session-id": live.raw.session_id or ""}
        loop = asyncio.get_running_loop()
        count = iter(range(10**9))

        async def one(frame: bytes) -> str | None:
            response = await live.client.post("/mcp", content=frame, headers=headers)
            answers = http_answers(response)
            problem = check_answer(expect(frame), answers)
            if problem is None and not http_status_fits(response, answers):
                problem = f"status {response.status_code} for {answers}"
            rid = f"ping-{next(count)}"
            pong = await live.client.post(
                "/mcp", json={"jsonrpc": "2.0", "id": rid, "method": "ping"}, headers=headers
            )
            if http_answers(pong) != [{"jsonrpc": "2.0", "id": rid, "result": {}}]:
                problem = f"no pong after it: {pong.status_code} {pong.text[:200]}"
            return problem

        # Hypothesis drives a sync function: each example runs in the test's loop, from a thread.
        @fuzz_settings(PROCESS_EXAMPLES)
        @given(frame=frames.filter(lambda f: b'"initialize"' not in f))
        def check(frame: bytes) -> None:
            problem = asyncio.run_coroutine_threadsafe(one(frame), loop).result(ANSWER_S * 2)
            assert problem is None, (frame[:300], problem)

        await asyncio.to_thread(check)


def stateless_status_fits(response: httpx.Response, answers: list[Any]) -> bool:
    """The stateless era's statuses: 202 for a notification, 400 for a refused body (with
    -32700/-32600, or empty for a response), 200 for a result, 200/400/404 for other errors."""
    if not answers:
        return response.status_code == 202 or (response.status_code == 400 and not response.content)
    error = answers[0].get("error") if len(answers) == 1 else None
    if not isinstance(error, dict):
        return response.status_code == 200
    if error.get("code") in (-32700, -32600):
        return response.status_code == 400
    return response.status_code in (200, 400, 404)


async def test_stateless_http_answers_hostile_bodies_and_keeps_serving() -> None:
    """Hostile bodies POSTed with the 2026-07-28 header: right code and status; discover passes."""
    async with (
        serve([FixtureServer(), EchoHandshake()], nodelay=True) as (_, url),
        httpx.AsyncClient(base_url=url, timeout=ANSWER_S) as client,
    ):
        headers = {**ACCEPT_BOTH, **JSON_CT, "mcp-protocol-version": STATELESS_VERSION}
        loop = asyncio.get_running_loop()
        count = iter(range(10**9))

        async def one(frame: bytes) -> str | None:
            method = _method_of(frame)
            sent = {**headers, "mcp-method": method} if method is not None else headers
            response = await client.post("/mcp", content=frame, headers=sent)
            answers = http_answers(response) if response.content else []
            problem = check_answer(expect(frame, era="stateless"), answers)
            if problem is None and not stateless_status_fits(response, answers):
                problem = f"status {response.status_code} for {answers}"
            probe = stateless_probe(f"probe-{next(count)}")
            alive = await client.post(
                "/mcp", json=probe, headers={**headers, "mcp-method": "server/discover"}
            )
            if "supportedVersions" not in (alive.json().get("result") or {}):
                problem = f"no discover after it: {alive.status_code} {alive.text[:200]}"
            return problem

        @fuzz_settings(PROCESS_EXAMPLES)
        @given(frame=stateless_hostile)
        def check(frame: bytes) -> None:
            problem = asyncio.run_coroutine_threadsafe(one(frame), loop).result(ANSWER_S * 2)
            assert problem is None, (frame[:300], problem)

        await asyncio.to_thread(check)


def _method_of(frame: bytes) -> str | None:
    """The ``method`` of a frame that is a JSON object with a string one (for its header)."""
    try:
        value = json.loads(frame)
    except (ValueError, RecursionError):
        return None
    method = value.get("method") if isinstance(value, dict) else None
    return method if isinstance(method, str) and method.isascii() and method.isprintable() else None
