"""Property tests: schema instances round-trip through the generated types and stay schema-valid.

For every definition of every revision, hypothesis-jsonschema generates instances of the
definition (patched like the generator patches it, with unknown keys forbidden where the
generated Struct would drop them); each must convert into the generated type of the same name,
encode back to equal JSON, and the encoding must validate against the revision's schema.
"""

from __future__ import annotations

import importlib
import json
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from tests.support.schema_support import (
    available_revisions,
    definition_names,
    generation_schema,
    install_hypothesis_jsonschema_shim,
    is_recursive,
    validation_schema,
    validator_class,
)

REVISIONS = available_revisions()
if not REVISIONS:
    pytest.skip("MCP reference schemas not found (set MCPGEN_SCHEMA_DIR)", allow_module_level=True)

install_hypothesis_jsonschema_shim()

# Definitions hypothesis-jsonschema cannot generate, as (revision, name) -> reason. Recursive
# ones (2026-07-28 JSONValue, JSONObject) are unrolled two levels instead, so none is needed
# today; an entry must name a definition that still exists and the set must stay small.
UNGENERATABLE: dict[tuple[str, str], str] = {}

MAX_SKIPPED_FRACTION = 0.05
EXAMPLES = 4
"""Examples per definition; the budget of the whole file is about 2 minutes on 2 cores."""
EXAMPLES_LARGE = 2
"""Examples for definitions whose inlined schema is large (unions of many results, requests)."""
LARGE_SCHEMA_CHARS = 30_000


def _all_cases() -> list[tuple[str, str]]:
    """Return every (revision, definition) pair of the available schemas."""
    return [(rev, name) for rev in REVISIONS for name in definition_names(rev)]


CASES = _all_cases()


def _types_module(rev: str) -> Any:
    """Import the generated types module of a revision."""
    return importlib.import_module(f"generated.v{rev.replace('-', '_')}.types")


@cache
def _validator(rev: str, name: str) -> Any:
    """Return a jsonschema validator (of the revision's draft) for one definition."""
    return validator_class(rev)(validation_schema(rev, name))


def _settings(examples: int) -> settings:
    """Return deterministic, deadline-free Hypothesis settings for one definition."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],  # no shrinking: it is slow on big schemas
        suppress_health_check=list(HealthCheck),
    )


def check_round_trip(rev: str, name: str, instance: Any, *, tolerant: bool = True) -> None:
    """Assert that one schema-valid instance converts, re-encodes equal and validates."""
    from generated import convert, encode

    validator = _validator(rev, name)
    try:
        obj = convert(instance, getattr(_types_module(rev), name), tolerant=tolerant)
    except Exception:
        # Only here is the input checked: when the output equals it, the output check covers it.
        assert validator.is_valid(instance), "generator produced a schema-invalid instance"
        raise
    encoded = json.loads(encode(obj))
    errors = [e.message for e in validator.iter_errors(encoded)]
    assert not errors, f"encoding is not valid {name}: {errors[:3]}"
    assert encoded == instance, f"round trip changed the value: {encoded!r}"


def test_every_definition_has_a_generated_type() -> None:
    """Every schema definition has a generated type of exactly the same name."""
    for rev in REVISIONS:
        module = _types_module(rev)
        missing = [name for name in definition_names(rev) if not hasattr(module, name)]
        assert not missing, f"{rev}: no generated type for {missing}"


def test_skip_set_is_small_and_current() -> None:
    """The ungeneratable set names existing definitions and stays under 5% of them."""
    existing = set(CASES)
    stale = [case for case in UNGENERATABLE if case not in existing]
    assert not stale, f"skip entries for definitions that no longer exist: {stale}"
    assert len(UNGENERATABLE) <= MAX_SKIPPED_FRACTION * len(CASES)


def test_recursive_definitions_are_unrolled() -> None:
    """Recursive definitions still get a finite, satisfiable generation schema."""
    recursive = [(rev, n) for rev, n in CASES if is_recursive(rev, n)]
    for rev, name in recursive:
        schema = generation_schema(rev, name)
        assert schema is not False and "$ref" not in json.dumps(schema), f"{rev}/{name}"


def test_round_trip_check_is_not_vacuous() -> None:
    """The check passes a good instance and fails an invalid or a lossily decoded one."""
    rev = REVISIONS[-1]
    check_round_trip(rev, "TextContent", {"type": "text", "text": "hi"})
    with pytest.raises(AssertionError, match="schema-invalid"):
        check_round_trip(rev, "TextContent", {"type": "text"})
    # An unknown key is schema-valid here but dropped in strict mode: the check must notice.
    extra = {"type": "text", "text": "hi", "x-extra": 1}
    with pytest.raises(AssertionError, match="round trip changed"):
        check_round_trip(rev, "TextContent", extra, tolerant=False)
    check_round_trip(rev, "TextContent", extra)  # tolerant (the default) keeps it


# Schema-valid instances that the generated types got wrong once, checked on every run.
KNOWN_INSTANCES: list[tuple[str, str, Any]] = [
    # A CallToolResult with _meta was decoded as SubscriptionsListenResult, dropping content.
    ("2026-07-28", "ServerResult", {"resultType": "complete", "content": [], "_meta": {}}),
    # The titled multi-select enum schema was dispatched to the untitled one and rejected.
    ("2025-11-25", "MultiSelectEnumSchema", {"type": "array", "items": {"anyOf": []}}),
    (
        "2026-07-28",
        "EnumSchema",
        {"type": "array", "items": {"anyOf": [{"const": "a", "title": "A"}]}},
    ),
    # Unions with a non-Struct member: the hook's dict or list result was refused by msgspec.
    ("2024-11-05", "ClientResult", {}),
    ("2025-11-25", "ServerResult", {"_meta": {}}),
    ("2025-03-26", "JSONRPCMessage", [{"jsonrpc": "2.0", "id": 1, "method": "ping"}]),
]


@pytest.mark.parametrize(
    ("rev", "name", "instance"),
    [case for case in KNOWN_INSTANCES if case[0] in REVISIONS],
    ids=[f"{r}/{n}-{i}" for i, (r, n, _) in enumerate(KNOWN_INSTANCES) if r in REVISIONS],
)
def test_known_instances_round_trip(rev: str, name: str, instance: Any) -> None:
    """Hand-picked schema-valid instances convert, re-encode equal and validate."""
    check_round_trip(rev, name, instance)


@pytest.mark.parametrize(("rev", "name"), CASES, ids=[f"{r}/{n}" for r, n in CASES])
def test_generated_instances_round_trip(rev: str, name: str) -> None:
    """Instances generated from a definition decode, re-encode equal and validate."""
    if (rev, name) in UNGENERATABLE:
        pytest.skip(UNGENERATABLE[(rev, name)])
    schema = generation_schema(rev, name)
    assert schema is not False, "definition unsatisfiable after unrolling"
    large = len(json.dumps(schema)) > LARGE_SCHEMA_CHARS
    strategy: st.SearchStrategy[Any] = from_schema(schema)

    @_settings(EXAMPLES_LARGE if large else EXAMPLES)
    @given(strategy)
    def round_trip(instance: Any) -> None:
        """Check one generated instance."""
        check_round_trip(rev, name, instance)

    round_trip()
