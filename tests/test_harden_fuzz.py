"""Fuzzing (issue #9): hostile frames to the session core, a stdio server process and the ASGI app.

Each frame's answer is checked against the oracle of ``fuzz_support`` (the JSON-RPC code and
id it must carry, from the spec alone), and after each frame the peer must still answer a
ping. The session core gets thousands of frames per kind; the processes fewer. Bounded in
time: fixed example counts, derandomized (the long run in bench/fuzz_long.py is random).
"""

from __future__ import annotations

import asyncio
import json
import queue
import re
import subprocess
import sys
import threading
from typing import Any

import httpx
import pytest
from hypothesis import HealthCheck, given, settings

from generated._runtime.core.events import Request
from generated._runtime.core.session import Session
from generated.v2025_06_18.methods import METHODS
from tests.fuzz_support import KINDS, check_answer, expect, frames
from tests.http_support import ACCEPT_BOTH, JSON_CT, initialize, live_app, notification
from tests.test_runtime_stdio import SCRIPT

CORE_EXAMPLES = 1000
"""Frames per kind fed to the session core (8 kinds: 8,000 frames)."""
PROCESS_EXAMPLES = 400
"""Frames fed to the stdio process and to the HTTP app."""
ANSWER_S = 5.0
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

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, SCRIPT], stdin=subprocess.PIPE, stdout=subprocess.PIPE
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
        self.send(json.dumps({"jsonrpc": "2.0", "id": rid, "method": "ping"}).encode())
        before = []
        while (frame := self.recv()) != {"jsonrpc": "2.0", "id": rid, "result": {}}:
            before.append(frame)
        return before

    def close(self) -> int:
        """Close stdin; return the exit code."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(10)


def stdio_line(frame: bytes) -> bytes:
    """A frame as one stdio line: no line breaks inside (they would split it)."""
    return frame.replace(b"\n", b" ").replace(b"\r", b" ")


def test_stdio_server_process_answers_hostile_frames_and_keeps_serving() -> None:
    """Hostile lines to a real server process: right codes, never an exit, always a pong."""
    server = LineProcess()
    try:
        server.send(json.dumps(initialize()).encode())
        assert "result" in server.recv()
        server.send(json.dumps(notification("notifications/initialized")).encode())
        count = iter(range(10**9))

        @fuzz_settings(PROCESS_EXAMPLES)
        @given(frame=frames.map(stdio_line).filter(lambda f: f.strip() != b""))
        def check(frame: bytes) -> None:
            server.send(frame)
            answers = server.until_pong(f"ping-{next(count)}")
            problem = check_answer(expect(frame.strip()), answers)
            assert problem is None, (frame[:300], problem)

        check()
        assert server.close() == 0
    finally:
        if server.process.poll() is None:
            server.process.kill()


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
