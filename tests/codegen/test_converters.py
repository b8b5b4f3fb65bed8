"""Round trips through every converter step, for instances generated from the schemas.

For each neighbouring pair of revisions, both directions, and every object type defined in
both, hypothesis-jsonschema generates instances of the source revision's definition; the
generated step converts each. The test asserts the policy of its row: members the target
lacks are dropped (absent from the output), members it requires are filled, everything else
both define is kept unchanged; a refusal is a ``ConversionError`` naming the member, and only
where the diff (``mcpgen diff``) says the direction may refuse. Every converted value
validates against the target revision's schema.
"""

from __future__ import annotations

import importlib
import itertools
import json
from functools import cache
from typing import Any

import msgspec
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from generated import convert, encode
from generated._runtime.core.convert import Obj, apply_chain, convert_value
from generated.converters import ORDER, STEPS
from generated.runtime import MCPError
from tests.support.schema_support import (
    available_revisions,
    definition_names,
    generation_schema,
    install_hypothesis_jsonschema_shim,
    validation_schema,
    validator_class,
)

AVAILABLE = available_revisions()
if len(AVAILABLE) < 2:
    pytest.skip("MCP reference schemas not found (set MCPGEN_SCHEMA_DIR)", allow_module_level=True)

install_hypothesis_jsonschema_shim()

PAIRED = [r for r in ORDER if r in AVAILABLE]
"""Every revision with a schema: the tables span the 2026-07-28 era too."""
EXAMPLES = 3
LARGE_SCHEMA_CHARS = 30_000


def _types(rev: str) -> Any:
    return importlib.import_module(f"generated.v{rev.replace('-', '_')}.types")


def _struct(rev: str, name: str) -> type[msgspec.Struct] | None:
    found = getattr(_types(rev), name, None)
    return found if isinstance(found, type) and issubclass(found, msgspec.Struct) else None


def _cases() -> list[tuple[str, str, str]]:
    """(source, target, type) for every direction of every neighbouring initialize-era pair."""
    out: list[tuple[str, str, str]] = []
    for a, b in itertools.pairwise(PAIRED):
        shared = sorted(set(definition_names(a)) & set(definition_names(b)))
        for name in shared:
            if _struct(a, name) is not None and _struct(b, name) is not None:
                out += [(a, b, name), (b, a, name)]
    return out


CASES = _cases()


ENVELOPE = (("jsonrpc", "2.0"), ("id", 1))
"""The JSON-RPC envelope members some revisions' message types list, with a value each."""


@cache
def _wire_names(rev: str, name: str) -> frozenset[str]:
    """The wire names of the members a generated type defines (its tag included)."""
    found = _struct(rev, name)
    assert found is not None
    tag = found.__struct_config__.tag_field
    names = {f.encode_name for f in msgspec.structs.fields(found)}
    return frozenset(names | {tag} if tag is not None else names)


@cache
def _validator(rev: str, name: str) -> Any:
    return validator_class(rev)(validation_schema(rev, name))


@cache
def _refusing_pairs() -> frozenset[tuple[str, str]]:
    """The directions ``mcpgen diff`` says may refuse something."""
    from mcpgen.convert.ir import load_policy
    from mcpgen.diff import compare, load_surface

    policy = load_policy()
    out: set[tuple[str, str]] = set()
    for a, b in itertools.pairwise(PAIRED):
        diff = compare(load_surface(a), load_surface(b), policy.rule_names, policy.member_actions)
        if diff.impacts("upgrade")["refused"]:
            out.add((a, b))
        if diff.impacts("downgrade")["refused"]:
            out.add((b, a))
    return frozenset(out)


def check_step(source: str, target: str, name: str, instance: dict[str, Any]) -> str:
    """Convert one instance through the step; assert the row's policy. Returns the outcome."""
    step = STEPS[source, target]
    row = step.rows.get(name, Obj())
    defined = _wire_names(target, name)
    if "method" in instance:  # a message travels in its JSON-RPC envelope in every revision
        for wire, filler in ENVELOPE:
            if wire in defined:
                instance.setdefault(wire, filler)
    value = convert(instance, _struct(source, name))
    try:
        out = convert_value(((step, name),), value, _struct(target, name))
    except MCPError as exc:
        assert (source, target) in _refusing_pairs(), f"the diff says it never refuses: {exc}"
        assert exc.message.startswith(f"cannot convert {name}"), exc.message
        return "refused"
    encoded = json.loads(encode(out))
    errors = [e.message for e in _validator(target, name).iter_errors(encoded)]
    assert not errors, f"converted {name} is not valid in {target}: {errors[:3]}"
    inner = {wire for wire, _ in row.inner}
    for wire in row.drop:
        assert wire not in encoded, f"{name}.{wire} should be dropped"
    for wire, value_ in row.fill:
        assert encoded.get(wire) == (instance.get(wire, value_))
    for wire, original in instance.items():
        if wire in row.drop or wire in inner:
            continue
        if wire not in defined:  # the target type does not define it: left out, as typed
            assert wire not in encoded, f"{name}.{wire} is not a member of {target}"
            continue
        assert encoded.get(wire) == original, f"{name}.{wire} changed: {encoded.get(wire)!r}"
    return "dropped" if any(w in instance for w in row.drop) else "kept"


@pytest.mark.parametrize(
    ("source", "target", "name"), CASES, ids=[f"{s}->{t}/{n}" for s, t, n in CASES]
)
def test_generated_instances_convert_per_policy(source: str, target: str, name: str) -> None:
    """Instances of ``name`` in ``source`` convert into ``target`` as the row says."""
    schema = generation_schema(source, name)
    assert schema is not False
    strategy: st.SearchStrategy[Any] = from_schema(schema)
    examples = 1 if len(json.dumps(schema)) > LARGE_SCHEMA_CHARS else EXAMPLES

    @settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def one(instance: Any) -> None:
        if isinstance(instance, dict):
            check_step(source, target, name, instance)

    one()


def test_cases_cover_every_pair_both_ways() -> None:
    """The parametrisation is not vacuous: every direction has types, some with rows."""
    directions = {(s, t) for s, t, _ in CASES}
    pairs = list(itertools.pairwise(PAIRED))
    assert directions == {*pairs, *((b, a) for a, b in pairs)}
    with_rows = [(s, t, n) for s, t, n in CASES if n in STEPS[s, t].rows]
    assert len(with_rows) > 20


# -- the policy, on hand-made values ---------------------------------------------------------


def _down(name: str, value: Any, source: str, target: str) -> dict[str, Any]:
    from generated._runtime.core.convert import chain

    path = chain(STEPS, ORDER, source, target, "tools/call", result=True)
    assert path is not None
    return json.loads(encode(convert_value(path, value, _struct(target, name))))


def test_resource_link_becomes_text_for_older_revisions() -> None:
    """A resource_link block maps to text naming it (2025-03-26 and 2024-11-05), others stay."""
    n = _types("2025-11-25")
    result = n.CallToolResult(
        content=[
            n.TextContent(text="hi"),
            n.ResourceLink(uri="demo://a", name="a", mime_type="text/plain"),
        ],
        structured_content={"x": 1},
    )
    for target in ("2025-03-26", "2024-11-05"):
        got = _down("CallToolResult", result, "2025-11-25", target)
        assert got == {
            "content": [{"type": "text", "text": "hi"}, {"type": "text", "text": "a: demo://a"}]
        }
    kept = _down("CallToolResult", result, "2025-11-25", "2025-06-18")
    assert kept["content"][1]["type"] == "resource_link"
    assert kept["structuredContent"] == {"x": 1}


def test_audio_becomes_text_in_2024_11_05() -> None:
    """2024-11-05 has no audio block: it becomes a text saying so."""
    n = _types("2025-03-26")
    result = n.CallToolResult(content=[n.AudioContent(data="AA==", mime_type="audio/wav")])
    got = _down("CallToolResult", result, "2025-03-26", "2024-11-05")
    assert got["content"][0]["type"] == "text"
    assert "audio/wav" in got["content"][0]["text"]


def test_sampling_tool_use_is_dropped_from_a_list_and_refused_alone() -> None:
    """A member without a rule is dropped from a list; where it is the only value, the
    conversion fails naming the member, never sending an invalid message."""
    from generated._runtime.core.convert import chain

    n = _types("2025-11-25")
    o = _types("2025-06-18")
    path = chain(STEPS, ORDER, "2025-11-25", "2025-06-18", "sampling/createMessage", True)
    assert path is not None
    use = n.ToolUseContent(id="1", name="search", input={})
    with pytest.raises(MCPError, match="CreateMessageResult"):
        convert_value(
            path,
            n.CreateMessageResult(role="assistant", model="m", content=use),
            o.CreateMessageResult,
        )


def test_refused_member_names_the_field() -> None:
    """A required member the target needs and nothing provides is refused by name."""
    from generated._runtime.core.convert import chain

    n = _types("2025-11-25")
    o = _types("2025-06-18")
    path = chain(STEPS, ORDER, "2025-11-25", "2025-06-18", "notifications/cancelled", False)
    assert path is not None
    with pytest.raises(MCPError, match=r"CancelledNotificationParams\.requestId"):
        convert_value(
            path, n.CancelledNotificationParams(reason="x"), o.CancelledNotificationParams
        )


def test_declared_map_rules_are_fields_of_the_target_member() -> None:
    """Every field a map rule writes exists in the target member (checked on real data)."""
    data = {"content": [{"type": "resource_link", "uri": "u", "name": "n"}]}
    path = ((STEPS["2025-06-18", "2025-03-26"], "CallToolResult"),)
    apply_chain(path, data)
    assert data == {"content": [{"type": "text", "text": "n: u"}]}


# -- what a declared rule assumes is asserted at generation ------------------------------------


@pytest.mark.parametrize(
    ("rule", "error"),
    [
        ('to = "video"\nfields = { type = "video" }', "has no 'video' member"),
        ('to = "text"\nfields = { type = "text", text = "{uri}", colour = "red" }', "no field"),
        ('to = "text"\nfields = { type = "text" }', "requires text"),
        ('to = "text"\nfields = { text = "{uri}", type = "image" }', "must write type = 'text'"),
    ],
)
def test_a_map_rule_that_does_not_fit_the_target_stops_generation(rule: str, error: str) -> None:
    """A ``map`` rule names a member the target has and writes fields it has, all it needs."""
    from mcpgen.convert.build import build_convert
    from mcpgen.convert.ir import load_policy
    from mcpgen.errors import GenerationError

    policy = load_policy(f'[members.resource_link]\naction = "map"\n{rule}\n')
    with pytest.raises(GenerationError, match=error):
        build_convert(["2025-03-26", "2025-06-18"], policy)


def test_a_policy_of_unknown_shape_is_refused() -> None:
    """An unknown action or a map without a target is a clear error, not a silent default."""
    from mcpgen.convert.ir import load_policy
    from mcpgen.errors import GenerationError

    with pytest.raises(GenerationError, match="unknown action 'keep'"):
        load_policy('[members.audio]\naction = "keep"\n')
    with pytest.raises(GenerationError, match="'map' needs 'to'"):
        load_policy('[members.audio]\naction = "map"\n')
