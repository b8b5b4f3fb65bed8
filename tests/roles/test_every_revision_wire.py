"""One server for every revision, on the wire: what ``every_revision`` sends each client.

A 2025-11-25 server is served with its adapters over an in-memory connection, and a raw
client of each revision (the initialize handshake, or a 2026-07-28 stateless request) reads
the frames: a tool's JSON Schemas reach every revision whole, and a client's params that
cannot be converted are invalid params, as they are without conversion.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest

from generated.converters import ORDER, every_revision
from generated.v2025_06_18 import Server as Server0618
from generated.v2025_11_25 import Server, ServerContext
from generated.v2025_11_25 import types as t
from generated.v2026_07_28 import Server as Server0728
from generated.v2026_07_28 import types as tm
from tests.support.http_support import bounded
from tests.support.runtime_support import RawPeer, serving

STATELESS = "2026-07-28"
INPUT_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "properties": {
        "region": {"type": "string", "x-mcp-header": "Region"},
        "query": {"type": "string", "description": "The SQL to run"},
        "limit": {"$ref": "#/$defs/limit"},
    },
    "required": ["region", "query"],
    "additionalProperties": False,
    "$defs": {"limit": {"type": "integer", "minimum": 1}},
}
OUTPUT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"rows": {"type": "array", "items": {"type": "object"}}},
    "required": ["rows"],
}
OUTPUT_SINCE = "2025-06-18"
"""The first revision whose ``Tool`` has ``outputSchema``."""


class SchemaServer(Server):
    """A 2025-11-25 server with one tool whose schemas use more than the typed members."""

    name = "schemas"

    async def list_tools(
        self, params: t.PaginatedRequestParams | None, ctx: ServerContext
    ) -> t.ListToolsResult:
        """The one tool, schemas copied so no test sees another's edits."""
        tool = t.Tool(
            name="execute_sql",
            input_schema=copy.deepcopy(INPUT_SCHEMA),
            output_schema=copy.deepcopy(OUTPUT_SCHEMA),
        )
        return t.ListToolsResult(tools=[tool])

    async def complete(
        self, params: t.CompleteRequestParams, ctx: ServerContext
    ) -> t.CompleteResult:
        """Never reached by the requests these tests send."""
        raise AssertionError(f"unexpected completion/complete: {params!r}")


def stateless_meta() -> dict[str, Any]:
    """The ``_meta`` every 2026-07-28 request carries."""
    return {
        "io.modelcontextprotocol/protocolVersion": STATELESS,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
    }


async def call(peer: RawPeer, revision: str, method: str, params: dict[str, Any]) -> Any:
    """One request of ``revision``: after the handshake, or stateless with its ``_meta``."""
    if revision == STATELESS:
        return await peer.call(1, method, {**params, "_meta": stateless_meta()})
    await peer.initialize(revision)
    return await peer.call(1, method, params)


@pytest.mark.parametrize("revision", ORDER)
@bounded
async def test_tool_schemas_reach_every_revision_whole(revision: str) -> None:
    """``tools/list`` through ``every_revision`` carries the original schemas at each revision."""
    server, *adapters = every_revision(SchemaServer())
    async with serving(server, *adapters) as peer:
        reply = await call(peer, revision, "tools/list", {})
    [tool] = reply["result"]["tools"]
    assert tool["inputSchema"] == INPUT_SCHEMA
    if ORDER.index(revision) >= ORDER.index(OUTPUT_SINCE):
        assert tool["outputSchema"] == OUTPUT_SCHEMA
    else:
        assert "outputSchema" not in tool


class Complete0618(Server0618):
    """A strict 2025-06-18 server with completions: the unconverted answer to compare with."""

    name = "complete-0618"
    tolerant = False

    async def complete(self, params: Any, ctx: Any) -> Any:
        """Never reached by the requests these tests send."""
        raise AssertionError(f"unexpected completion/complete: {params!r}")


UNKNOWN_REF = {
    "ref": {"type": "ref/unknown", "name": "x"},
    "argument": {"name": "a", "value": "b"},
}


@bounded
async def test_params_that_do_not_convert_are_invalid_params() -> None:
    """A 2025-06-18 ``completion/complete`` with an unknown ``ref.type``: -32602 naming the
    member, through the converters as from a server of that revision itself."""
    server, *adapters = every_revision(SchemaServer())
    async with serving(server, *adapters) as peer:
        converted = await call(peer, "2025-06-18", "completion/complete", UNKNOWN_REF)
    async with serving(Complete0618()) as peer:
        native = await call(peer, "2025-06-18", "completion/complete", UNKNOWN_REF)
    assert native["error"]["code"] == -32602, native
    assert converted["error"]["code"] == -32602, converted
    message = converted["error"]["message"]
    assert "completion/complete params" in message and "$.ref.type" in message, message


class StatelessEcho(Server0728):
    """A 2026-07-28 server whose tool answers with the ``_meta`` its handler was given."""

    name = "stateless-echo"

    async def call_tool(self, params: tm.CallToolRequestParams, ctx: Any) -> tm.CallToolResult:
        """The request's ``_meta`` as text."""
        return tm.CallToolResult(content=[tm.TextContent(text=json.dumps(params.meta))])


@pytest.mark.parametrize("revision", ["2024-11-05", "2025-06-18", "2025-11-25"])
@bounded
async def test_a_session_request_with_meta_reaches_a_stateless_server(revision: str) -> None:
    """A handshake client's ``tools/call`` with ``_meta`` (a progress token, a key of its own)
    through the adapter of a 2026-07-28 server: that revision's ``_meta`` needs the request's
    version, capabilities and client info, which the session said at ``initialize``; they are
    filled in from it, the client's own keys kept (it was -32602 "nothing provides it")."""
    server, *adapters = every_revision(StatelessEcho())
    meta = {"progressToken": 7, "example.com/trace": "t-1"}
    async with serving(server, *adapters) as peer:
        await peer.initialize(revision, {"roots": {}})
        reply = await peer.call(1, "tools/call", {"name": "echo", "_meta": meta})
    assert "result" in reply, reply
    seen = json.loads(reply["result"]["content"][0]["text"])
    assert seen["progressToken"] == 7 and seen["example.com/trace"] == "t-1"
    assert seen["io.modelcontextprotocol/protocolVersion"] == STATELESS
    assert seen["io.modelcontextprotocol/clientCapabilities"] == {"roots": {}}
    assert seen["io.modelcontextprotocol/clientInfo"] == {"name": "raw", "version": "0"}
