"""What a result carries when served without a handshake: ``resultType``, the server's
``serverInfo`` in ``_meta``, on cacheable methods ``ttlMs``/``cacheScope`` (the server's
defaults, overridable per handler with ``@cache_hints``), and ``tools/list`` sorted by name.

A generated result Struct is completed as a Struct (``msgspec.structs.replace``): no conversion
to builtins and back. Other results (dicts, the builtins') are completed as JSON objects.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeVar, cast

import msgspec

from ..core.errors import INTERNAL_ERROR, MCPError
from ..core.meta import META_SERVER_INFO
from ..core.wire import as_object

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
"""The methods whose results carry ``ttlMs`` and ``cacheScope``."""

CacheScope = Literal["public", "private"]
F = TypeVar("F", bound=Callable[..., Any])


def cache_hints(ttl_ms: int | None = None, scope: CacheScope | None = None) -> Callable[[F], F]:
    """Give one handler its own ``ttlMs``/``cacheScope`` defaults (a result's own values win)."""

    def mark(handler: F) -> F:
        handler.__mcpgen_cache__ = (ttl_ms, scope)  # type: ignore[attr-defined]
        return handler

    return mark


def hints_of(
    handlers: Mapping[str, Callable[..., Any]],
) -> dict[str, tuple[int | None, CacheScope | None]]:
    """Each handler's own ``@cache_hints`` (``(None, None)``: the server's defaults)."""
    return {m: getattr(h, "__mcpgen_cache__", (None, None)) for m, h in handlers.items()}


@dataclass(slots=True)
class CacheDefaults:
    """The cache hints a server gives its cacheable results: its defaults and per method."""

    ttl_ms: int
    scope: CacheScope
    hints: dict[str, tuple[int | None, CacheScope | None]]


def complete_result(info: dict[str, Any], cache: CacheDefaults, method: str, result: Any) -> Any:
    """``result`` of ``method`` as sent: ``resultType``, ``info`` as serverInfo, cache hints,
    sorted tools (``info`` and ``cache`` first: a connection binds them once, ``Peer.complete``)."""
    kind = result.__class__
    shape = _SHAPES.get(kind, _UNSEEN)
    if shape is _UNSEEN:
        shape = _shape_of(kind)
    if shape is None:
        return _complete_json(method, result, info, cache)
    meta = result.meta
    if meta is msgspec.UNSET or meta is None:
        meta = {META_SERVER_INFO: info}
    elif META_SERVER_INFO not in meta:
        meta = {**meta, META_SERVER_INFO: info}
    if not shape.more:  # no cache hints, no tools to sort (a tool result): _meta only
        return result if meta is result.meta else msgspec.structs.replace(result, meta=meta)
    changes: dict[str, Any] = {"meta": meta}
    if shape.cache and method in CACHEABLE and shape.result_type == "complete":
        ttl, scope = cache.hints.get(method, (None, None))
        if result.ttl_ms is msgspec.UNSET:
            changes["ttl_ms"] = cache.ttl_ms if ttl is None else ttl
        if result.cache_scope is msgspec.UNSET:
            changes["cache_scope"] = scope or cache.scope
    if method == "tools/list" and shape.tools and result.next_cursor is msgspec.UNSET:
        changes["tools"] = sorted(result.tools, key=_tool_name)
    return msgspec.structs.replace(result, **changes)


def _complete_json(
    method: str, result: Any, info: dict[str, Any], cache: CacheDefaults
) -> dict[str, Any]:
    """``complete_result`` for a result that is no generated result Struct: a JSON object."""
    out = as_object(msgspec.to_builtins(result))
    if out is None:
        raise MCPError(INTERNAL_ERROR, "the handler returned no result object")
    out.setdefault("resultType", "complete")
    meta = as_object(out.get("_meta"))  # out is to_builtins' fresh copy: change in place
    if meta is None:
        meta = out["_meta"] = {}
    if META_SERVER_INFO not in meta:
        meta[META_SERVER_INFO] = info
    if method in CACHEABLE and out["resultType"] == "complete":
        ttl, scope = cache.hints.get(method, (None, None))
        out.setdefault("ttlMs", cache.ttl_ms if ttl is None else ttl)
        out.setdefault("cacheScope", scope or cache.scope)
    if method == "tools/list" and "nextCursor" not in out:
        tools = _objects(out.get("tools"))
        if tools is not None:
            out["tools"] = sorted(tools, key=lambda tool: str(tool.get("name", "")))
    return out


@dataclass(frozen=True, slots=True)
class _Shape:
    """What ``complete_result`` may set on a result Struct type (worked out once per type)."""

    result_type: str
    """The ``resultType`` the type's tag writes."""
    cache: bool
    """Whether it has ``ttlMs`` and ``cacheScope``."""
    tools: bool
    """Whether it is a page of tools (``tools``, ``nextCursor``)."""
    more: bool
    """Whether anything but ``_meta`` may be set (cache hints, the order of tools)."""


_SHAPES: dict[type, _Shape | None] = {}
_UNSEEN: Final = _Shape("", cache=False, tools=False, more=False)
"""What ``_SHAPES`` gives for a type not seen yet (None is a shape: no result Struct)."""


def _shape_of(kind: type) -> _Shape | None:
    """The shape of a result Struct type tagged by ``resultType`` with ``_meta``; else None."""
    if kind in _SHAPES:
        return _SHAPES[kind]
    shape = None
    if issubclass(kind, msgspec.Struct):
        config = kind.__struct_config__
        names = {f.name: f.encode_name for f in msgspec.structs.fields(kind)}
        if (
            config.tag_field == "resultType"
            and isinstance(config.tag, str)
            and names.get("meta") == "_meta"
        ):
            cache = names.get("ttl_ms") == "ttlMs" and names.get("cache_scope") == "cacheScope"
            tools = "tools" in names and names.get("next_cursor") == "nextCursor"
            shape = _Shape(config.tag, cache, tools, cache or tools)
    if len(_SHAPES) < 1024:  # result types are few
        _SHAPES[kind] = shape
    return shape


def _tool_name(tool: Any) -> str:
    """A tool's name, to sort ``tools/list`` by."""
    return str(getattr(tool, "name", ""))


def _objects(value: object) -> list[dict[str, Any]] | None:
    """``value`` as a list of JSON objects (other items dropped), if it is a list."""
    if not isinstance(value, list):
        return None
    items = cast("list[object]", value)
    return [o for o in map(as_object, items) if o is not None]
