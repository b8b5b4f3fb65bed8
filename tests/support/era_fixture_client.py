"""The conformance harness's fixture client for both eras, written on the generated package's API.

``python -m tests.support.era_fixture_client URL``: connects in auto mode (2026-07-28, else
2025-11-25, else, in a second connection, 2025-06-18 or 2025-03-26), lists and calls the
tools (with the arguments ``MCP_CONFORMANCE_CONTEXT`` names, if any), reads every resource and
gets every prompt, each only when the server declares it; input requests are answered by the
``on_*`` handlers. In the scenario ``json-schema-2020-12-preservation`` it passes the input
schema of the tool declaring ``$schema``, as received, to the tool taking a ``schema``
argument. Exit 0 unless it fails.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from generated._runtime.core.errors import UnsupportedVersion
from generated._runtime.roles.peer import MCPError
from generated._runtime.transports.http.client import connect_http_auto
from generated.v2025_03_26 import Client as Client0326
from generated.v2025_06_18 import Client as Client0618
from generated.v2025_11_25 import Client as HandshakeClient
from generated.v2025_11_25 import types as t25
from generated.v2026_07_28 import Client
from generated.v2026_07_28 import types as t


def accepted(params: Any) -> dict[str, Any]:
    """The content of an accepting answer: confirmed, with every default the form names
    (a client applies the defaults of fields the user leaves alone, SEP-1034)."""
    schema = msgspec.to_builtins(getattr(params, "requested_schema", None)) or {}
    fields = schema.get("properties", {})
    defaults = {name: field["default"] for name, field in fields.items() if "default" in field}
    return {"confirmed": True, **defaults}


class FixtureClient(Client):
    """Answers every input request positively."""

    async def on_elicit(self, params: Any, ctx: Any) -> t.ElicitResult:
        """Accept, confirming, with the form's defaults."""
        return t.ElicitResult(action="accept", content=accepted(params))

    async def on_create_message(self, params: Any, ctx: Any) -> t.CreateMessageResult:
        """A fixed model answer."""
        return t.CreateMessageResult(role="assistant", content=t.TextContent(text="ok"), model="m")

    async def on_list_roots(self, params: Any, ctx: Any) -> t.ListRootsResult:
        """One root."""
        return t.ListRootsResult(roots=[t.Root(uri="file:///tmp")])


class FixtureHandshakeClient(HandshakeClient):
    """The initialize-era side: accepts elicitations the same way."""

    async def on_elicit(self, params: Any, ctx: Any) -> t25.ElicitResult:
        """Accept, confirming, with the form's defaults."""
        return t25.ElicitResult(action="accept", content=accepted(params))


SAMPLES: dict[str, Any] = {"number": 2, "integer": 3, "string": "x", "boolean": True}


def sample(schema: Any) -> dict[str, Any]:
    """Arguments for a tool: a plain value for each required property, by type."""
    props = schema.get("properties", {}) if isinstance(schema, dict) else {}
    required = schema.get("required", []) if isinstance(schema, dict) else []
    return {k: SAMPLES.get(props.get(k, {}).get("type"), "x") for k in required}


def echo_schema_calls(tools: list[Any]) -> list[dict[str, Any]]:
    """Calls passing the input schema of the tool that declares ``$schema``, as this client
    received it, to each tool taking a ``schema`` argument (what the harness compares)."""
    schemas = [msgspec.to_builtins(tool.input_schema) for tool in tools]
    focal = next((schema for schema in schemas if "$schema" in schema), None)
    takes = [
        tool.name
        for tool, schema in zip(tools, schemas, strict=True)
        if "schema" in schema.get("properties", {})
    ]
    return (
        [] if focal is None else [{"name": name, "arguments": {"schema": focal}} for name in takes]
    )


async def main(url: str) -> int:
    """Exercise the server at ``url``."""
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    try:
        client: Any = await connect_http_auto(FixtureClient(), [FixtureHandshakeClient()], url)
    except UnsupportedVersion:  # declared together, their common capabilities would be fewer
        client = await connect_http_auto(FixtureClient(), [Client0618(), Client0326()], url)
    try:
        calls = context.get("toolCalls")
        caps = client.their_capabilities
        tools = (await client.list_tools()).tools if "tools" in caps else []
        if scenario == "json-schema-2020-12-preservation":
            calls = echo_schema_calls(tools)
        if calls is None:
            calls = [{"name": tool.name, "arguments": sample(tool.input_schema)} for tool in tools]
        for call in calls:
            try:
                await client.call_tool(name=call["name"], arguments=call.get("arguments") or {})
            except MCPError as exc:
                print(f"{call['name']}: {exc}", file=sys.stderr)
        if "resources" in caps:
            for resource in (await client.list_resources()).resources:
                await client.read_resource(uri=resource.uri)
        if "prompts" in caps:
            for prompt in (await client.list_prompts()).prompts:
                await client.get_prompt(name=prompt.name)
    finally:
        await client.close()
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main(sys.argv[1])))
