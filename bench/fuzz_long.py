"""The long fuzz run of issue #9: hostile frames to a stdio server process and an HTTP server.

``python bench/fuzz_long.py [stdio_frames] [http_frames] [seed]`` (defaults 100000, 10000,
random; a count of 0 skips that transport). Frames come from the strategies of
``tests/support/fuzz_support.py`` (hypothesis, random seed unless given); after each frame the
server must answer a ping. Counted: frames sent, crashes (the process exited; it is
restarted), hangs (no answer within 5 s), wrong codes (an answer the spec oracle refuses, or a
wrong HTTP status); for stdio, the server's RSS before and after. Prints one line per transport
and the first few problems.
"""

from __future__ import annotations

import asyncio
import json
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import httpx
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import seed as use_seed

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.core.test_harden_fuzz import (  # noqa: E402
    LineProcess,
    http_answers,
    http_status_fits,
    stdio_line,
)
from tests.support.fuzz_support import check_answer, expect, frames  # noqa: E402
from tests.support.harden_support import rss_mib, server_process  # noqa: E402
from tests.support.http_support import ACCEPT_BOTH, JSON_CT, initialize, notification  # noqa: E402

SHOWN = 5


@dataclass
class Figures:
    """What one run counted."""

    sent: int = 0
    rss: str = ""
    """The stdio server's RSS at start and at end (MiB), when measured."""
    crashes: int = 0
    hangs: int = 0
    wrong: int = 0
    problems: list[str] = field(default_factory=list)

    def note(self, frame: bytes, problem: str) -> None:
        """Keep the first few problems."""
        if len(self.problems) < SHOWN:
            self.problems.append(f"{frame[:120]!r}: {problem[:300]}")

    def line(self, name: str, seconds: float) -> str:
        """The figures as one line."""
        return (
            f"{name}: frames {self.sent}, crashes {self.crashes}, hangs {self.hangs}, "
            f"wrong codes {self.wrong} ({seconds:.0f} s){self.rss}"
        )


def run_settings(count: int) -> settings:
    """Generate ``count`` examples, no shrinking, no database."""
    return settings(
        max_examples=count,
        deadline=None,
        database=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )


def start_stdio() -> LineProcess:
    """A stdio server, initialized."""
    server = LineProcess()
    server.send(json.dumps(initialize()).encode())
    server.recv()
    server.send(json.dumps(notification("notifications/initialized")).encode())
    return server


def stdio_run(count: int, seed: int) -> Figures:
    """``count`` hostile lines to a stdio server process, a ping after each."""
    figures = Figures()
    server = start_stdio()
    server.until_pong("ping-start")
    start_rss = rss_mib(server.process.pid)
    pings = iter(range(10**9))

    @use_seed(seed)
    @run_settings(count)
    @given(frame=frames.map(stdio_line).filter(lambda f: f.strip() != b""))
    def one(frame: bytes) -> None:
        nonlocal server
        figures.sent += 1
        try:
            server.send(frame)
            answers = server.until_pong(f"ping-{next(pings)}")
        except (AssertionError, OSError) as exc:
            exited = server.process.poll() is not None
            figures.crashes += exited
            figures.hangs += not exited
            figures.note(frame, f"{'crash' if exited else 'hang'}: {exc}")
            server.process.kill()
            server = start_stdio()
            return
        problem = check_answer(expect(frame.strip()), answers)
        if problem is not None:
            figures.wrong += 1
            figures.note(frame, problem)
        if figures.sent % 10_000 == 0:
            print(f"  stdio: {figures.sent} frames", flush=True)

    one()
    server.until_pong("ping-end")
    figures.rss = f", RSS MiB {start_rss:.1f} -> {rss_mib(server.process.pid):.1f} (last process)"
    server.close()
    return figures


async def http_run(count: int, seed: int) -> Figures:
    """``count`` hostile bodies POSTed into one session of a server process, a ping after each."""
    figures = Figures()
    async with server_process() as (process, url), httpx.AsyncClient(timeout=5.0) as client:
        headers = {**ACCEPT_BOTH, **JSON_CT}
        started = await client.post(url, json=initialize(), headers=headers)
        headers["mcp-session-id"] = started.headers["mcp-session-id"]
        await client.post(url, json=notification("notifications/initialized"), headers=headers)
        loop = asyncio.get_running_loop()
        pings = iter(range(10**9))

        async def one(frame: bytes) -> None:
            figures.sent += 1
            try:
                response = await client.post(url, content=frame, headers=headers)
                rid = f"ping-{next(pings)}"
                ping = {"jsonrpc": "2.0", "id": rid, "method": "ping"}
                pong = await client.post(url, json=ping, headers=headers)
            except httpx.HTTPError as exc:
                exited = process.poll() is not None
                figures.crashes += exited
                figures.hangs += not exited
                figures.note(frame, f"{'crash' if exited else 'hang'}: {exc!r}")
                return
            try:
                answers = http_answers(response)
                problem = check_answer(expect(frame), answers)
                if problem is None and not http_status_fits(response, answers):
                    problem = f"status {response.status_code} for {answers}"
                if http_answers(pong) != [{"jsonrpc": "2.0", "id": rid, "result": {}}]:
                    problem = f"no pong: {pong.status_code} {pong.text[:200]}"
            except ValueError as exc:  # an answer that is not JSON
                problem = f"unreadable answer {response.text[:200]!r}: {exc}"
            if problem is not None:
                figures.wrong += 1
                figures.note(frame, problem)
            if figures.sent % 5_000 == 0:
                print(f"  http: {figures.sent} frames", flush=True)

        @use_seed(seed)
        @run_settings(count)
        @given(frame=frames.filter(lambda f: b'"initialize"' not in f))
        def each(frame: bytes) -> None:
            asyncio.run_coroutine_threadsafe(one(frame), loop).result(30)

        await asyncio.to_thread(each)
    return figures


def main() -> None:
    """Run both, print the figures."""
    stdio_frames = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    http_frames = int(sys.argv[2]) if len(sys.argv) > 2 else 10_000
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else random.randrange(2**32)
    print(f"seed {seed}")
    results = []
    for name, count, run in [
        ("stdio", stdio_frames, lambda: stdio_run(stdio_frames, seed)),
        ("http ", http_frames, lambda: asyncio.run(http_run(http_frames, seed))),
    ]:
        if count == 0:
            continue
        start = time.perf_counter()
        figures = run()
        results.append((name, figures, time.perf_counter() - start))
        print(figures.line(name, time.perf_counter() - start), flush=True)
    print("summary")
    for name, figures, seconds in results:
        print(figures.line(name, seconds))
        for problem in figures.problems:
            print("   ", problem)


if __name__ == "__main__":
    main()
