"""The decorator app: tools, resources, prompts and completions from plain typed functions, on
top of a generated revision's low-level ``Server`` (which stays the exact API).

A tool's parameters come from its signature (or one msgspec ``Struct`` parameter): its
``inputSchema`` is ``msgspec.json.schema`` of them, arguments are decoded and validated by
msgspec. Its return annotation gives ``outputSchema`` and ``structuredContent`` (a Struct,
dataclass or TypedDict as is, any other value as ``{"result": value}``); a ``str`` gives text
content only. A ``ToolError`` becomes an ``isError`` result carrying its message, an
``MCPError`` the JSON-RPC error it names; any other exception is logged with its traceback and
answered with an ``isError`` result that says only which tool failed. A parameter
annotated ``Context`` receives progress and logging. Everything crosses to the revision's types
through its method table (wire dicts converted by msgspec), so one app serves any revision.
"""

from __future__ import annotations

import base64
import dataclasses
import importlib
import inspect
import re
import sys
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, overload, runtime_checkable

import msgspec

from ..core.codec import convert
from ..core.errors import INVALID_PARAMS
from ..core.methods import MethodSpec
from .app_context import json_items, json_object, text_block
from .app_tools import AppTool, doc_line
from .peer import MCPError
from .server import ServerBase, ServerContext
from .tools import ToolCall

F = TypeVar("F", bound=Callable[..., object])
R = TypeVar("R")
Json = dict[str, Any]
_TEMPLATE_VAR = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")
RESOURCE_NOT_FOUND = -32002
"""The error code MCP gives a read of a resource that does not exist."""


@runtime_checkable
class Revision(Protocol):
    """What the app needs of a generated revision package (``pkg.v2025_11_25``)."""

    @property
    def METHODS(self) -> Mapping[str, MethodSpec[Any, Any]]:
        """The revision's method table."""
        ...

    @property
    def Server(self) -> type[ServerBase]:
        """The revision's low-level server class."""
        ...


@runtime_checkable
class _Package(Protocol):
    """What the app reads of the generated package it runs in: its revisions, oldest first."""

    @property
    def REVISIONS(self) -> Mapping[str, str]:
        """Revision -> subpackage name."""
        ...


def default_revision() -> Revision:
    """The newest initialize-era revision (one with a ``Server``) of the package this runtime
    was generated into: what today's SDK clients and ours connect to."""
    root = __name__.rsplit(".", 3)[0]  # pkg._runtime.roles.app -> pkg
    package = importlib.import_module(root)
    if isinstance(package, _Package):
        for sub in reversed(list(package.REVISIONS.values())):
            module = importlib.import_module(f"{root}.{sub}")
            if isinstance(module, Revision) and module.Server.FACTS.handshake:
                return module
    raise ValueError(f"{root} holds no revision with a Server: pass App(..., revision=...)")


def _listen_address(argv: Sequence[str]) -> tuple[str, int] | None:
    """``--http [HOST:]PORT`` -> (host, port); no arguments -> None (stdio); else exit 2."""
    if not argv:
        return None
    if argv[0] == "--http" and len(argv) <= 2:
        host, _, port = (argv[1] if len(argv) == 2 else "8000").rpartition(":")
        if port.isdigit():
            return host or "127.0.0.1", int(port)
    print(f"usage: {sys.argv[0]} [--http [HOST:]PORT]  (no arguments: stdio)", file=sys.stderr)
    raise SystemExit(2)


class Decorator(Protocol):
    """What ``@app.tool(...)`` and friends return: registers a function, returns it unchanged."""

    def __call__(self, fn: F, /) -> F:
        """Register ``fn``."""
        ...


async def _called(fn: Callable[..., object], *args: object, **kwargs: object) -> object:
    """Call a sync or async function and return its value."""
    value = fn(*args, **kwargs)
    return await value if inspect.isawaitable(value) else value


@dataclasses.dataclass(frozen=True)
class _Resource:
    """A resource or a resource template and the function that reads it."""

    fn: Callable[..., object]
    definition: Json
    pattern: re.Pattern[str] | None  # None: a fixed URI

    def contents(self, uri: str, value: object) -> Json:
        """The ``contents`` entry for what the function returned (text or bytes)."""
        entry: Json = {"uri": uri}
        if "mimeType" in self.definition:
            entry["mimeType"] = self.definition["mimeType"]
        if isinstance(value, bytes):
            entry["blob"] = base64.b64encode(value).decode()
        else:
            entry["text"] = str(value)
        return entry


def _prompt_definition(fn: Callable[..., object], name: str | None) -> Json:
    arguments = [
        {"name": p.name, "required": p.default is inspect.Parameter.empty}
        for p in inspect.signature(fn).parameters.values()
    ]
    definition: Json = {"name": name or fn.__name__, "arguments": arguments}
    if (description := doc_line(fn)) is not None:
        definition["description"] = description
    return definition


class App:
    """Tools, resources, prompts and completions from decorated functions, served by a
    revision's ``Server`` over stdio (``run``) or HTTP (``run_http``)."""

    def __init__(
        self,
        name: str,
        version: str = "0.1.0",
        *,
        revision: Revision | None = None,
        also: Sequence[Revision] = (),
        instructions: str | None = None,
    ) -> None:
        self.name, self.version, self.instructions = name, version, instructions
        self.revisions = (revision or default_revision(), *also)
        """The revisions served: the first is the default (the package's newest
        initialize-era revision unless given), the others are negotiated too."""
        self.tools: dict[str, AppTool] = {}
        self.resources: dict[str, _Resource] = {}
        self.prompts: dict[str, tuple[Callable[..., object], Json]] = {}
        self.completions: dict[tuple[str, str], Callable[[str], object]] = {}

    # -- registration --------------------------------------------------------------------

    @overload
    def tool(self, fn: F, /) -> F: ...

    @overload
    def tool(self, *, name: str | None = None, title: str | None = None) -> Decorator: ...

    def tool(
        self,
        fn: Callable[..., object] | None = None,
        *,
        name: str | None = None,
        title: str | None = None,
    ) -> object:
        """Register a function as a tool (``@app.tool`` or ``@app.tool(name=...)``)."""

        def register(fn: F) -> F:
            tool = AppTool.build(fn, name, title)
            self.tools[tool.definition["name"]] = tool
            return fn

        return register if fn is None else register(fn)

    def resource(
        self,
        uri: str,
        *,
        name: str | None = None,
        mime_type: str | None = None,
        title: str | None = None,
    ) -> Decorator:
        """Register a resource; a URI with ``{name}`` parts is a template whose parts become
        the function's arguments."""

        def register(fn: F) -> F:
            templated = _TEMPLATE_VAR.search(uri) is not None
            definition: Json = {"uriTemplate" if templated else "uri": uri}
            definition["name"] = name or fn.__name__
            for key, value in (
                ("mimeType", mime_type),
                ("title", title),
                ("description", doc_line(fn)),
            ):
                if value is not None:
                    definition[key] = value
            pattern = None
            if templated:
                parts = _TEMPLATE_VAR.split(uri)
                regex = "".join(
                    f"(?P<{part}>[^/]+)" if i % 2 else re.escape(part)
                    for i, part in enumerate(parts)
                )
                pattern = re.compile(regex)
            self.resources[uri] = _Resource(fn, definition, pattern)
            return fn

        return register

    @overload
    def prompt(self, fn: F, /) -> F: ...

    @overload
    def prompt(self, *, name: str | None = None) -> Decorator: ...

    def prompt(self, fn: Callable[..., object] | None = None, *, name: str | None = None) -> object:
        """Register a prompt; its arguments are the function's parameters (strings)."""

        def register(fn: F) -> F:
            definition = _prompt_definition(fn, name)
            self.prompts[definition["name"]] = (fn, definition)
            return fn

        return register if fn is None else register(fn)

    def completion(
        self, ref: str, argument: str
    ) -> Callable[[Callable[[str], R]], Callable[[str], R]]:
        """Register completions of ``argument`` of a prompt (by name) or a resource template
        (by its URI template); the function takes the typed prefix and returns candidates."""

        def register(fn: Callable[[str], R]) -> Callable[[str], R]:
            self.completions[(ref, argument)] = fn
            return fn

        return register

    # -- serving -------------------------------------------------------------------------

    def server(self, revision: Revision | None = None) -> ServerBase:
        """A low-level server of ``revision`` (default: the app's first) answering for the app."""
        revision = revision or self.revisions[0]
        handlers = _Handlers(self, revision)
        routes = revision.Server.ROUTES
        wanted = {
            "tools/list": bool(self.tools),
            "tools/call": bool(self.tools),
            "resources/list": any(r.pattern is None for r in self.resources.values()),
            "resources/templates/list": any(r.pattern for r in self.resources.values()),
            "resources/read": bool(self.resources),
            "prompts/list": bool(self.prompts),
            "prompts/get": bool(self.prompts),
            "completion/complete": bool(self.completions),
        }
        namespace: dict[str, object] = {
            "name": self.name,
            "version": self.version,
            "instructions": self.instructions,
        }
        for method, used in wanted.items():
            if used and method in routes:
                namespace[routes[method]] = handlers.handler(method)
        cls = type(f"{revision.Server.__name__}App", (revision.Server,), namespace)
        server: ServerBase = cls()
        return server

    def servers(self) -> list[ServerBase]:
        """One low-level server per revision of the app, the default first."""
        return [self.server(revision) for revision in self.revisions]

    def run(self, argv: Sequence[str] | None = None) -> None:
        """Serve over stdio until the client closes stdin, or over HTTP when the command line
        (``argv``, default ``sys.argv[1:]``) is ``--http [HOST:]PORT`` (blocking)."""
        address = _listen_address(sys.argv[1:] if argv is None else argv)
        if address is not None:
            self.run_http(*address)
            return
        first, *others = self.servers()
        first.run_stdio(*others)

    def run_http(self, host: str = "127.0.0.1", port: int = 8000) -> None:
        """Serve Streamable HTTP at ``http://host:port/mcp`` until interrupted (blocking)."""
        from ..transports.http.server import run_http

        run_http(self.servers(), host, port)


class _Handlers:
    """The handlers of the app's server: wire dicts in and out, converted by the method table."""

    def __init__(self, app: App, revision: Revision) -> None:
        self.app = app
        self.methods = revision.METHODS

    def handler(self, method: str) -> Callable[[ServerBase, Any, ServerContext], Awaitable[object]]:
        """The handler of ``method``: params to wire dict, answer, wire dict to result type."""
        spec = self.methods[method]
        if method == "tools/call":
            return self._call_tool_handler(spec)
        answer = {
            "tools/list": self.list_tools,
            "resources/list": self.list_resources,
            "resources/templates/list": self.list_templates,
            "resources/read": self.read_resource,
            "prompts/list": self.list_prompts,
            "prompts/get": self.get_prompt,
            "completion/complete": self.complete,
        }[method]

        async def handle(server: ServerBase, params: object, ctx: ServerContext) -> object:
            wire = json_object(msgspec.to_builtins(params))
            return convert(await answer(wire, ctx), spec.result)

        return handle

    def _call_tool_handler(
        self, spec: MethodSpec[Any, Any]
    ) -> Callable[[ServerBase, ToolCall, ServerContext], Awaitable[object]]:
        """The hot path: params read through ``ToolCall``, no wire dict of them."""
        tools, methods, result_type = self.app.tools, self.methods, spec.result

        async def handle(server: ServerBase, params: ToolCall, ctx: ServerContext) -> object:
            tool = tools.get(params.name)
            if tool is None:
                unknown = text_block(f"unknown tool {params.name!r}")
                return convert({"content": [unknown], "isError": True}, result_type)
            return convert(await tool.call(params.arguments, ctx, methods), result_type)

        return handle

    async def list_tools(self, params: Json, ctx: ServerContext) -> Json:
        """``tools/list``: every tool's definition."""
        return {"tools": [tool.definition for tool in self.app.tools.values()]}

    async def list_resources(self, params: Json, ctx: ServerContext) -> Json:
        """``resources/list``: the resources with a fixed URI."""
        found = [r.definition for r in self.app.resources.values() if r.pattern is None]
        return {"resources": found}

    async def list_templates(self, params: Json, ctx: ServerContext) -> Json:
        """``resources/templates/list``: the resources with a URI template."""
        found = [r.definition for r in self.app.resources.values() if r.pattern is not None]
        return {"resourceTemplates": found}

    async def read_resource(self, params: Json, ctx: ServerContext) -> Json:
        """``resources/read``: the first resource whose URI or template matches."""
        uri = str(params.get("uri", ""))
        for key, resource in self.app.resources.items():
            match = resource.pattern.fullmatch(uri) if resource.pattern else None
            if key == uri or match is not None:
                value = await _called(resource.fn, **(match.groupdict() if match else {}))
                return {"contents": [resource.contents(uri, value)]}
        raise MCPError(RESOURCE_NOT_FOUND, f"Resource not found: {uri}", {"uri": uri})

    async def list_prompts(self, params: Json, ctx: ServerContext) -> Json:
        """``prompts/list``: every prompt's definition."""
        return {"prompts": [definition for _, definition in self.app.prompts.values()]}

    async def get_prompt(self, params: Json, ctx: ServerContext) -> Json:
        """``prompts/get``: the prompt function's text as one user message."""
        name = str(params.get("name"))
        if name not in self.app.prompts:
            raise MCPError(INVALID_PARAMS, f"unknown prompt {name!r}")
        fn, definition = self.app.prompts[name]
        value = await _called(fn, **dict(params.get("arguments") or {}))
        result: Json = {"messages": [{"role": "user", "content": text_block(str(value))}]}
        if "description" in definition:
            result["description"] = definition["description"]
        return result

    async def complete(self, params: Json, ctx: ServerContext) -> Json:
        """``completion/complete``: the candidates of the registered completion, if any."""
        ref, argument = json_object(params.get("ref")), json_object(params.get("argument"))
        key = (str(ref.get("name") or ref.get("uri")), str(argument.get("name")))
        fn = self.app.completions.get(key)
        found: object = await _called(fn, str(argument.get("value", ""))) if fn else None
        values = [str(v) for v in json_items(found)]
        return {"completion": {"values": values[:100], "total": len(values)}}
