"""An MCP server written with the official Python SDK (``mcp``), served over stdio.

The counterpart of ``ours_server.py`` for the interop tests: the same tools, resources,
prompts, completions and logging, written with the SDK's low-level ``Server``. Run as
``python tests/interop/sdk_server.py``; it speaks whichever initialize-era revision the
client proposes (the SDK accepts all of them).
"""

from __future__ import annotations

import warnings
from typing import Any

import anyio
import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError

warnings.filterwarnings("ignore", category=MCPDeprecationWarning)

LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")
STRUCTURED_SINCE = "2025-06-18"
"""The first revision with ``structuredContent``/``outputSchema`` and ``elicitation/create``."""
STATE: dict[str, Any] = {"level": "info", "slow": "idle", "cancelled": 0}
"""Per-process state: the client's log level and what became of the last ``slow`` call."""
Ctx = ServerRequestContext[Any, Any]
OBJECT: dict[str, Any] = {"type": "object"}


def _newer(ctx: Ctx) -> bool:
    """Whether the negotiated revision has structured content and elicitation."""
    return ctx.protocol_version >= STRUCTURED_SINCE


def _text(text: str, **extra: Any) -> types.CallToolResult:
    """A tool result with one text block."""
    return types.CallToolResult(content=[types.TextContent(type="text", text=text)], **extra)


async def list_tools(
    ctx: Ctx, params: types.PaginatedRequestParams | None
) -> types.ListToolsResult:
    """Answer ``tools/list`` (``add`` has an outputSchema and ``elicit`` exists from 2025-06-18)."""
    number = {"type": "number"}
    add_schema = {
        "type": "object",
        "properties": {"a": number, "b": number},
        "required": ["a", "b"],
    }
    tools = [
        types.Tool(
            name="echo",
            description="Echo the text back",
            input_schema={
                "type": "object",
                "properties": {"text": {"type": "string"}},
                "required": ["text"],
            },
        ),
        types.Tool(
            name="add",
            description="Add two numbers",
            input_schema=add_schema,
            output_schema=(
                {"type": "object", "properties": {"sum": number}, "required": ["sum"]}
                if _newer(ctx)
                else None
            ),
        ),
        types.Tool(name="progress", input_schema=OBJECT),
        types.Tool(name="log", input_schema=OBJECT),
        types.Tool(name="sample", input_schema=OBJECT),
        types.Tool(name="slow", input_schema=OBJECT),
        types.Tool(name="slow_status", input_schema=OBJECT),
    ]
    if _newer(ctx):
        tools.append(types.Tool(name="elicit", input_schema=OBJECT))
    return types.ListToolsResult(tools=tools)


async def call_tool(ctx: Ctx, params: types.CallToolRequestParams) -> types.CallToolResult:
    """Answer ``tools/call``."""
    args = params.arguments or {}
    name = params.name
    if name == "echo":
        return _text(f"echo: {args['text']}")
    if name == "add":
        total = args["a"] + args["b"]
        if _newer(ctx):
            return _text(str(total), structured_content={"sum": total})
        return _text(str(total))
    if name == "progress":
        for step in (1, 2, 3):
            await ctx.session.report_progress(step, 3, f"step {step}")
        return _text("done")
    if name == "log":
        lines: list[tuple[types.LoggingLevel, str]] = [
            ("debug", "d"),
            ("info", "i"),
            ("warning", "w"),
        ]
        for level, text in lines:
            if LEVELS.index(level) >= LEVELS.index(STATE["level"]):
                await ctx.session.send_log_message(
                    level, {"msg": text}, logger="sdk", related_request_id=ctx.request_id
                )
        return _text("logged")
    if name == "sample":
        message = types.SamplingMessage(
            role="user", content=types.TextContent(type="text", text="What is 2+2?")
        )
        answer = await ctx.session.create_message(
            [message], max_tokens=20, related_request_id=ctx.request_id
        )
        content = answer.content
        said = content.text if isinstance(content, types.TextContent) else repr(content)
        return _text(f"model {answer.model} said {said}")
    if name == "elicit":  # also unlisted before 2025-06-18, to see old clients refuse it
        schema = {
            "type": "object",
            "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
            "required": ["name"],
        }
        reply = await ctx.session.elicit_form(
            "Who are you?", schema, related_request_id=ctx.request_id
        )
        return _text(f"{reply.action}: {reply.content}")
    if name == "slow":
        STATE["slow"] = "running"
        try:
            await anyio.sleep(30)
        except anyio.get_cancelled_exc_class():
            STATE["slow"] = "cancelled"
            STATE["cancelled"] += 1
            raise
        STATE["slow"] = "finished"
        return _text("slow done")
    if name == "slow_status":
        return _text(f"{STATE['slow']} {STATE['cancelled']}")
    if name == "links":  # unlisted; a resource_link at every revision, as real servers send
        link = types.ResourceLink(
            type="resource_link", uri="file:///interop/readme.md", name="readme"
        )
        return types.CallToolResult(content=[types.TextContent(type="text", text="see"), link])
    raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown tool: {name}")


async def list_resources(
    ctx: Ctx, params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    """Answer ``resources/list``."""
    greeting = types.Resource(name="greeting", uri="mem://greeting", mime_type="text/plain")
    return types.ListResourcesResult(resources=[greeting])


async def list_templates(
    ctx: Ctx, params: types.PaginatedRequestParams | None
) -> types.ListResourceTemplatesResult:
    """Answer ``resources/templates/list``."""
    item = types.ResourceTemplate(name="item", uri_template="mem://items/{id}")
    return types.ListResourceTemplatesResult(resource_templates=[item])


async def read_resource(
    ctx: Ctx, params: types.ReadResourceRequestParams
) -> types.ReadResourceResult:
    """Answer ``resources/read`` for the greeting and for items of the template."""
    uri = str(params.uri)
    if uri == "mem://greeting":
        text = "hello from sdk"
    elif uri.startswith("mem://items/"):
        text = f"item {uri.removeprefix('mem://items/')}"
    else:
        raise MCPError(code=-32002, message=f"Resource not found: {uri}")
    contents = types.TextResourceContents(uri=uri, mime_type="text/plain", text=text)
    return types.ReadResourceResult(contents=[contents])


async def list_prompts(
    ctx: Ctx, params: types.PaginatedRequestParams | None
) -> types.ListPromptsResult:
    """Answer ``prompts/list``."""
    argument = types.PromptArgument(name="name", required=True)
    return types.ListPromptsResult(prompts=[types.Prompt(name="greet", arguments=[argument])])


async def get_prompt(ctx: Ctx, params: types.GetPromptRequestParams) -> types.GetPromptResult:
    """Answer ``prompts/get``."""
    if params.name != "greet":
        raise MCPError(code=types.INVALID_PARAMS, message=f"Unknown prompt: {params.name}")
    who = (params.arguments or {}).get("name", "nobody")
    content = types.TextContent(type="text", text=f"Say hello to {who}")
    return types.GetPromptResult(
        description="A greeting", messages=[types.PromptMessage(role="user", content=content)]
    )


async def complete(ctx: Ctx, params: types.CompleteRequestParams) -> types.CompleteResult:
    """Answer ``completion/complete`` for the prompt's ``name`` and the template's ``id``."""
    choices = ["alice", "albert", "bob"] if params.argument.name == "name" else ["1", "12", "2"]
    values = [c for c in choices if c.startswith(params.argument.value)]
    return types.CompleteResult(completion=types.Completion(values=values, total=len(values)))


async def set_level(ctx: Ctx, params: types.SetLevelRequestParams) -> types.EmptyResult:
    """Answer ``logging/setLevel``: remember the level for the ``log`` tool."""
    STATE["level"] = params.level
    return types.EmptyResult()


def build() -> Server[Any]:
    """Build the SDK server with every handler."""
    return Server(
        "sdk-interop",
        version="2.3.0",
        instructions="SDK interop server",
        on_list_tools=list_tools,
        on_call_tool=call_tool,
        on_list_resources=list_resources,
        on_list_resource_templates=list_templates,
        on_read_resource=read_resource,
        on_list_prompts=list_prompts,
        on_get_prompt=get_prompt,
        on_completion=complete,
        on_set_logging_level=set_level,
    )


async def main() -> None:
    """Serve one client over stdio."""
    server = build()
    async with stdio_server() as (read_stream, write_stream):
        await server.run(read_stream, write_stream, server.create_initialization_options())


if __name__ == "__main__":
    anyio.run(main)
