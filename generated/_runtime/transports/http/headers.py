# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The 2026-07-28 Streamable HTTP request headers, as pure functions (``streamable-http.mdx``).

The client mirrors ``method`` into ``Mcp-Method``, ``params.name``/``params.uri`` into
``Mcp-Name`` (``tools/call``, ``resources/read``, ``prompts/get``; ``params.taskId`` for the
tasks extension's ``tasks/*``) and each tool argument
whose schema carries ``x-mcp-header`` into ``Mcp-Param-{name}``; values that are not plain
header-safe ASCII travel as ``=?base64?...?=``. The server checks every mirrored header
against the body and refuses a mismatch with HTTP 400 and -32020 (``HeaderMismatch``).
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final, cast

from ...core.meta import HEADER_MISMATCH
from ...core.wire import as_object

"""JSON-RPC code of a header that is missing, malformed, or disagrees with the body."""
PROTOCOL_VERSION_HEADER: Final = "mcp-protocol-version"
METHOD_HEADER: Final = "mcp-method"
NAME_HEADER: Final = "mcp-name"
PARAM_PREFIX: Final = "mcp-param-"
NAMED_METHODS: Final = {
    "tools/call": "name",
    "prompts/get": "name",
    "resources/read": "uri",
    "tasks/get": "taskId",
    "tasks/update": "taskId",
    "tasks/cancel": "taskId",
}
"""Methods whose ``Mcp-Name`` mirrors a params field, and which field (the ``tasks/*`` ones:
the tasks extension, so that intermediaries can route a task's requests to its server)."""
MAX_SAFE_INTEGER: Final = 2**53 - 1

_SENTINEL_START: Final = "=?base64?"
_SENTINEL_END: Final = "?="
_SAFE_VALUE: Final = re.compile(r"[\x21-\x7e]([\x20-\x7e]*[\x21-\x7e])?")
_ALLOWED_RAW: Final = re.compile(r"[\t\x20-\x7e]*")
_TOKEN: Final = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_B64: Final = re.compile(r"[A-Za-z0-9+/]*={0,2}")


class HeaderError(Exception):
    """A header is missing, malformed or does not match the body (HTTP 400, -32020)."""

    code = HEADER_MISMATCH
    status = 400


class InvalidToolHeaders(ValueError):
    """A tool's ``x-mcp-header`` annotations break the spec's rules; the tool is unusable."""


@dataclass(frozen=True, slots=True)
class ParamHeader:
    """One ``x-mcp-header`` annotation: header name suffix, property path, JSON type."""

    name: str
    path: tuple[str, ...]
    type: str

    @property
    def header(self) -> str:
        """The header name, as sent (``Mcp-Param-Region``)."""
        return f"Mcp-Param-{self.name}"


def encode_value(value: str | int | bool) -> str:
    """Render one value for a header: plain when header-safe, else the Base64 sentinel."""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, int):
        text = str(value)
    else:
        text = value
    sentinel_like = text.startswith(_SENTINEL_START) and text.endswith(_SENTINEL_END)
    if _SAFE_VALUE.fullmatch(text) and not sentinel_like:
        return text
    return f"{_SENTINEL_START}{base64.b64encode(text.encode('utf-8')).decode('ascii')}?="


def decode_value(raw: str) -> str:
    """Read one header value (outer whitespace dropped, the sentinel decoded), or raise."""
    if (  # the common value: visible ASCII and inner spaces only, no sentinel (no regex)
        raw.isascii()
        and raw.isprintable()
        and raw[:1] != " "
        and raw[-1:] != " "
        and not raw.startswith(_SENTINEL_START)
    ):
        return raw
    if not _ALLOWED_RAW.fullmatch(raw):
        raise HeaderError("header value contains characters not allowed in HTTP headers")
    text = raw.strip(" \t")
    if not (
        text.startswith(_SENTINEL_START)
        and text.endswith(_SENTINEL_END)
        and len(text) >= len(_SENTINEL_START) + len(_SENTINEL_END)
    ):
        return text
    encoded = text[len(_SENTINEL_START) : -len(_SENTINEL_END)]
    if len(encoded) % 4 or not _B64.fullmatch(encoded):
        raise HeaderError("header value is not valid Base64 inside =?base64?...?=")
    try:
        return base64.b64decode(encoded, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise HeaderError("header value is not valid Base64 of UTF-8 text") from None


def param_headers(input_schema: Any) -> tuple[ParamHeader, ...]:
    """The ``x-mcp-header`` annotations of a tool's inputSchema; raise if any is invalid."""
    found: list[ParamHeader] = []
    _walk(input_schema, (), found, reachable=True)
    seen: set[str] = set()
    for item in found:
        if item.name.lower() in seen:
            raise InvalidToolHeaders(f"x-mcp-header {item.name!r} is used twice")
        seen.add(item.name.lower())
    return tuple(found)


def _walk(
    node: object, path: tuple[str, ...], found: list[ParamHeader], *, reachable: bool
) -> None:
    if isinstance(node, list):
        for item in cast("list[object]", node):
            _walk(item, path, found, reachable=False)
        return
    schema = as_object(node)
    if schema is None:
        return
    if "x-mcp-header" in schema:
        found.append(_annotation(schema, path, reachable))
    for key, child in schema.items():
        props = as_object(child) if key == "properties" else None
        if props is not None:
            for prop, sub in props.items():
                _walk(sub, (*path, prop), found, reachable=reachable)
        elif key != "x-mcp-header":
            _walk(child, path, found, reachable=False)


def _annotation(node: Mapping[str, Any], path: tuple[str, ...], reachable: bool) -> ParamHeader:
    name = node["x-mcp-header"]
    if not reachable or not path:
        raise InvalidToolHeaders("x-mcp-header is only allowed on properties reached by properties")
    if not isinstance(name, str) or not _TOKEN.fullmatch(name):
        raise InvalidToolHeaders(f"x-mcp-header {name!r} is not an HTTP header name token")
    kind = node.get("type")
    if kind not in ("string", "integer", "boolean"):
        raise InvalidToolHeaders(f"x-mcp-header {name!r} is on a {kind!r} property")
    return ParamHeader(name=name, path=path, type=kind)


def _lookup(arguments: object, path: tuple[str, ...]) -> object:
    node = arguments
    for key in path:
        found = as_object(node)
        if found is None or key not in found:
            return None
        node = found[key]
    return node


def request_headers(
    version: str,
    method: str,
    params: Mapping[str, Any] | None,
    params_of_tool: tuple[ParamHeader, ...] = (),
) -> dict[str, str]:
    """The headers a client adds to one POST: version, method, name and tool params."""
    headers = {"MCP-Protocol-Version": version, "Mcp-Method": method}
    field = NAMED_METHODS.get(method)
    if field is not None and params is not None and isinstance(params.get(field), str):
        headers["Mcp-Name"] = encode_value(params[field])
    arguments = params.get("arguments") if params is not None else None
    for item in params_of_tool:
        value = _lookup(arguments, item.path)
        if isinstance(value, (str, int)) and not isinstance(value, float):
            headers[item.header] = encode_value(value)
    return headers


def check_request(
    headers: Mapping[str, str],
    method: str,
    params: Mapping[str, Any] | None,
    params_of_tool: tuple[ParamHeader, ...] = (),
) -> None:
    """Check, on the server, the mirrored headers of one POST against its body, or raise.

    ``headers`` has lower-case names (ASGI gives them so). The protocol version header is
    checked by the caller, which knows the versions it serves.
    """
    field = NAMED_METHODS.get(method)
    body_name = params.get(field) if field is not None and params is not None else None
    arguments = params.get("arguments") if params is not None else None
    check_mirrored(headers, method, body_name, arguments, params_of_tool)


def check_mirrored(
    headers: Mapping[str, str],
    method: str,
    body_name: object,
    arguments: object,
    params_of_tool: tuple[ParamHeader, ...] = (),
) -> None:
    """``check_request`` given what the headers mirror: the method, the params member
    ``Mcp-Name`` mirrors (``body_name``, checked when a string) and the tool arguments."""
    got = headers.get(METHOD_HEADER)
    if got is None:
        raise HeaderError("Header mismatch: the Mcp-Method header is missing")
    if got != method and decode_value(got) != method:  # the same text: a method name as it is
        raise HeaderError(
            f"Header mismatch: Mcp-Method header value {got.strip()!r} does not match body "
            f"value {method!r}"
        )
    if isinstance(body_name, str):
        raw = headers.get(NAME_HEADER)
        if raw is None:
            raise HeaderError("Header mismatch: the Mcp-Name header is missing")
        if decode_value(raw) != body_name:
            raise HeaderError(
                f"Header mismatch: Mcp-Name header value {raw.strip()!r} does not match body "
                f"value {body_name!r}"
            )
    for item in params_of_tool:
        _check_param(headers.get(item.header.lower()), _lookup(arguments, item.path), item)


def _check_param(raw: str | None, value: Any, item: ParamHeader) -> None:
    if value is None:
        if raw is not None:
            decode_value(raw)  # a stray header must still be well-formed
        return
    if raw is None:
        raise HeaderError(f"Header mismatch: {item.header} is missing but the body has a value")
    text = decode_value(raw)
    if isinstance(value, bool) or item.type == "boolean":
        ok = text == ("true" if value is True else "false" if value is False else object())
    elif isinstance(value, int):
        try:
            ok = float(text) == value
        except ValueError:
            ok = False
    else:
        ok = text == value
    if not ok:
        raise HeaderError(
            f"Header mismatch: {item.header} header value {text!r} does not match body value "
            f"{value!r}"
        )
