"""Property tests of tolerant reading: random extra keys on instances of every generated Struct.

For every definition that is a Struct, hypothesis-jsonschema generates schema-valid instances
(as ``test_properties`` does); random keys the revision does not define, with random JSON
values, are then added to the instance and to every object inside it that a Struct reads.
Tolerant conversion must keep all of them (the encoding equals the extended instance as JSON);
strict conversion must drop all of them (the encoding equals the original instance).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import msgspec
import msgspec.inspect as mi
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema

from generated._runtime.core.unions import UntaggedUnion
from generated.runtime import convert, encode
from tests.support.schema_support import (
    available_revisions,
    definition_names,
    generation_schema,
    install_hypothesis_jsonschema_shim,
)

REVISIONS = available_revisions()
if not REVISIONS:
    pytest.skip("MCP reference schemas not found (set MCPGEN_SCHEMA_DIR)", allow_module_level=True)

install_hypothesis_jsonschema_shim()

LARGE_SCHEMA_CHARS = 30_000
Draw = Callable[[st.SearchStrategy[Any]], Any]

JSON_VALUES: st.SearchStrategy[Any] = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**40), 2**40) | st.text(max_size=6),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=5,
)
EXTRA_KEYS = st.text(
    st.characters(blacklist_categories=("Cc", "Cs"), blacklist_characters='"\\'), max_size=6
).map(lambda k: "x-" + k)
"""Keys any peer could send (msgspec cannot write a quote, backslash or control character in a
field name: ``test_tolerant`` pins that such keys are the one thing left out)."""


def _types(rev: str) -> Any:
    """The generated types module of a revision."""
    import importlib

    return importlib.import_module(f"generated.v{rev.replace('-', '_')}.types")


def _struct_cases() -> list[tuple[str, str]]:
    """Every (revision, definition) whose generated type is a Struct."""
    out = []
    for rev in REVISIONS:
        module = _types(rev)
        for name in definition_names(rev):
            tp = getattr(module, name, None)
            if isinstance(tp, type) and issubclass(tp, msgspec.Struct):
                out.append((rev, name))
    return out


CASES = _struct_cases()


def with_random_extras(value: Any, info: mi.Type, draw: Draw) -> Any:
    """``value`` with random undefined keys added to every object a Struct reads."""
    if isinstance(info, mi.Metadata):
        return with_random_extras(value, info.type, draw)
    if isinstance(value, list) and isinstance(info, (mi.ListType, mi.VarTupleType)):
        return [with_random_extras(v, info.item_type, draw) for v in value]
    if not isinstance(value, dict):
        return value
    if isinstance(info, mi.UnionType):
        structs = [t for t in info.types if isinstance(t, mi.StructType)]
        customs = [t for t in info.types if isinstance(t, mi.CustomType)]
        if customs and issubclass(customs[0].cls, UntaggedUnion):
            return _into_untagged(value, customs[0].cls, draw)
        chosen = [s for s in structs if s.tag_field is None or value.get(s.tag_field) == s.tag]
        return with_random_extras(value, chosen[0], draw) if chosen else value
    if isinstance(info, mi.CustomType) and issubclass(info.cls, UntaggedUnion):
        return _into_untagged(value, info.cls, draw)
    if not isinstance(info, mi.StructType):
        return value
    fields = {f.encode_name: f for f in info.fields}
    out = {
        k: with_random_extras(v, fields[k].type, draw) if k in fields else v
        for k, v in value.items()
    }
    taken = set(fields) | set(value) | {info.tag_field}
    keys = draw(st.lists(EXTRA_KEYS.filter(lambda k: k not in taken), max_size=2, unique=True))
    for key in keys:
        out[key] = draw(JSON_VALUES)
    return out


def _into_untagged(value: dict[str, Any], union: type[UntaggedUnion], draw: Draw) -> Any:
    """Extras inside the variant of an untagged union the runtime would pick."""
    candidates = [v for v in union.variants if v.kind == "object" and v.matches(value)]
    candidates.sort(key=lambda v: -v.score(value))
    for variant in candidates:
        try:
            convert(value, variant.type, tolerant=False)
        except msgspec.ValidationError:
            continue
        return with_random_extras(value, mi.type_info(variant.type), draw)
    return value


@pytest.mark.parametrize(("rev", "name"), CASES, ids=[f"{r}/{n}" for r, n in CASES])
def test_random_extra_keys_survive_tolerant_and_drop_strict(rev: str, name: str) -> None:
    """Extra keys at every Struct of an instance: kept as JSON tolerant, dropped strict."""
    tp = getattr(_types(rev), name)
    info = mi.type_info(tp)
    schema = generation_schema(rev, name)
    large = len(json.dumps(schema)) > LARGE_SCHEMA_CHARS

    @settings(
        max_examples=1 if large else 2,
        deadline=None,
        derandomize=True,
        database=None,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(from_schema(schema), st.data())
    def check(instance: Any, data: st.DataObject) -> None:
        """One instance, extended."""
        extended = with_random_extras(instance, info, data.draw)
        kept = json.loads(encode(convert(extended, tp)))
        assert kept == extended, f"tolerant lost or changed a key: {kept!r}"
        dropped = json.loads(encode(convert(extended, tp, tolerant=False)))
        assert dropped == instance, f"strict kept a key: {dropped!r}"

    check()


def test_extension_is_not_vacuous() -> None:
    """The helper adds keys at nested Structs too (so the property covers more than the top)."""
    rev = REVISIONS[-1]
    tp = _types(rev).CallToolResult
    instance = {"content": [{"type": "text", "text": "a"}], "resultType": "complete"}
    if rev < "2026-07-28":
        del instance["resultType"]
    draws = iter([["x-in"], 2, ["x-top"], 1])  # inner objects are extended first

    def draw(_: Any) -> Any:
        return next(draws)

    extended = with_random_extras(instance, mi.type_info(tp), draw)
    assert extended["x-top"] == 1 and extended["content"][0]["x-in"] == 2
