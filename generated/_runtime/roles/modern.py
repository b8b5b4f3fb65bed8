# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The modern (2026-07-28) server: every request accepted or refused on its own, no session.

``ModernServer`` wraps a generated 2026-07-28 ``Server`` and answers one JSON-RPC frame at a
time, for any transport: stdio hands it lines, HTTP hands it POST bodies with their headers.
Each request carries its version and the client's capabilities in ``_meta``
(``basic/index.mdx#_meta``); the checks run in this order, each with its spec error:

1. ``_meta`` present with ``protocolVersion`` and ``clientCapabilities``, else -32602 (HTTP 400);
2. HTTP: ``MCP-Protocol-Version`` equals the ``_meta`` version, else -32020 (400);
3. the version is one this server serves statelessly, else -32022 listing the supported
   versions (400);
4. HTTP: ``Mcp-Method`` / ``Mcp-Name`` / ``Mcp-Param-*`` match the body, else -32020 (400);
5. the method exists in the revision and the server implements it, else -32601 (HTTP 404);
6. the handler runs with a per-request context: its log level (no ``notifications/message``
   without ``logLevel``), MRTR for input (``mrtr.py``), -32021 for a missing client capability.

Results get ``resultType``, ``_meta["io.modelcontextprotocol/serverInfo"]`` and, on cacheable
methods, ``ttlMs``/``cacheScope`` (server defaults, overridable per handler with
``@cache_hints``). ``server/discover`` and ``subscriptions/listen`` are answered here; the
tasks extension (a ``tools/call`` that becomes a task, ``tasks/*``) in ``modern_tasks.py``.
"""

from __future__ import annotations

import logging
import weakref
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar, cast

import msgspec

from ..core.codec import convert
from ..core.errors import (
    INTERNAL_ERROR,
    INVALID_PARAMS,
    INVALID_REQUEST,
    METHOD_NOT_FOUND,
    MCPError,
)
from ..core.events import Request
from ..core.frame_guard import object_problem
from ..core.meta import (
    HEADER_MISMATCH,
    META_CAPABILITIES,
    META_SERVER_INFO,
    META_VERSION,
    MISSING_CLIENT_CAPABILITY,
    UNSUPPORTED_PROTOCOL_VERSION,
)
from ..core.sealed import InvalidRequestState, StateSealer
from ..core.wire import as_id, as_object
from ..transports.http.headers import (
    HeaderError,
    InvalidToolHeaders,
    ParamHeader,
    check_request,
    param_headers,
)
from .connection import implemented_capabilities, is_implemented
from .modern_connection import (
    Emit,
    Frame,
    ModernConnection,
    field,
    obj,
)
from .modern_tasks import EXTENSION, ModernTasks, declares_extension, missing_extension
from .mrtr import (
    MRTR_METHODS,
    InputRequired,
    InvalidInputResponse,
    MissingClientCapability,
    Rounds,
    open_rounds,
)
from .server import ServerBase
from .subscriptions import (
    PROMPTS_CHANGED,
    RESOURCE_UPDATED,
    RESOURCES_CHANGED,
    TOOLS_CHANGED,
    Filter,
    FilterError,
    Listeners,
    supported_filters,
)
from .taskstore import TaskRecord

log = logging.getLogger(__name__)

LEGACY_VERSIONS: Final = frozenset({"2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"})
"""Versions of the initialize era: a request naming one belongs to a session."""
CACHEABLE: Final = frozenset(
    {
        "server/discover",
        "tools/list",
        "prompts/list",
        "resources/list",
        "resources/templates/list",
        "resources/read",
    }
)
_RUNTIME_METHODS: Final = frozenset({"server/discover", "subscriptions/listen"})
_CHANGES: Final = frozenset({TOOLS_CHANGED, PROMPTS_CHANGED, RESOURCES_CHANGED, RESOURCE_UPDATED})

CacheScope = Literal["public", "private"]
F = TypeVar("F", bound=Callable[..., Any])


def cache_hints(ttl_ms: int | None = None, scope: CacheScope | None = None) -> Callable[[F], F]:
    """Give one handler its own ``ttlMs``/``cacheScope`` defaults (a result's own values win)."""

    def mark(handler: F) -> F:
        handler.__mcpgen_cache__ = (ttl_ms, scope)  # type: ignore[attr-defined]
        return handler

    return mark


@dataclass(frozen=True, slots=True)
class Reply:
    """The answer to one frame: the response (None for a notification) and its HTTP status."""

    frame: Frame | None
    status: int = 200


def error_frame(request_id: Any, code: int, message: str, data: Any = None) -> Frame:
    """A JSON-RPC error response."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        error["data"] = data
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


class _Refused(Exception):
    """A request refused before its handler ran: code, message, data, HTTP status."""

    def __init__(self, code: int, message: str, status: int, data: Any = None) -> None:
        super().__init__(message)
        self.code, self.message, self.status, self.data = code, message, status, data


class ModernServer:
    """Answers 2026-07-28 requests statelessly for one generated ``Server``."""

    def __init__(
        self,
        server: ServerBase,
        *,
        legacy_versions: Iterable[str] = (),
        sealer: StateSealer | None = None,
        listeners: Listeners | None = None,
        cache_ttl_ms: int = 0,
        cache_scope: CacheScope = "private",
    ) -> None:
        self.server = server
        self.versions = (server.PROTOCOL_VERSION,)
        self.supported = [server.PROTOCOL_VERSION, *sorted(set(legacy_versions), reverse=True)]
        self.sealer = sealer or StateSealer()
        self.listeners = listeners or Listeners()
        self.cache_ttl_ms = cache_ttl_ms
        self.cache_scope: CacheScope = cache_scope
        self.capabilities = self._capabilities()
        self._filters = supported_filters(self.capabilities)
        self._result_types = {
            m: spec.result for m, spec in server.METHODS.items() if spec.direction == "server"
        }
        self._tool_headers: dict[str, tuple[ParamHeader, ...]] | None = None
        support = getattr(server, "task_support", None)
        self.tasks = (
            None if support is None else ModernTasks(support, self._result_types, self._task)
        )
        if self.tasks is not None:
            self.capabilities.setdefault("extensions", {})[EXTENSION] = {}
            self._filters |= {"taskIds"}

    @classmethod
    def of(cls, server: ServerBase, **options: Any) -> ModernServer:
        """The engine of ``server``, made on first use: HTTP, stdio and the publish API share it."""
        engine = _ENGINES.get(server)
        if engine is None:
            engine = _ENGINES[server] = cls(server, **options)
        elif "legacy_versions" in options:
            engine.serve_legacy(options["legacy_versions"])
        return engine

    def serve_legacy(self, versions: Iterable[str]) -> None:
        """Name these initialize-era versions as supported too (one process serving both eras)."""
        known = set(self.supported[1:]) | set(versions)
        self.supported = [self.server.PROTOCOL_VERSION, *sorted(known, reverse=True)]

    def _capabilities(self) -> dict[str, Any]:
        server = self.server
        caps = implemented_capabilities(server, server.ROUTES, server.METHODS)
        for top in server.list_changed:
            if top in caps:
                caps[top]["listChanged"] = True
        if getattr(server, "resource_subscriptions", False) and "resources" in caps:
            caps["resources"]["subscribe"] = True
        if server.logging:
            caps["logging"] = {}
        return caps

    def server_info(self) -> dict[str, Any]:
        """The ``serverInfo`` put in every result's ``_meta``."""
        return self.server.server_info()

    async def publish(self, method: str, uri: str | None = None) -> None:
        """Publish a change to every listener (and forget cached tool headers on tool changes)."""
        if method == TOOLS_CHANGED:
            self._tool_headers = None
        if method == RESOURCE_UPDATED and uri is not None:
            await self.listeners.notify_resource_updated(uri)
        elif method == TOOLS_CHANGED:
            await self.listeners.notify_tools_changed()
        elif method == PROMPTS_CHANGED:
            await self.listeners.notify_prompts_changed()
        elif method == RESOURCES_CHANGED:
            await self.listeners.notify_resources_changed()

    async def notify_tools_changed(self) -> None:
        """Tell every listener that opted in that the tool list changed."""
        await self.publish(TOOLS_CHANGED)

    async def notify_prompts_changed(self) -> None:
        """Tell every listener that opted in that the prompt list changed."""
        await self.publish(PROMPTS_CHANGED)

    async def notify_resources_changed(self) -> None:
        """Tell every listener that opted in that the resource list changed."""
        await self.publish(RESOURCES_CHANGED)

    async def notify_resource_updated(self, uri: str) -> None:
        """Tell every listener subscribed to ``uri`` that it changed."""
        await self.publish(RESOURCE_UPDATED, uri)

    # -- one frame ------------------------------------------------------------------------

    async def handle(
        self, message: Any, emit: Emit | None = None, headers: Mapping[str, str] | None = None
    ) -> Reply:
        """Answer one decoded JSON-RPC message; ``headers`` (lower-case names) on HTTP only."""
        frame = as_object(message)
        problem = "a message must be a JSON object" if frame is None else object_problem(frame)
        if frame is None or problem is not None:
            request_id = None if frame is None else as_id(frame.get("id"))
            return Reply(
                error_frame(request_id, INVALID_REQUEST, f"Invalid request: {problem}"), 400
            )
        method = frame.get("method")
        request_id = as_id(frame.get("id"))
        if not isinstance(method, str):  # a response, yet this era sends no requests: not
            return Reply(None, 400)  # accepted (HTTP 400), never answered (as by a session)
        if request_id is None:
            return Reply(None, 202)
        try:
            return await self._request(request_id, method, frame.get("params"), emit, headers)
        except _Refused as exc:
            return Reply(error_frame(request_id, exc.code, exc.message, exc.data), exc.status)

    def accept(
        self, method: str, params: Any, headers: Mapping[str, str] | None
    ) -> tuple[str, dict[str, Any]]:
        """Checks 1-5 of the module docstring; return the version and ``_meta``, or refuse."""
        meta = as_object(field(params, "_meta"))
        if meta is None:
            raise _Refused(INVALID_PARAMS, "Invalid params: _meta is required", 400)
        version = meta.get(META_VERSION)
        if not isinstance(version, str):
            raise _Refused(INVALID_PARAMS, f"Invalid params: _meta needs {META_VERSION}", 400)
        if not isinstance(meta.get(META_CAPABILITIES), dict):
            raise _Refused(INVALID_PARAMS, f"Invalid params: _meta needs {META_CAPABILITIES}", 400)
        if headers is not None:
            header = headers.get("mcp-protocol-version")
            if header is None:
                raise _Refused(
                    HEADER_MISMATCH, "Header mismatch: MCP-Protocol-Version missing", 400
                )
            if header.strip() != version:
                raise _Refused(
                    HEADER_MISMATCH,
                    f"Header mismatch: MCP-Protocol-Version {header.strip()!r} does not match "
                    f"_meta {version!r}",
                    400,
                )
        if version not in self.versions:
            data = {"supported": self.supported, "requested": version}
            raise _Refused(UNSUPPORTED_PROTOCOL_VERSION, "Unsupported protocol version", 400, data)
        if headers is not None:
            try:
                check_request(headers, method, params, self._cached_tool_headers(method, params))
            except HeaderError as exc:
                raise _Refused(exc.code, str(exc), exc.status) from None
        if self.tasks is not None and method in self.tasks.methods:
            return version, meta
        spec = self.server.METHODS.get(method)
        attr = self.server.ROUTES.get(method)
        if (
            spec is None
            or spec.kind != "request"
            or spec.direction == "server"
            or attr is None
            or (method not in _RUNTIME_METHODS and not is_implemented(self.server, attr))
        ):
            raise _Refused(METHOD_NOT_FOUND, f"Method not found: {method}", 404)
        return version, meta

    def _cached_tool_headers(self, method: str, params: Any) -> tuple[ParamHeader, ...]:
        if method != "tools/call" or self._tool_headers is None:
            return ()
        return self._tool_headers.get(str(field(params, "name")), ())

    async def _request(
        self,
        request_id: Any,
        method: str,
        params: Any,
        emit: Emit | None,
        headers: Mapping[str, str] | None,
    ) -> Reply:
        if headers is not None and method == "tools/call" and self._tool_headers is None:
            await self._load_tool_headers(params)
        version, meta = self.accept(method, params, headers)
        if method == "server/discover":
            return Reply(self._complete(request_id, method, self._discover(), None))
        if method == "subscriptions/listen":
            return await self._listen(request_id, params, emit, meta)
        if self.tasks is not None and method in self.tasks.methods:
            return await self._task_request(request_id, method, params, meta)
        spec = self.server.METHODS[method]
        rounds: Rounds | None = None
        try:
            typed = convert(params, spec.params)
            if method in MRTR_METHODS:
                rounds = open_rounds(
                    method,
                    params,
                    self.sealer,
                    meta[META_CAPABILITIES],
                    self._result_types,
                )
        except (msgspec.ValidationError, InvalidRequestState, InvalidInputResponse) as exc:
            return Reply(error_frame(request_id, INVALID_PARAMS, f"Invalid params: {exc}"))
        connection = ModernConnection(self, version, meta, emit, rounds)
        token = meta.get("progressToken")
        event = Request(request_id, method, typed, token if _is_id(token) else None)
        handler: Callable[[Any, Any], Awaitable[Any]] = getattr(
            self.server, self.server.ROUTES[method]
        )
        context = self.server.CONTEXT(connection, event)  # type: ignore[arg-type]
        try:
            tasks = self.tasks
            caps = meta[META_CAPABILITIES]
            plan = "sync" if tasks is None else tasks.plan(method, obj(params), caps)
            if tasks is None or plan == "sync":
                result = await handler(typed, context)
            else:
                created, result = await tasks.run(
                    plan, method, lambda: handler(typed, context), connection
                )
                if created is not None:
                    return Reply(self._complete(request_id, method, created, None, cacheable=False))
        except InputRequired:
            assert rounds is not None
            interim = rounds.interim(self.sealer)
            return Reply(self._complete(request_id, method, interim, None, cacheable=False))
        except MissingClientCapability as exc:
            return _missing(request_id, exc)
        except (InvalidInputResponse, InvalidRequestState) as exc:
            return Reply(error_frame(request_id, INVALID_PARAMS, f"Invalid params: {exc}"))
        except MCPError as exc:
            return Reply(error_frame(request_id, exc.code, exc.message, exc.data))
        except Exception:
            log.exception("handler of %s failed", method)
            return Reply(error_frame(request_id, INTERNAL_ERROR, "Internal error"))
        return Reply(self._complete(request_id, method, result, handler))

    def _complete(
        self, request_id: Any, method: str, result: Any, handler: Any, cacheable: bool = True
    ) -> Frame:
        out = as_object(msgspec.to_builtins(result))
        if out is None:
            return error_frame(request_id, INTERNAL_ERROR, "the handler returned no result object")
        out.setdefault("resultType", "complete")
        meta = as_object(out.get("_meta"))  # out is to_builtins' fresh copy: change in place
        if meta is None:
            meta = out["_meta"] = {}
        meta.setdefault(META_SERVER_INFO, self.server_info())
        if cacheable and method in CACHEABLE and out["resultType"] == "complete":
            ttl, scope = getattr(handler, "__mcpgen_cache__", (None, None))
            out.setdefault("ttlMs", self.cache_ttl_ms if ttl is None else ttl)
            out.setdefault("cacheScope", scope or self.cache_scope)
        tools = _objects(out.get("tools")) if method == "tools/list" else None
        if tools is not None and "nextCursor" not in out:
            out["tools"] = tools = sorted(tools, key=lambda tool: str(tool.get("name", "")))
        if tools is not None and self._tool_headers is None:
            self._remember_tool_headers(tools)
        return {"jsonrpc": "2.0", "id": request_id, "result": out}

    def _discover(self) -> dict[str, Any]:
        result: dict[str, Any] = {
            "supportedVersions": self.supported,
            "capabilities": self.capabilities,
        }
        if self.server.instructions:
            result["instructions"] = self.server.instructions
        return result

    async def _listen(
        self, request_id: Any, params: Any, emit: Emit | None, meta: Mapping[str, Any]
    ) -> Reply:
        try:
            wanted = Filter.parse(params.get("notifications"))
        except FilterError as exc:
            return Reply(error_frame(request_id, INVALID_PARAMS, f"Invalid params: {exc}"))
        if wanted.task_ids and self.tasks is not None:
            if not declares_extension(meta[META_CAPABILITIES]):
                return _missing(request_id, missing_extension())
            wanted = wanted.only_tasks(await self.tasks.owned(list(wanted.task_order)))

        async def send(method: str, body: dict[str, Any]) -> None:
            if emit is not None:
                await emit({"jsonrpc": "2.0", "method": method, "params": body})

        result = await self.listeners.listen(request_id, wanted, self._filters, send)
        result["_meta"].setdefault(META_SERVER_INFO, self.server_info())
        return Reply({"jsonrpc": "2.0", "id": request_id, "result": result})

    async def _task_request(
        self, request_id: Any, method: str, params: Any, meta: Mapping[str, Any]
    ) -> Reply:
        """``tasks/get``, ``tasks/update``, ``tasks/cancel`` (the tasks extension)."""
        assert self.tasks is not None
        try:
            result = await self.tasks.answer(method, obj(params), meta[META_CAPABILITIES])
        except MissingClientCapability as exc:
            return _missing(request_id, exc)
        except MCPError as exc:
            return Reply(error_frame(request_id, exc.code, exc.message, exc.data))
        return Reply(self._complete(request_id, method, result, None, cacheable=False))

    async def _task(self, record: TaskRecord, params: dict[str, Any]) -> None:
        """Publish a task's new state to the listen streams that asked for it."""
        await self.listeners.notify_task(record.task_id, params)

    async def _load_tool_headers(self, params: Any) -> None:
        """Learn the tools' ``x-mcp-header`` annotations from the server's own ``tools/list``."""
        if not is_implemented(self.server, "list_tools"):
            self._tool_headers = {}
            return
        spec = self.server.METHODS["tools/list"]
        try:
            typed = convert({"_meta": obj(field(params, "_meta"))}, spec.params)
            connection = ModernConnection(self, self.versions[0], typed.meta, None, None)
            event = Request(0, "tools/list", typed)
            context = self.server.CONTEXT(connection, event)  # type: ignore[arg-type]
            result = await self.server.list_tools(typed, context)  # type: ignore[attr-defined]
        except Exception:
            self._tool_headers = {}
            return
        self._remember_tool_headers(_objects(field(msgspec.to_builtins(result), "tools")) or [])

    def _remember_tool_headers(self, tools: list[dict[str, Any]]) -> None:
        table: dict[str, tuple[ParamHeader, ...]] = {}
        for tool in tools:
            name = tool.get("name")
            if not isinstance(name, str):
                continue
            try:
                found = param_headers(tool.get("inputSchema"))
            except InvalidToolHeaders:
                found = ()
            if found:
                table[name] = found
        self._tool_headers = table


def modern_engine(servers: Iterable[Any], legacy_versions: Iterable[str]) -> ModernServer | None:
    """The engine for the stateless-era server among ``servers`` (a ``ModernServer`` or a
    generated 2026-07-28 ``Server``), or None when all are of the initialize era."""
    for server in servers:
        if isinstance(server, ModernServer):
            return server
        if "initialize" not in server.METHODS:
            return ModernServer.of(server, legacy_versions=legacy_versions)
    return None


_ENGINES: weakref.WeakKeyDictionary[ServerBase, ModernServer] = weakref.WeakKeyDictionary()


def _objects(value: object) -> list[dict[str, Any]] | None:
    """``value`` as a list of JSON objects (other items dropped), if it is a list."""
    if not isinstance(value, list):
        return None
    items = cast("list[object]", value)
    return [o for o in map(as_object, items) if o is not None]


def _missing(request_id: Any, exc: MissingClientCapability) -> Reply:
    """The -32021 answer (HTTP 400) naming the client capability the request needs."""
    return Reply(error_frame(request_id, MISSING_CLIENT_CAPABILITY, str(exc), exc.data), 400)


def _is_id(value: Any) -> bool:
    return isinstance(value, str | int) and not isinstance(value, bool)
