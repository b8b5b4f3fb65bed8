"""METHODS: one row per method of each revision, with the schema's own types and flags."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from tests.conftest import REVISIONS

# Method counts per revision, computed from the schema files (see shared NOTES).
EXPECTED_COUNTS = {
    "2024-11-05": 24,
    "2025-03-26": 24,
    "2025-06-18": 25,
    "2025-11-25": 31,
    "2026-07-28": 21,
}
UNIONS = {
    "ClientRequest": ("request", "client"),
    "ServerRequest": ("request", "server"),
    "InputRequest": ("request", "server"),
    "ClientNotification": ("notification", "client"),
    "ServerNotification": ("notification", "server"),
}


def module(revision: str, name: str) -> ModuleType:
    """Import one module of a revision from the checked-in package."""
    return importlib.import_module(f"generated.v{revision.replace('-', '_')}.{name}")


def definitions(schemas: Path, revision: str) -> dict[str, Any]:
    """Return the definitions of a revision's schema file."""
    raw = json.loads((schemas / revision / "schema.json").read_text())
    result: dict[str, Any] = raw.get("$defs") or raw["definitions"]
    return result


def schema_methods(defs: dict[str, Any]) -> dict[str, tuple[str, str, set[str]]]:
    """Map method -> (definition, kind, senders) straight from the schema's unions."""
    found: dict[str, tuple[str, str, set[str]]] = {}
    for union, (kind, sender) in UNIONS.items():
        node = defs.get(union)
        if node is None:
            continue
        refs = [m["$ref"].rsplit("/", 1)[1] for m in node.get("anyOf", [])] or [union]
        for ref in refs:
            method = defs[ref]["properties"]["method"]["const"]
            senders = found[method][2] if method in found else set()
            found[method] = (ref, kind, senders | {sender})
    return found


@pytest.mark.parametrize("revision", REVISIONS)
def test_every_schema_method_has_a_row(schemas: Path, revision: str) -> None:
    """METHODS holds exactly the schema's methods, with the right kind, sender and message type."""
    methods = module(revision, "methods").METHODS
    types = module(revision, "types")
    expected = schema_methods(definitions(schemas, revision))
    assert sorted(methods) == sorted(expected)
    assert len(methods) == EXPECTED_COUNTS[revision]
    for method, (definition, kind, senders) in expected.items():
        spec = methods[method]
        assert spec.method == method
        assert spec.kind == kind, method
        assert spec.direction == ("both" if len(senders) == 2 else next(iter(senders))), method
        assert spec.message is getattr(types, definition), method


@pytest.mark.parametrize("revision", REVISIONS)
def test_params_and_results_are_the_schema_types(schemas: Path, revision: str) -> None:
    """Params come from the message's ``params`` property; results are the schema's result types."""
    methods = module(revision, "methods").METHODS
    types = module(revision, "types")
    defs = definitions(schemas, revision)
    for method, spec in methods.items():
        params = defs[spec.message.__name__]["properties"].get("params")
        if params is None:
            assert spec.params is None, method
        elif "$ref" in params:
            assert spec.params is getattr(types, params["$ref"].rsplit("/", 1)[1]), method
        else:
            assert spec.params is not None, method
        if spec.kind == "notification":
            assert spec.result is None, method
            continue
        stem = spec.message.__name__.removesuffix("Request")
        named = getattr(types, f"{stem}Result", None)
        assert spec.result is (named if named is not None else types.EmptyResult), method


def test_known_rows() -> None:
    """Spot checks: directions, pagination, gating capabilities, input-required results."""
    old = module("2025-03-26", "methods")
    assert old.METHODS["ping"].direction == "both"
    assert old.METHODS["tools/list"].paginated is True
    assert old.METHODS["tools/call"].paginated is False
    assert old.METHODS["tools/call"].capability == "tools"
    assert old.METHODS["tools/call"].capability_owner == "receiver"
    assert old.METHODS["notifications/tools/list_changed"].capability == "tools.listChanged"
    assert old.METHODS["notifications/tools/list_changed"].capability_owner == "sender"
    assert old.METHODS["sampling/createMessage"].direction == "server"
    assert old.METHODS["sampling/createMessage"].capability == "sampling"
    assert old.SUPPORTS_BATCH is True
    assert module("2025-06-18", "methods").SUPPORTS_BATCH is False
    assert module("2024-11-05", "methods").METHODS["completion/complete"].capability is None
    stateless = module("2026-07-28", "methods").METHODS
    assert stateless["tools/call"].input_required is True
    assert stateless["tools/list"].input_required is False
    assert "initialize" not in stateless and "server/discover" in stateless
    assert stateless["elicitation/create"].direction == "server"


@pytest.mark.parametrize("revision", REVISIONS)
def test_paginated_methods_take_cursor(revision: str) -> None:
    """Exactly the list methods whose params have ``cursor`` and results ``nextCursor`` paginate."""
    methods = module(revision, "methods").METHODS
    paginated = {m for m, s in methods.items() if s.paginated}
    assert {"tools/list", "prompts/list", "resources/list", "resources/templates/list"} <= paginated
    for method in paginated:
        spec = methods[method]
        assert "cursor" in spec.params.__struct_encode_fields__, method
        assert "nextCursor" in spec.result.__struct_encode_fields__, method
