"""The conformance harness's fixture server for both eras (2026-07-28 and the initialize era).

Carries the tools, prompts and resources the harness's scenario descriptions name (``test_*``,
``test://...``). Run: ``python -m tests.support.era_fixture_server PORT`` (Streamable HTTP on
127.0.0.1:PORT/mcp; ``PORT --json``: JSON response mode; ``PORT converted``: the
initialize-era side through the converters) or ``python -m tests.support.era_fixture_server stdio``
(both eras; ``stdio-stateless``: 2026-07-28 only).
"""

from __future__ import annotations

import asyncio
import base64
import functools
import re
import sys
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgspec

from generated._runtime.core.codec import convert
from generated._runtime.core.errors import MCPError
from generated._runtime.roles.mrtr import ask
from generated._runtime.roles.stateless_tasks import begin_task
from generated._runtime.roles.tasks import TaskMode, TaskSupport
from generated._runtime.roles.taskstore import InMemoryTaskStore
from generated.v2025_11_25 import Server as HandshakeServerBase
from generated.v2025_11_25 import ServerContext as HandshakeContext
from generated.v2025_11_25 import types as t25
from generated.v2026_07_28 import Server, ServerContext
from generated.v2026_07_28 import types as t

PNG = base64.b64encode(
    bytes.fromhex(
        "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
        "1f15c4890000000d49444154789c63f8cfc0f01f0005000201a5f3a1d60000000049454e44ae426082"
    )
).decode()
WAV = base64.b64encode(b"RIFF$\x00\x00\x00WAVEfmt \x10\x00\x00\x00\x01\x00\x01\x00").decode()
NAME_SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}
JSON_SCHEMA_2020 = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "$defs": {
        "address": {
            "$anchor": "addressDef",
            "type": "object",
            "properties": {"street": {"type": "string"}, "city": {"type": "string"}},
        }
    },
    "properties": {
        "name": {"type": "string"},
        "address": {"$ref": "#/$defs/address"},
        "contactMethod": {"type": "string", "enum": ["phone", "email"]},
        "phone": {"type": "string"},
        "email": {"type": "string"},
    },
    "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
    "if": {"properties": {"contactMethod": {"const": "phone"}}, "required": ["contactMethod"]},
    "then": {"required": ["phone"]},
    "else": {"required": ["email"]},
    "additionalProperties": False,
}

R = TypeVar("R")
Handler = Callable[[dict[str, Any], ServerContext], Awaitable[t.CallToolResult]]


def text(value: str) -> t.CallToolResult:
    """A tool result with one text block."""
    return t.CallToolResult(content=[t.TextContent(text=value)])


def form(message: str, schema: dict[str, Any]) -> t.ElicitRequestFormParams:
    """Form-mode elicitation params."""
    return t.ElicitRequestFormParams(
        message=message,
        requested_schema=t.ElicitRequestFormParamsRequestedSchema(
            properties=schema["properties"], required=schema.get("required", [])
        ),
    )


def question(prompt: str) -> t.CreateMessageRequestParams:
    """Sampling params asking one question."""
    return t.CreateMessageRequestParams(
        messages=[t.SamplingMessage(role="user", content=t.TextContent(text=prompt))],
        max_tokens=100,
    )


async def elicit_name(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    answer = await ask(
        ctx, "elicitation/create", form("What is your name?", NAME_SCHEMA), key="user_name"
    )
    return text(f"Hello, {(answer.content or {}).get('name', 'stranger')}!")


async def sample_capital(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    answer = await ask(
        ctx,
        "sampling/createMessage",
        question("What is the capital of France?"),
        key="capital_question",
    )
    return text(f"LLM said: {getattr(answer.content, 'text', '')}")


async def list_client_roots(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    answer = await ask(ctx, "roots/list", t.ListRootsRequestParams(), key="client_roots")
    return text("Roots: " + ", ".join(root.uri for root in answer.roots))


async def confirm_with_state(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    schema = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}
    await ask(ctx, "elicitation/create", form("Please confirm", schema), key="confirm")
    return text("state-ok: confirmed")


async def multi_round(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    name = await ask(
        ctx, "elicitation/create", form("Step 1: What is your name?", NAME_SCHEMA), key="step1"
    )
    color_schema = {
        "type": "object",
        "properties": {"color": {"type": "string"}},
        "required": ["color"],
    }
    color = await ask(
        ctx,
        "elicitation/create",
        form("Step 2: What is your favorite color?", color_schema),
        key="step2",
    )
    return text(f"{(name.content or {}).get('name')} likes {(color.content or {}).get('color')}")


async def multiple_inputs(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    name, sample, roots = await asyncio.gather(
        ask(ctx, "elicitation/create", form("Your name?", NAME_SCHEMA), key="user_name"),
        ask(ctx, "sampling/createMessage", question("Say hello"), key="greeting"),
        ask(ctx, "roots/list", t.ListRootsRequestParams(), key="client_roots"),
    )
    return text(
        f"{(name.content or {}).get('name')}: {getattr(sample.content, 'text', '')}"
        f" ({len(roots.roots)} roots)"
    )


async def capabilities_aware(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    caps = ctx.connection.their_capabilities
    asks = []
    if "sampling" in caps:
        asks.append(ask(ctx, "sampling/createMessage", question("Say hello"), key="greeting"))
    if "elicitation" in caps:
        asks.append(
            ask(ctx, "elicitation/create", form("Your name?", NAME_SCHEMA), key="user_name")
        )
    await asyncio.gather(*asks)
    return text("done")


async def needs_sampling(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    await ctx.create_message(messages=question("ping").messages, max_tokens=10)
    return text("sampled")


async def logging_tool(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    for message in ("Tool execution started", "Tool processing data", "Tool execution completed"):
        await ctx.log("info", message)
        await asyncio.sleep(0.05)
    return text("logged")


async def progress_tool(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    for step in (0, 50, 100):
        await ctx.progress(step, 100)
        if step < 100:
            await asyncio.sleep(0.05)
    return text("progress done")


async def reconnection_tool(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    """Close this call's SSE stream mid-call (SSE polling); the client resumes for the answer."""
    if await ctx.close_sse_stream(retry_ms=100):
        await asyncio.sleep(0.2)
    return text("Reconnection test completed")


async def trigger_tools(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    await ctx.notify_tool_list_changed()
    return text("tools changed")


async def trigger_prompts(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    await ctx.notify_prompt_list_changed()
    return text("prompts changed")


async def prompt_sampling(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    answer = await ask(ctx, "sampling/createMessage", question(str(args.get("prompt", ""))))
    return text(f"LLM response: {getattr(answer.content, 'text', '')}")


async def user_elicitation(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    schema = {
        "properties": {
            "username": {"type": "string", "description": "User's response"},
            "email": {"type": "string", "description": "User's email address"},
        },
        "required": ["username", "email"],
    }
    answer = await ask(ctx, "elicitation/create", form(str(args.get("message", "")), schema))
    return text(f"User response: action={answer.action}, content={answer.content}")


SEP1034_SCHEMA = {
    "properties": {
        "name": {"type": "string", "default": "John Doe"},
        "age": {"type": "integer", "default": 30},
        "score": {"type": "number", "default": 95.5},
        "status": {
            "type": "string",
            "enum": ["active", "inactive", "pending"],
            "default": "active",
        },
        "verified": {"type": "boolean", "default": True},
    },
}
SEP1330_SCHEMA = {
    "properties": {
        "untitledSingle": {"type": "string", "enum": ["option1", "option2", "option3"]},
        "titledSingle": {
            "type": "string",
            "oneOf": [
                {"const": "value1", "title": "First Option"},
                {"const": "value2", "title": "Second Option"},
                {"const": "value3", "title": "Third Option"},
            ],
        },
        "legacyEnum": {
            "type": "string",
            "enum": ["opt1", "opt2", "opt3"],
            "enumNames": ["Option One", "Option Two", "Option Three"],
        },
        "untitledMulti": {
            "type": "array",
            "items": {"type": "string", "enum": ["option1", "option2", "option3"]},
        },
        "titledMulti": {
            "type": "array",
            "items": {
                "anyOf": [
                    {"const": "value1", "title": "First Choice"},
                    {"const": "value2", "title": "Second Choice"},
                    {"const": "value3", "title": "Third Choice"},
                ]
            },
        },
    },
}


def elicit_with(schema: dict[str, Any]) -> Handler:
    """A tool that elicits with ``schema`` and reports the answer."""

    async def tool(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
        answer = await ask(ctx, "elicitation/create", form("Please fill in the form", schema))
        return text(f"Elicitation completed: action={answer.action}, content={answer.content}")

    return tool


async def fixed(result: t.CallToolResult) -> t.CallToolResult:
    return result


TOOLS: dict[str, tuple[dict[str, Any], Handler]] = {
    "test_simple_text": (
        {},
        lambda a, c: fixed(text("This is a simple text response for testing.")),
    ),
    "test_image_content": (
        {},
        lambda a, c: fixed(
            t.CallToolResult(content=[t.ImageContent(data=PNG, mime_type="image/png")])
        ),
    ),
    "test_audio_content": (
        {},
        lambda a, c: fixed(
            t.CallToolResult(content=[t.AudioContent(data=WAV, mime_type="audio/wav")])
        ),
    ),
    "test_embedded_resource": (
        {},
        lambda a, c: fixed(
            t.CallToolResult(
                content=[
                    t.EmbeddedResource(
                        resource=t.TextResourceContents(
                            uri="test://embedded-resource",
                            mime_type="text/plain",
                            text="This is an embedded resource content.",
                        )
                    )
                ]
            )
        ),
    ),
    "test_multiple_content_types": (
        {},
        lambda a, c: fixed(
            t.CallToolResult(
                content=[
                    t.TextContent(text="Multiple content types test:"),
                    t.ImageContent(data=PNG, mime_type="image/png"),
                    t.EmbeddedResource(
                        resource=t.TextResourceContents(
                            uri="test://mixed-content-resource",
                            mime_type="application/json",
                            text='{"test":"data","value":123}',
                        )
                    ),
                ]
            )
        ),
    ),
    "test_error_handling": (
        {},
        lambda a, c: fixed(
            t.CallToolResult(
                content=[
                    t.TextContent(text="This tool intentionally returns an error for testing")
                ],
                is_error=True,
            )
        ),
    ),
    "test_tool_with_progress": ({}, progress_tool),
    "test_tool_with_logging": ({}, logging_tool),
    "test_logging_tool": ({}, logging_tool),
    "test_missing_capability": ({}, needs_sampling),
    "test_streaming_elicitation": ({}, elicit_name),
    "test_sampling": (
        {"type": "object", "properties": {"prompt": {"type": "string"}}, "required": ["prompt"]},
        prompt_sampling,
    ),
    "test_elicitation": (
        {"type": "object", "properties": {"message": {"type": "string"}}, "required": ["message"]},
        user_elicitation,
    ),
    "test_elicitation_sep1034_defaults": ({}, elicit_with(SEP1034_SCHEMA)),
    "test_elicitation_sep1330_enums": ({}, elicit_with(SEP1330_SCHEMA)),
    "test_reconnection": ({}, reconnection_tool),
    "test_trigger_tool_change": ({}, trigger_tools),
    "test_trigger_prompt_change": ({}, trigger_prompts),
    "test_input_required_result_elicitation": ({}, elicit_name),
    "test_input_required_result_sampling": ({}, sample_capital),
    "test_input_required_result_list_roots": ({}, list_client_roots),
    "test_input_required_result_request_state": ({}, confirm_with_state),
    "test_input_required_result_tampered_state": ({}, confirm_with_state),
    "test_input_required_result_multi_round": ({}, multi_round),
    "test_input_required_result_multiple_inputs": ({}, multiple_inputs),
    "test_input_required_result_capabilities": ({}, capabilities_aware),
    "json_schema_2020_12_tool": (JSON_SCHEMA_2020, lambda a, c: fixed(text("ok"))),
    "test_custom_header": (
        {
            "type": "object",
            "properties": {
                "region": {"type": "string", "x-mcp-header": "Region"},
                "query": {"type": "string"},
            },
            "required": ["region"],
        },
        lambda a, c: fixed(text(f"region {a.get('region')}")),
    ),
}
# -- the tasks extension (io.modelcontextprotocol/tasks): the harness's tasks-* fixtures --------


async def greet(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    return text(f"Hello, {args.get('name', 'World')}!")


async def slow_compute(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    seconds = args.get("seconds", 1)
    await asyncio.sleep(seconds if isinstance(seconds, int | float) else 1)
    return text(f"computed {args.get('label', '')} after {seconds}s")


async def failing_job(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    await asyncio.sleep(0.5)
    return t.CallToolResult(content=[t.TextContent(text="the job failed")], is_error=True)


async def protocol_error_job(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    await asyncio.sleep(0.1)
    raise MCPError(-32603, "protocol_error_job fails at the protocol level")


CONFIRM = {
    "type": "object",
    "properties": {"confirm": {"type": "boolean"}},
    "required": ["confirm"],
}


async def confirm_delete(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    answer = await ask(
        ctx, "elicitation/create", form(f"Delete {args.get('filename')}?", CONFIRM), key="confirm"
    )
    return text(f"deleted: {(answer.content or {}).get('confirm')}")


async def multi_input(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    first, second = await asyncio.gather(
        ask(ctx, "elicitation/create", form("First name?", NAME_SCHEMA), key="first"),
        ask(ctx, "elicitation/create", form("Second name?", NAME_SCHEMA), key="second"),
    )
    names = [(a.content or {}).get("name") for a in (first, second)]
    return text(f"names: {names[0]}, {names[1]}")


async def tool_with_task(args: dict[str, Any], ctx: ServerContext) -> t.CallToolResult:
    answer = await ask(ctx, "elicitation/create", form("Your name?", NAME_SCHEMA), key="user_name")
    await begin_task(ctx)  # the MRTR round is over: the rest runs as a task
    return text(f"Hello, {(answer.content or {}).get('name')}!")


TASK_TOOLS: dict[str, tuple[TaskMode, Handler]] = {
    "greet": ("forbidden", greet),
    "slow_compute": ("optional", slow_compute),
    "failing_job": ("required", failing_job),
    "protocol_error_job": ("optional", protocol_error_job),
    "confirm_delete": ("optional", confirm_delete),
    "multi_input": ("optional", multi_input),
    "test_tool_with_task": ("required", tool_with_task),
}
TOOLS.update({name: ({}, handler) for name, (_, handler) in TASK_TOOLS.items()})
TASK_SUPPORT = TaskSupport(
    store=InMemoryTaskStore(poll_interval=200),
    tools={name: mode for name, (mode, _) in TASK_TOOLS.items()},
    begins_in_handler={"test_tool_with_task"},
)

# -- end of the tasks extension block -------------------------------------------------------

PROMPTS = {
    "test_simple_prompt": [],
    "test_prompt_with_arguments": ["arg1", "arg2"],
    "test_prompt_with_embedded_resource": ["resourceUri"],
    "test_prompt_with_image": [],
    "test_input_required_result_prompt": [],
}
TEMPLATE = re.compile(r"test://template/([^/]+)/data")


class FixtureServer(Server):
    """The harness's fixture server for revision 2026-07-28."""

    name = "mcpgen-conformance-fixture"
    version = "1.0.0"
    list_changed = frozenset({"tools", "prompts"})
    resource_subscriptions = True
    task_support = TASK_SUPPORT

    async def list_tools(
        self, params: t.PaginatedRequestParams, ctx: ServerContext
    ) -> t.ListToolsResult:
        return t.ListToolsResult(
            tools=[
                t.Tool(
                    name=name,
                    description=f"The {name} fixture",
                    input_schema=schema or {"type": "object"},
                )
                for name, (schema, _) in TOOLS.items()
            ],
            ttl_ms=60_000,
            cache_scope="public",
        )

    async def call_tool(
        self, params: t.CallToolRequestParams, ctx: ServerContext
    ) -> t.CallToolResult:
        entry = TOOLS.get(params.name)
        if entry is None:
            return t.CallToolResult(
                content=[t.TextContent(text=f"unknown tool {params.name}")], is_error=True
            )
        arguments = params.arguments if isinstance(params.arguments, dict) else {}
        return await entry[1](arguments, ctx)

    async def list_prompts(
        self, params: t.PaginatedRequestParams, ctx: ServerContext
    ) -> t.ListPromptsResult:
        return t.ListPromptsResult(
            prompts=[
                t.Prompt(
                    name=name,
                    description=f"The {name} fixture",
                    arguments=[t.PromptArgument(name=a, required=True) for a in args],
                )
                for name, args in PROMPTS.items()
            ]
        )

    async def get_prompt(
        self, params: t.GetPromptRequestParams, ctx: ServerContext
    ) -> t.GetPromptResult:
        args = params.arguments if isinstance(params.arguments, dict) else {}
        user = "user"
        if params.name == "test_simple_prompt":
            messages = [
                t.PromptMessage(
                    role=user, content=t.TextContent(text="This is a simple prompt for testing.")
                )
            ]
        elif params.name == "test_prompt_with_arguments":
            said = f"Prompt with arguments: arg1='{args.get('arg1')}', arg2='{args.get('arg2')}'"
            messages = [t.PromptMessage(role=user, content=t.TextContent(text=said))]
        elif params.name == "test_prompt_with_embedded_resource":
            resource = t.TextResourceContents(
                uri=str(args.get("resourceUri")),
                mime_type="text/plain",
                text="Embedded resource content for testing.",
            )
            messages = [
                t.PromptMessage(role=user, content=t.EmbeddedResource(resource=resource)),
                t.PromptMessage(
                    role=user,
                    content=t.TextContent(text="Please process the embedded resource above."),
                ),
            ]
        elif params.name == "test_prompt_with_image":
            messages = [
                t.PromptMessage(role=user, content=t.ImageContent(data=PNG, mime_type="image/png")),
                t.PromptMessage(
                    role=user, content=t.TextContent(text="Please analyze the image above.")
                ),
            ]
        elif params.name == "test_input_required_result_prompt":
            schema = {
                "type": "object",
                "properties": {"context": {"type": "string"}},
                "required": ["context"],
            }
            answer = await ask(
                ctx,
                "elicitation/create",
                form("What context should the prompt use?", schema),
                key="user_context",
            )
            context = (answer.content or {}).get("context", "")
            messages = [
                t.PromptMessage(
                    role=user, content=t.TextContent(text=f"Use this context: {context}")
                )
            ]
        else:
            from generated._runtime.roles.peer import MCPError

            raise MCPError(-32602, f"unknown prompt {params.name}")
        return t.GetPromptResult(messages=messages)

    async def list_resources(
        self, params: t.PaginatedRequestParams, ctx: ServerContext
    ) -> t.ListResourcesResult:
        return t.ListResourcesResult(
            resources=[
                t.Resource(
                    uri="test://static-text",
                    name="static-text",
                    description="A text resource",
                    mime_type="text/plain",
                ),
                t.Resource(
                    uri="test://static-binary",
                    name="static-binary",
                    description="A PNG",
                    mime_type="image/png",
                ),
            ]
        )

    async def list_resource_templates(
        self, params: t.PaginatedRequestParams, ctx: ServerContext
    ) -> t.ListResourceTemplatesResult:
        return t.ListResourceTemplatesResult(
            resource_templates=[
                t.ResourceTemplate(
                    uri_template="test://template/{id}/data",
                    name="template",
                    description="Data by id",
                    mime_type="application/json",
                )
            ]
        )

    async def read_resource(
        self, params: t.ReadResourceRequestParams, ctx: ServerContext
    ) -> t.ReadResourceResult:
        uri = params.uri
        if uri == "test://static-text":
            contents: list[Any] = [
                t.TextResourceContents(
                    uri=uri,
                    mime_type="text/plain",
                    text="This is the content of the static text resource.",
                )
            ]
        elif uri == "test://static-binary":
            contents = [t.BlobResourceContents(uri=uri, mime_type="image/png", blob=PNG)]
        elif match := TEMPLATE.fullmatch(uri):
            body = f'{{"id":"{match[1]}","templateTest":true,"data":"Data for ID: {match[1]}"}}'
            contents = [t.TextResourceContents(uri=uri, mime_type="application/json", text=body)]
        else:
            from generated._runtime.roles.peer import MCPError

            raise MCPError(-32602, "Resource not found", {"uri": uri})
        return t.ReadResourceResult(contents=contents)

    async def complete(
        self, params: t.CompleteRequestParams, ctx: ServerContext
    ) -> t.CompleteResult:
        prefix = params.argument.value
        values = [v for v in ("paris", "park", "party") if v.startswith(prefix)]
        return t.CompleteResult(
            completion=t.CompleteResultCompletion(values=values, total=len(values), has_more=False)
        )


class EchoHandshake(HandshakeServerBase):
    """An initialize-era (2025-11-25) server with one tool, ``echo``, that elicits in ``ask``."""

    name = "handshake-echo"

    async def list_tools(self, params: Any, ctx: HandshakeContext) -> t25.ListToolsResult:
        schema = {"type": "object"}
        return t25.ListToolsResult(tools=[t25.Tool(name="echo", input_schema=schema)])

    async def call_tool(
        self, params: t25.CallToolRequestParams, ctx: HandshakeContext
    ) -> t25.CallToolResult:
        return t25.CallToolResult(content=[t25.TextContent(text=f"handshake {params.name}")])


@functools.cache
def _wire_names(kind: type[Any]) -> frozenset[str]:
    """The wire names of ``kind``'s fields (read once per type: ``fields`` evaluates them)."""
    return frozenset(field.encode_name for field in msgspec.structs.fields(kind))


def in_era(result: Any, kind: type[R]) -> R:
    """A 2026-07-28 result as the 2025-11-25 type ``kind`` (fields of the newer era dropped)."""
    known = _wire_names(kind)
    raw = msgspec.to_builtins(result)
    return convert({k: v for k, v in raw.items() if k in known}, kind)


class FixtureHandshake(HandshakeServerBase):
    """The harness's fixture server for the initialize era (2025-11-25 and what it negotiates
    down to): the same handlers as ``FixtureServer``, their results in this revision's types."""

    name = "mcpgen-conformance-fixture"
    version = "1.0.0"
    list_changed = frozenset({"tools", "prompts"})
    stateless = FixtureServer()

    async def list_tools(self, params: Any, ctx: HandshakeContext) -> t25.ListToolsResult:
        return in_era(await self.stateless.list_tools(params, ctx), t25.ListToolsResult)

    async def call_tool(
        self, params: t25.CallToolRequestParams, ctx: HandshakeContext
    ) -> t25.CallToolResult:
        return in_era(await self.stateless.call_tool(params, ctx), t25.CallToolResult)

    async def list_prompts(self, params: Any, ctx: HandshakeContext) -> t25.ListPromptsResult:
        return in_era(await self.stateless.list_prompts(params, ctx), t25.ListPromptsResult)

    async def get_prompt(
        self, params: t25.GetPromptRequestParams, ctx: HandshakeContext
    ) -> t25.GetPromptResult:
        return in_era(await self.stateless.get_prompt(params, ctx), t25.GetPromptResult)

    async def list_resources(self, params: Any, ctx: HandshakeContext) -> t25.ListResourcesResult:
        return in_era(await self.stateless.list_resources(params, ctx), t25.ListResourcesResult)

    async def list_resource_templates(
        self, params: Any, ctx: HandshakeContext
    ) -> t25.ListResourceTemplatesResult:
        result = await self.stateless.list_resource_templates(params, ctx)
        return in_era(result, t25.ListResourceTemplatesResult)

    async def read_resource(
        self, params: t25.ReadResourceRequestParams, ctx: HandshakeContext
    ) -> t25.ReadResourceResult:
        return in_era(await self.stateless.read_resource(params, ctx), t25.ReadResourceResult)

    async def complete(
        self, params: t25.CompleteRequestParams, ctx: HandshakeContext
    ) -> t25.CompleteResult:
        return in_era(await self.stateless.complete(params, ctx), t25.CompleteResult)

    async def subscribe(
        self, params: t25.SubscribeRequestParams, ctx: HandshakeContext
    ) -> t25.EmptyResult:
        return t25.EmptyResult()

    async def unsubscribe(
        self, params: t25.UnsubscribeRequestParams, ctx: HandshakeContext
    ) -> t25.EmptyResult:
        return t25.EmptyResult()


def main() -> None:
    """Serve the fixture over HTTP (port argument) or stdio; ``PORT converted`` serves the
    initialize-era side to every revision through the converters (``every_revision``), its
    2026-07-28 face included."""
    from generated._runtime.transports.http.server import HttpOptions, run_http
    from generated.converters import every_revision

    if sys.argv[1:] == ["stdio"]:
        FixtureServer().run_stdio(FixtureHandshake())
        return
    if sys.argv[1:] == ["stdio-stateless"]:
        FixtureServer().run_stdio()
        return
    options = HttpOptions(json_response="--json" in sys.argv[2:])
    if sys.argv[2:] == ["converted"]:
        run_http(every_revision(FixtureHandshake()), port=int(sys.argv[1]), options=options)
    else:
        run_http([FixtureServer(), FixtureHandshake()], port=int(sys.argv[1]), options=options)


if __name__ == "__main__":
    main()
