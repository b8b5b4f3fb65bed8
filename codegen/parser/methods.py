"""Derive a revision's method table from the schema's request, notification and result unions."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ..errors import GenerationError, Level, Problem
from ..loader.model import Node, SchemaDocument
from ..loader.overrides import Overrides
from .ir import Direction, MethodIR
from .names import class_name, method_attr
from .typeref import Named, Optional, TypeRef
from .types import TypesResult

# The unions a revision uses to say who sends what; ``InputRequest`` carries the
# server-to-client requests of the stateless revision (embedded in InputRequiredResult).
SOURCES: tuple[tuple[str, Literal["request", "notification"], Literal["client", "server"]], ...] = (
    ("ClientRequest", "request", "client"),
    ("ServerRequest", "request", "server"),
    ("InputRequest", "request", "server"),
    ("ClientNotification", "notification", "client"),
    ("ServerNotification", "notification", "server"),
)
INPUT_REQUIRED_RESULT = "InputRequiredResult"


@dataclass(frozen=True)
class _Message:
    definition: str
    kind: Literal["request", "notification"]
    senders: frozenset[str]


def _members(doc: SchemaDocument, node: Node) -> list[str]:
    if node.ref is not None:
        return [doc.ref_name(node.ref)]
    return [doc.ref_name(sub.ref) for sub in node.any_of if sub.ref is not None]


def _method_name(node: Node) -> str | None:
    method = node.property_map().get("method")
    if method is None:
        return None
    if method.has_const and isinstance(method.const, str):
        return method.const
    return None


def _collect(doc: SchemaDocument) -> tuple[dict[str, _Message], list[Problem]]:
    defs = doc.definition_map()
    found: dict[str, _Message] = {}
    problems: list[Problem] = []
    for union_name, kind, sender in SOURCES:
        union = defs.get(union_name)
        if union is None:
            continue
        names = _members(doc, union) if (union.any_of or union.ref) else [union_name]
        for name in names:
            method = _method_name(defs[name])
            if method is None:
                problems.append(
                    Problem(Level.ERROR, name, f"member of {union_name} has no const method")
                )
                continue
            previous = found.get(method)
            empty: frozenset[str] = frozenset()
            senders = frozenset({sender}) | (previous.senders if previous else empty)
            found[method] = _Message(name, kind, senders)
    return found, problems


def _sender(senders: frozenset[str]) -> Literal["client", "server"]:
    """Return the single sender of a message sent by one side only."""
    return "client" if "client" in senders else "server"


def _result_of(
    doc: SchemaDocument, request: str, method: str, overrides: Overrides
) -> tuple[str | None, bool]:
    """Return (result definition, may return InputRequiredResult) for a request definition."""
    defs = doc.definition_map()
    if method in overrides.results:
        return overrides.results[method], False
    stem = request.removesuffix("Request")
    response = defs.get(f"{stem}ResultResponse")
    if response is not None:
        result = response.property_map().get("result")
        if result is not None:
            targets = _members(doc, result)
            plain = [t for t in targets if t != INPUT_REQUIRED_RESULT]
            if len(plain) == 1:
                return plain[0], INPUT_REQUIRED_RESULT in targets
    if f"{stem}Result" in defs:
        return f"{stem}Result", False
    return None, False


def build_methods(
    doc: SchemaDocument, types: TypesResult, overrides: Overrides
) -> tuple[tuple[MethodIR, ...], tuple[Problem, ...]]:
    """Build the method table: every method of the schema's unions with its types and flags."""
    defs = doc.definition_map()
    messages, problems = _collect(doc)
    rows: list[MethodIR] = []
    for method in sorted(messages):
        msg = messages[method]
        node = defs[msg.definition]
        params = node.property_map().get("params")
        params_type = (
            _name(types.expressions[doc.ref_name(params.ref)].ref)
            if params and params.ref
            else None
        )
        if params is not None and params_type is None:
            params_type = _inline_params(types, class_name(msg.definition))
        result_type: str | None = None
        input_required = False
        if msg.kind == "request":
            result_def, input_required = _result_of(doc, msg.definition, method, overrides)
            if result_def is None and "EmptyResult" in defs:
                # The schema names no result: the spec's convention is the empty result.
                result_def = "EmptyResult"
                problems.append(
                    Problem(
                        Level.WARNING,
                        msg.definition,
                        f"no result type named for {method!r}; using EmptyResult",
                    )
                )
            if result_def is None or result_def not in defs:
                problems.append(
                    Problem(
                        Level.ERROR,
                        msg.definition,
                        f"no result type for {method!r}; add it to [results]",
                    )
                )
                continue
            result_type = _name(types.expressions[result_def].ref)
        direction: Direction = "both" if len(msg.senders) == 2 else _sender(msg.senders)
        capability = overrides.capabilities.get(method)
        owner: Literal["receiver", "sender"] | None = None
        if capability is not None:
            owner = "receiver" if msg.kind == "request" else "sender"
            problems.extend(_check_capability(defs, method, capability))
        rows.append(
            MethodIR(
                method=method,
                attr=method_attr(method),
                constant=method_attr(method).upper(),
                kind=msg.kind,
                direction=direction,
                message_type=class_name(msg.definition),
                params_type=params_type,
                params_required=bool(params is not None and "params" in node.required),
                result_type=result_type,
                paginated=_paginated(types, params_type, result_type),
                capability=capability,
                capability_owner=owner,
                input_required=input_required,
            )
        )
    tables = (("capabilities", overrides.capabilities), ("results", overrides.results))
    for table, entries in tables:
        for method in sorted(set(entries) - set(messages)):
            problems.append(_unknown_method(table, method, overrides))
    return tuple(rows), tuple(problems)


def _unknown_method(table: str, method: str, overrides: Overrides) -> Problem:
    """An entry naming a method the schema lacks: an error, or, inherited from a base revision
    (the next revision dropped the method), a warning that it is skipped."""
    if method in overrides.inherited_methods:
        return Problem(
            Level.WARNING,
            "overrides",
            f"[{table}] of base {overrides.base} names {method!r}, which this revision "
            "lacks; skipped",
        )
    return Problem(Level.ERROR, "overrides", f"[{table}] names unknown method {method!r}")


def _name(ref: TypeRef) -> str:
    """The name of a definition's type (definitions are always named)."""
    if not isinstance(ref, Named):
        raise GenerationError(f"internal error: expected a named type, got {ref!r}")
    return ref.name


def _inline_params(types: TypesResult, message_class: str) -> str | None:
    for struct in types.structs:
        if struct.name == message_class:
            for f in struct.fields:
                if f.wire_name == "params":
                    return _name(f.type.inner if isinstance(f.type, Optional) else f.type)
    return None


def _paginated(types: TypesResult, params_type: str | None, result_type: str | None) -> bool:
    """A method is paginated when its params take ``cursor`` and its result has ``nextCursor``."""
    wires = {s.name: {f.wire_name for f in s.fields} for s in types.structs}
    return "cursor" in wires.get(params_type or "", set()) and "nextCursor" in wires.get(
        result_type or "", set()
    )


def _check_capability(defs: dict[str, Node], method: str, path: str) -> list[Problem]:
    """Check that a capability path exists in the client's or the server's capabilities."""
    for holder in ("ServerCapabilities", "ClientCapabilities"):
        node = defs.get(holder)
        for part in path.split("."):
            node = node.property_map().get(part) if node is not None else None
        if node is not None:
            return []
    return [
        Problem(
            Level.ERROR,
            "overrides",
            f"capability {path!r} of {method!r} is in no capabilities object",
        )
    ]
