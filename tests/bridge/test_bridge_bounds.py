"""The bounds of ``mcpgen bridge``'s downstream side, set on its command line.

``--max-frame`` and ``--max-depth`` over stdio: a frame over the size or nesting given is
refused with an error naming the configured limit, and the bridge goes on serving; over
``--http``, ``--max-frame`` bounds a POST body (413 naming the limit). Frames within the
bounds pass to the upstream as before.
"""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest
from click.testing import CliRunner

from codegen.bridge_command import bridge_command
from tests.bridge.test_bridge_http import STATELESS_ONLY, bridge_http
from tests.bridge.test_bridge_lifecycle import bridge
from tests.support.process_support import http_process

LIMIT = 2048
DEPTH = 8


def call(request_id: int, text: str | object) -> dict[str, object]:
    """A ``tools/call`` of the upstream's ``sleep`` tool (0 s) carrying ``text``."""
    arguments = {"s": 0, "text": text}
    params = {"name": "sleep", "arguments": arguments}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": params}


def nested(levels: int) -> object:
    """A value of ``levels`` nested arrays."""
    value: object = 0
    for _ in range(levels):
        value = [value]
    return value


async def test_stdio_refuses_a_frame_over_the_configured_size() -> None:
    """With --max-frame 2048 a 4 KB line gets an error naming 2048; a smaller one still works."""
    async with bridge(options=("--max-frame", str(LIMIT))) as down:
        await down.send(call(2, "x" * 4000))
        refused = await down.answer(None)
        assert f"exceeds the limit of {LIMIT}" in json.dumps(refused["error"]), refused
        await down.send(call(3, "x" * 1000))
        answered = await down.answer(3)
        assert "result" in answered, answered


async def test_stdio_refuses_a_frame_nested_deeper_than_configured() -> None:
    """With --max-depth 8 a frame nested 12 deep is refused naming 8; 5 deep passes."""
    async with bridge(options=("--max-depth", str(DEPTH))) as down:
        await down.send(call(2, nested(12)))
        refused = await down.answer(None)
        assert refused["error"]["code"] == -32600, refused
        assert f"deeper than {DEPTH} levels" in refused["error"]["message"], refused
        await down.send(call(3, nested(2)))
        answered = await down.answer(3)
        assert "result" in answered, answered


def test_http_refuses_a_body_over_the_configured_size() -> None:
    """With --http and --max-frame 2048 a 4 KB POST is 413 naming 2048."""
    body = json.dumps(call(1, "x" * 4000)).encode()
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}

    def argv(port: int) -> list[str]:
        command = bridge_http(port, *STATELESS_ONLY)
        at = command.index("--")
        return [*command[:at], "--max-frame", str(LIMIT), *command[at:]]

    with http_process(argv) as url:
        request = urllib.request.Request(url, data=body, headers=headers, method="POST")
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=10)
        assert refused.value.code == 413
        assert str(LIMIT) in refused.value.read().decode()


def test_stream_bytes_needs_http() -> None:
    """--max-stream-bytes without --http is a usage error, not ignored."""
    done = CliRunner().invoke(bridge_command, ["--max-stream-bytes", "9", "--", "python", "s.py"])
    assert done.exit_code == 2 and "--http" in done.output, done.output
