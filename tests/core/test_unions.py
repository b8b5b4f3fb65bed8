"""Untagged unions: the variant chosen by shape, nested unions, errors, and instance checks;
recursive aliases, which the same decode hook checks."""

from __future__ import annotations

from typing import Any, Literal

import msgspec
import pytest

from generated._runtime.core.codec import convert, decode
from generated._runtime.core.recursive import recursive_alias
from generated._runtime.core.unions import Variant, untagged_union
from generated.v2025_06_18 import types as t
from generated.v2026_07_28 import types as t0728


class Wide(msgspec.Struct, kw_only=True):
    """A shape with one required key and two optional ones."""

    a: int
    b: int = 0
    c: int = 0


class Narrow(msgspec.Struct, kw_only=True):
    """A shape with the same required key and fewer known ones."""

    a: int
    d: str = ""


class Holder(msgspec.Struct):
    """A Struct holding an untagged union."""

    item: Any


Overlap = untagged_union(
    "Overlap",
    Variant(Narrow, "object", ("a",), (), ("a", "d")),
    Variant(Wide, "object", ("a",), (), ("a", "b", "c")),
    Variant(str, "string"),
    Variant(Literal["x"], "string"),
)
Holder.__annotations__["item"] = Overlap


def test_a_value_of_several_shapes_goes_to_the_variant_knowing_most_keys() -> None:
    """Both variants need ``a``; the one that knows ``b`` and ``c`` explains more of the value."""
    assert decode(b'{"item":{"a":1,"b":2,"c":3}}', Holder).item == Wide(a=1, b=2, c=3)
    assert decode(b'{"item":{"a":1,"d":"z"}}', Holder).item == Narrow(a=1, d="z")
    assert decode(b'{"item":{"a":1}}', Holder).item == Narrow(a=1)
    assert decode(b'{"item":"text"}', Holder).item == "text"


def test_a_failing_variant_gives_way_to_the_next_and_errors_name_the_first() -> None:
    """When the best shape does not convert, the next candidate is tried; none: the first error."""
    # Wide knows more keys but ``b`` has the wrong type for it; Narrow ignores ``b``.
    assert decode(b'{"item":{"a":1,"b":"no","c":3}}', Holder).item == Narrow(a=1)
    with pytest.raises(msgspec.ValidationError, match=r"`a` of Narrow - at `\$.item`"):
        decode(b'{"item":{"a":"no"}}', Holder)
    with pytest.raises(msgspec.ValidationError, match=r"matches none - at `\$.item`"):
        decode(b'{"item":{"b":1}}', Holder)
    with pytest.raises(msgspec.ValidationError, match=r"matches none - at `\$.item`"):
        decode(b'{"item":3}', Holder)


def test_nested_unions_and_constants_decode() -> None:
    """A union inside a variant of a union decodes (the hook reaches it); consts pick variants."""
    server_result: Any = t.ServerResult  # the run-time union class (checkers see the union)
    primitive: Any = t.PrimitiveSchemaDefinition
    result = convert(
        {"contents": [{"uri": "u", "blob": "AA=="}, {"uri": "v", "text": "t"}]}, server_result
    )
    assert isinstance(result, t.ReadResourceResult)
    assert [type(c) for c in result.contents] == [t.BlobResourceContents, t.TextResourceContents]
    schema = convert({"type": "string", "enum": ["a", "b"]}, primitive)
    assert isinstance(schema, t.EnumSchema)
    assert isinstance(convert({"type": "boolean"}, primitive), t.BooleanSchema)
    assert convert({"anything": 1}, server_result) == {"anything": 1}


def test_values_of_every_variant_are_instances_of_the_union() -> None:
    """``isinstance`` holds for each variant's class (and its subclasses), and for nothing else."""
    union: Any = t.TextResourceContentsOrBlobResourceContents
    server_result: Any = t.ServerResult
    assert isinstance(t.TextResourceContents(uri="u", text="t"), union)
    assert isinstance(t.BlobResourceContents(uri="u", blob=""), union)
    assert not isinstance(t.ResourceContents(uri="u"), union)
    assert issubclass(t.TextResourceContents, union)
    assert isinstance({"a": 1}, server_result)

    class Mine(dict[str, Any]):
        """A dict subclass."""

    assert isinstance(Mine(), server_result)
    assert not isinstance("text", server_result)


class Leaf(msgspec.Struct):
    """A Struct inside a recursive alias: not plain JSON, so the hook converts."""

    n: int


def test_a_recursive_alias_of_other_parts_is_converted_by_msgspec() -> None:
    """``Tree = Leaf | list[Tree]``: the back reference converts each level with msgspec."""
    namespace: dict[str, Any] = {"__name__": "tests.tree"}
    tree = recursive_alias("Tree", namespace)
    namespace["Tree"] = Leaf | list[tree]  # type: ignore[valid-type]
    assert recursive_alias("Tree", namespace) is tree
    value = decode(b'[{"n": 1}, [{"n": 2}, []]]', list[tree])  # type: ignore[valid-type]
    assert value == [Leaf(n=1), [Leaf(n=2), []]]
    with pytest.raises(msgspec.ValidationError, match="Expected `int`, got `str`"):
        decode(b'[[{"n": "x"}]]', list[tree])  # type: ignore[valid-type]


def test_a_deep_json_value_is_checked_without_recursion() -> None:
    """The walk over a JSON value keeps its own stack: nesting deeper than Python's limit."""
    deep: Any = "leaf"
    for _ in range(20_000):
        deep = [deep]
    checked: Any = convert(deep, t0728.JSONArray)  # type: ignore[arg-type]
    # JSONArray's items are the native JSONValue union; the hook takes over one level down
    # and returns the rest as it came.
    assert checked[0][0] is deep[0][0]
    bottom: list[Any] = deep
    while isinstance(bottom[0], list):
        bottom = bottom[0]
    bottom[0] = None
    with pytest.raises(msgspec.ValidationError, match="got `null`"):
        convert(deep, t0728.JSONArray)  # type: ignore[arg-type]


class Tagless(msgspec.Struct, kw_only=True):
    """A shape told apart from ``Wide`` by its required key ``t``."""

    t: str


class Cell(msgspec.Struct):
    """A Struct holding a union whose members keys alone decide."""

    item: Any


Keyed = untagged_union(
    "Keyed",
    Variant(Wide, "object", ("a",), (), ("a", "b", "c")),
    Variant(Tagless, "object", ("t",), (), ("t",)),
)
Cell.__annotations__["item"] = Keyed


def test_a_shape_decided_before_still_names_the_variant_a_bad_value_fails() -> None:
    """The second value of a known set of keys takes the remembered variant, and one that
    does not convert is refused with the variant named, as the first time."""
    for _ in range(2):
        assert decode(b'{"item":{"a":1,"b":2}}', Cell).item == Wide(a=1, b=2)
        assert decode(b'{"item":{"t":"x"}}', Cell).item == Tagless(t="x")
    for _ in range(2):
        with pytest.raises(msgspec.ValidationError, match=r"`b` of Wide - at `\$.item`"):
            decode(b'{"item":{"a":1,"b":"no"}}', Cell)
    union: Any = t.TextResourceContentsOrBlobResourceContents
    assert type(convert({"uri": "u", "text": "t"}, union)) is t.TextResourceContents
    for _ in range(2):
        with pytest.raises(msgspec.ValidationError, match="of TextResourceContents"):
            convert({"uri": 1, "text": "t"}, union)


def test_the_shapes_a_union_remembers_are_bounded() -> None:
    """A peer sending ever new keys does not grow what a union remembers; all still decode."""
    for i in range(200):
        assert decode(b'{"item":{"a":%d,"k%d":0}}' % (i, i), Cell).item == Wide(a=i)
    remembered: dict[Any, Any] = Keyed.shapes
    assert 0 < len(remembered) <= 64


def test_an_input_response_holding_a_nested_untagged_union_decodes() -> None:
    """A sampling result whose tool result embeds a resource (an untagged union inside a
    variant of another) decodes as an input response, whatever the hook plan met before."""
    from generated._runtime.core import unions

    frame = msgspec.json.encode(
        {
            "sample": {
                "role": "assistant",
                "model": "m",
                "content": [
                    {
                        "type": "tool_result",
                        "toolUseId": "u1",
                        "content": [
                            {"type": "resource", "resource": {"uri": "a://b", "text": "t"}},
                            {"type": "resource", "resource": {"uri": "a://c", "blob": "AA=="}},
                        ],
                    }
                ],
            }
        }
    )
    responses = decode(frame, t0728.InputResponses)
    sample = responses["sample"]
    assert isinstance(sample, t0728.CreateMessageResult)
    assert isinstance(sample.content, list)
    result = sample.content[0]
    assert isinstance(result, t0728.ToolResultContent)
    text, blob = (block.resource for block in result.content)  # type: ignore[union-attr]
    assert isinstance(text, t0728.TextResourceContents) and text.text == "t"
    assert isinstance(blob, t0728.BlobResourceContents) and blob.blob == "AA=="
    # the plan keeps the types it visited alive, so no freed id stands for another type
    seen: dict[int, Any] = {}
    assert unions._needs_hook(t0728.CreateMessageResult, seen)  # pyright: ignore[reportPrivateUsage]
    assert all(seen[key] is not None and id(seen[key]) == key for key in seen)
