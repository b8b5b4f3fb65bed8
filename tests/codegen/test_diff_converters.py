"""``mcpgen diff`` and the generated converters tell one story.

The converters are planned from the diff's classification under the declared rules of
``schema/converters.toml`` (which ``mcpgen diff`` applies too). For every neighbouring pair of
revisions and both directions, each field the diff classifies converts exactly so in the
generated tables: copied fields are untouched, dropped ones left out, filled ones filled,
refused ones refused. The cases the diff once misjudged are converted for real: members that
fit the target convert losslessly, and what the diff calls refused is refused by the
converters, naming the method and the member's path.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

import pytest

from generated import convert
from generated._runtime.core.convert import Obj, chain, convert_value
from generated.converters import ORDER, STEPS
from generated.runtime import MCPError
from generated.v2025_06_18 import types as t0618
from generated.v2025_11_25 import types as t1125
from mcpgen.convert.ir import load_policy
from mcpgen.diff import Action, Category, Diff, Impact, Kind, compare, load_surface
from tests.support.schema_support import available_revisions

if not set(ORDER) <= set(available_revisions()):
    pytest.skip("MCP reference schemas not found (set MCPGEN_SCHEMA_DIR)", allow_module_level=True)

PAIRS = list(itertools.pairwise(ORDER))
DIRECTIONS = [(a, b, True) for a, b in PAIRS] + [(b, a, False) for a, b in PAIRS]


@cache
def diff_of(old: str, new: str) -> Diff:
    """The diff as ``mcpgen diff`` prints it and as the converters are planned from it."""
    policy = load_policy()
    return compare(load_surface(old), load_surface(new), policy.rule_names, policy.member_actions)


def row_action(row: Obj, wire: str) -> Action:
    """What a generated row does with one member."""
    if wire in row.drop:
        return Action.DROP
    if wire in row.refuse or wire in row.need:
        return Action.REFUSE
    if wire in dict(row.fill):
        return Action.FILL
    return Action.COPY


@pytest.mark.parametrize(
    ("source", "target", "upgrade"), DIRECTIONS, ids=[f"{s}->{t}" for s, t, _ in DIRECTIONS]
)
def test_every_field_verdict_is_what_the_converters_do(
    source: str, target: str, upgrade: bool
) -> None:
    """A field only one side has, or that becomes required: the diff's action is the row's."""
    old, new = (source, target) if upgrade else (target, source)
    step = STEPS[source, target]
    checked = 0
    for change in diff_of(old, new).changes:
        if change.category is not Category.FIELD or change.aspect not in ("", "required"):
            continue
        effect = change.upgrade if upgrade else change.downgrade
        if change.kind is (Kind.REMOVED if upgrade else Kind.ADDED) and effect.action is Action.MAP:
            continue  # a field the source lacks: nothing to convert
        row = step.rows.get(change.subject, Obj())
        got = row_action(row, change.item)
        assert got is effect.action, f"{change.path}: diff {effect.action}, converter {got}"
        checked += 1
    assert checked > 0


def test_upgrade_gate_passes_for_every_initialize_era_bump() -> None:
    """``--fail-on refused --direction upgrade`` has no reason to fail 2025-06-18 -> 2025-11-25:
    the request ``id``/``jsonrpc`` the schema lists are the envelope's, on the wire before."""
    d = diff_of("2025-06-18", "2025-11-25")
    assert d.impacts("upgrade")["refused"] == 0
    ident = d.find(Category.FIELD, "CallToolRequest", "id")[0]
    assert (ident.upgrade.impact, ident.downgrade.impact) == (Impact.LOSSLESS, Impact.LOSSLESS)


def up_params(method: str, value: Any, into: Any) -> Any:
    """Convert request params of 2025-06-18 into 2025-11-25 as the bridge does."""
    path = chain(STEPS, ORDER, "2025-06-18", "2025-11-25", method, result=False)
    assert path is not None
    return convert_value(path, value, into, f"{method} params")


def test_removed_members_that_fit_convert_losslessly() -> None:
    """``EnumSchema``, ``JSONRPCError`` and ``JSONRPCResponse`` are lossless going up: an
    enum in a form converts (to ``LegacyTitledEnumSchema``) with every member kept, and the
    envelopes fit their successors."""
    d = diff_of("2025-06-18", "2025-11-25")
    for subject, member in (
        ("PrimitiveSchemaDefinition", "EnumSchema"),
        ("JSONRPCMessage", "JSONRPCError"),
        ("JSONRPCMessage", "JSONRPCResponse"),
    ):
        (change,) = d.find(Category.MEMBER, subject, member)
        assert change.upgrade.impact is Impact.LOSSLESS, change
    enum = {"type": "string", "enum": ["a", "b"], "enumNames": ["A", "B"], "title": "Pick"}
    params = {"message": "m", "requestedSchema": {"type": "object", "properties": {"p": enum}}}
    value = convert(params, t0618.ElicitRequestParams)
    out = up_params("elicitation/create", value, t1125.ElicitRequestFormParams)
    assert out.requested_schema.properties["p"] == convert(enum, t1125.LegacyTitledEnumSchema)
    error = {"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "no"}}
    assert convert(error, t1125.JSONRPCErrorResponse).error.message == "no"
    response = {"jsonrpc": "2.0", "id": 1, "result": {}}
    assert convert(response, t1125.JSONRPCResultResponse).id == 1


REFUSED_DOWN = [
    (
        "elicitation/create",
        False,
        {"mode": "url", "message": "m", "elicitationId": "e", "url": "https://x.example"},
        t1125.ElicitRequestURLParams,
        "requestedSchema",
    ),
    (
        "elicitation/create",
        False,
        {
            "message": "m",
            "requestedSchema": {
                "type": "object",
                "properties": {"p": {"type": "array", "items": {"type": "string", "enum": ["a"]}}},
            },
        },
        t1125.ElicitRequestFormParams,
        "$.requestedSchema.properties",
    ),
    (
        "elicitation/create",
        True,
        {"action": "accept", "content": {"colors": ["red", "blue"]}},
        t1125.ElicitResult,
        "$.content",
    ),
]


@pytest.mark.parametrize(
    ("method", "result", "value", "kind", "where"),
    REFUSED_DOWN,
    ids=["url-elicitation", "multi-select", "array-answer"],
)
def test_what_the_diff_refuses_the_converters_refuse_naming_it(
    method: str, result: bool, value: dict[str, Any], kind: Any, where: str
) -> None:
    """URL elicitation, multi-select fields and array answers going down to 2025-06-18: the
    diff says refused, and the conversion fails naming the method and the member's path."""
    d = diff_of("2025-06-18", "2025-11-25")
    verdicts = [
        d.find(Category.TYPE, "ElicitRequestParams")[0].downgrade,
        d.find(Category.MEMBER, "PrimitiveSchemaDefinition", "UntitledMultiSelectEnumSchema")[
            0
        ].downgrade,
        d.find(Category.FIELD, "ElicitResult", "content")[0].downgrade,
    ]
    assert all(v.impact is Impact.REFUSED for v in verdicts), verdicts
    path = chain(STEPS, ORDER, "2025-11-25", "2025-06-18", method, result)
    assert path is not None
    into = t0618.ElicitResult if result else t0618.ElicitRequestParams
    label = f"{method} {'result' if result else 'params'}"
    with pytest.raises(MCPError) as refused:
        convert_value(path, convert(value, kind), into, label)
    assert label in refused.value.message and where in refused.value.message, refused.value
