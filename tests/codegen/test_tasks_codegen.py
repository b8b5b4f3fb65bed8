"""The IR decides which requests may run as tasks, from the schema alone (no per-revision flag)."""

from __future__ import annotations

import pytest

from mcpgen.loader.source import resolve
from mcpgen.parser.ir import RevisionIR
from mcpgen.revision import build_ir


def _ir(revision: str) -> RevisionIR:
    ir, _ = build_ir(resolve(revision))
    return ir


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-03-26", "2025-06-18"])
def test_revisions_before_tasks_have_none(revision: str) -> None:
    ir = _ir(revision)
    assert ir.tasks == ()
    assert not any(c.name.endswith(("_as_task", "_task_result")) for c in ir.api.client_calls)


def test_2025_11_25_task_variants_are_decided_in_the_ir() -> None:
    ir = _ir("2025-11-25")
    rows = {t.method: t for t in ir.tasks}
    assert sorted(rows) == ["elicitation/create", "sampling/createMessage", "tools/call"]
    tool = rows["tools/call"]
    assert tool.capability == "tasks.requests.tools.call"
    assert (tool.as_task.constant, tool.as_task.method) == ("TOOLS_CALL_AS_TASK", "tools/call")
    assert tool.as_task.result_type == "CreateTaskResult"
    assert (tool.as_task.capability, tool.as_task.capability_owner) == (
        "tasks.requests.tools.call",
        "receiver",
    )
    assert (tool.payload.method, tool.payload.result_type) == ("tasks/result", "CallToolResult")
    assert tool.payload.direction == "client"
    sampling = rows["sampling/createMessage"]
    assert sampling.capability == "tasks.requests.sampling.createMessage"
    assert sampling.payload.result_type == "CreateMessageResult"
    assert sampling.payload.direction == "server"
    client = {c.name: c for c in ir.api.client_calls}
    as_task = client["call_tool_as_task"]
    assert as_task.result_type == "CreateTaskResult" and as_task.spec == "TOOLS_CALL_AS_TASK"
    [task_arg] = [a for a in as_task.args if a.wire_name == "task"]
    assert task_arg.default == "required"
    assert client["call_tool_task_result"].result_type == "CallToolResult"
    assert [a.wire_name for a in client["call_tool_task_result"].args] == ["taskId"]
    server = {c.name for c in ir.api.server_calls}
    assert {"create_message_as_task", "elicit_as_task", "elicit_task_result"} <= server
    assert "call_tool_as_task" not in server
