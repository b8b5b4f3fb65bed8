"""The official TypeScript SDK's task client against our 2025-11-25 server, over stdio.

``tests/node/ts_task_client.mjs`` calls ``delay`` as a task through the SDK's
``callToolStream`` (task created, polled, result fetched), then creates one by hand, reads,
lists and cancels it, and prints what it saw.
"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.interop._support import HERE, ROOT
from tests.support.node_tools import node_env, node_tool

CLIENT = str(ROOT / "tests" / "node" / "ts_task_client.mjs")
SERVER = str(HERE / "ours_task_server.py")


def test_ts_sdk_client_runs_polls_lists_and_cancels_tasks_on_our_server() -> None:
    run = subprocess.run(
        [node_tool("node"), CLIENT, sys.executable, SERVER],
        capture_output=True,
        text=True,
        timeout=60,
        env=node_env(),
        cwd=str(ROOT),
        check=False,
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout.strip().splitlines()[-1])
    assert seen["capabilities"]["tasks"] == {
        "list": {},
        "cancel": {},
        "requests": {"tools": {"call": {}}},
    }
    stream = seen["stream"]
    assert stream[0] == {"type": "taskCreated", "status": "working"}
    assert stream[-2] == {"type": "taskStatus", "status": "completed"}
    result = stream[-1]["result"]
    assert result["content"] == [{"type": "text", "text": "slept 100"}]
    assert list(result["_meta"]) == ["io.modelcontextprotocol/related-task"]
    assert seen["created"] == "working" and seen["get"] == "working"
    assert seen["listed"] == ["completed", "working"]
    assert seen["cancel"] == "cancelled"
    assert seen["cancelAgain"] == -32602 and seen["missing"] == -32602
