"""The client/server demo: the client passes against the demo server and fails elsewhere;
the demo server survives garbage on stdin. Everything runs as real subprocesses over pipes."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from tests.support.process_support import demo_over_http

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "examples" / "demo_client.py"
SERVER = ROOT / "examples" / "demo_server.py"
DEMO_TIMEOUT_S = 60.0
LINE_TIMEOUT_S = 30.0

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "1"},
    },
}

# A server with a single tool: the demo client must notice it is not the demo server.
NOT_THE_DEMO = """
import sys
sys.path.insert(0, ".")
from generated.v2025_06_18 import Server
from generated.v2025_06_18 import types as t

class Echo(Server):
    async def list_tools(self, params, ctx):
        return t.ListToolsResult(tools=[t.Tool(name="echo", input_schema={"type": "object"})])

Echo().run_stdio()
"""


async def run_client(*server: str) -> tuple[int, str, str]:
    """Run the demo client (against ``server`` if given); return status, stdout, stderr."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(CLIENT),
        *server,
        cwd=ROOT,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        out, err = await asyncio.wait_for(proc.communicate(), DEMO_TIMEOUT_S)
    except TimeoutError:
        proc.kill()
        await proc.wait()
        raise
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def test_demo_client_passes_against_the_demo_server() -> None:
    """Every step passes and the transcript shows the server's requests and notifications."""
    code, out, err = await run_client()
    assert code == 0, f"stdout:\n{out}\nstderr:\n{err}"
    assert "FAILED" not in out
    for line in (
        "  server mcpgen-demo 1.0.0, protocol 2025-06-18",
        "  ok  media returns image, audio, embedded resource, link",
        "  ok  weather returns structured content",
        "  ok  a failing tool returns isError",
        "  <- progress 3.0/3.0: step 3 of 3",
        "  ok  after setLevel debug, debug logs arrive",
        "  <- sampling/createMessage: text 'Summarize in one line: milk; Ada', maxTokens=50",
        "  <- elicitation/create: 'Who is the table for?' asking for name, guests, terrace",
        "  <- roots/list",
        "  ok  read a blob resource",
        "  ok  read a templated resource: demo://notes/1 is 'buy milk'",
        "  <- notifications/resources/updated: demo://notes/2",
        "  ok  no update after unsubscribe",
        "  ok  a prompt with an embedded resource",
        "  ok  complete demo://notes/{id} id '1': ['1', '12']",
        "  ok  the server answered ping",
        "== demo finished: every step behaved as expected",
    ):
        assert line in out.splitlines(), f"missing {line!r} in:\n{out}"
    assert "Traceback" not in err, err


async def test_demo_client_fails_against_another_server() -> None:
    """The demo checks what it gets: a server with other tools makes it exit 1."""
    code, out, err = await run_client(sys.executable, "-c", NOT_THE_DEMO)
    assert code == 1, f"stdout:\n{out}\nstderr:\n{err}"
    assert "FAILED: DemoFailed: every server capability declared" in out
    assert "demo finished" not in out


async def read_message(stdout: asyncio.StreamReader) -> dict[str, Any]:
    """Read one newline-delimited JSON-RPC message from the server."""
    line = await asyncio.wait_for(stdout.readline(), LINE_TIMEOUT_S)
    assert line.endswith(b"\n"), f"the server closed stdout: {line!r}"
    message: dict[str, Any] = json.loads(line)
    return message


async def test_demo_server_survives_garbage_lines() -> None:
    """Each unparsable line gets a -32700 error with id null; then initialize still works."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable,
        str(SERVER),
        cwd=ROOT,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    try:
        for garbage in (b"garbage", b'{"jsonrpc": "2.0", "id": 1, "method":', b"\xff\xfe{}"):
            proc.stdin.write(garbage + b"\n")
            await proc.stdin.drain()
            error = await read_message(proc.stdout)
            assert error["jsonrpc"] == "2.0"
            assert "id" in error and error["id"] is None, error
            assert error["error"]["code"] == -32700, error
            assert "result" not in error
        proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        await proc.stdin.drain()
        answer = await read_message(proc.stdout)
        assert answer["id"] == 1 and "error" not in answer, answer
        assert answer["result"]["protocolVersion"] == "2025-06-18"
        assert answer["result"]["serverInfo"] == {"name": "mcpgen-demo", "version": "1.0.0"}
        proc.stdin.close()
        rest = await asyncio.wait_for(proc.stdout.read(), LINE_TIMEOUT_S)
        assert rest == b"", f"unexpected output after initialize: {rest!r}"
        code = await asyncio.wait_for(proc.wait(), LINE_TIMEOUT_S)
        err = await proc.stderr.read()
        assert code == 0, err.decode()
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()


async def test_demo_server_replays_a_session_from_a_file(tmp_path: Path) -> None:
    """``server < session.jsonl > answers.jsonl`` answers the recorded requests."""
    session, answers = tmp_path / "session.jsonl", tmp_path / "answers.jsonl"
    session.write_bytes(json.dumps(INITIALIZE).encode() + b"\n")
    with session.open("rb") as stdin, answers.open("wb") as stdout:
        proc = await asyncio.create_subprocess_exec(
            sys.executable,
            str(SERVER),
            cwd=ROOT,
            stdin=stdin,
            stdout=stdout,
            stderr=asyncio.subprocess.PIPE,
        )
        _, err = await asyncio.wait_for(proc.communicate(), DEMO_TIMEOUT_S)
    assert proc.returncode == 0, err.decode()
    answer = json.loads(answers.read_bytes())
    assert answer["id"] == 1 and answer["result"]["protocolVersion"] == "2025-06-18"


async def test_demo_client_passes_over_http_and_the_http_sse_fallback() -> None:
    """The same demo over Streamable HTTP, then through /sse (the HTTP+SSE fallback)."""
    with demo_over_http() as url:
        base = url.removesuffix("/mcp")
        for path in ("/mcp", "/sse"):
            code, out, err = await run_client(f"{base}{path}")
            assert code == 0, f"{path} stdout:\n{out}\nstderr:\n{err}"
            assert "== demo finished: every step behaved as expected" in out
            assert "  ok  after setLevel debug, debug logs arrive" in out
