"""The IR's type-reference tree: each node renders itself and names what it needs."""

from __future__ import annotations

from mcpgen.parser.typeref import (
    ANY,
    Builtin,
    Constrained,
    ListOf,
    LiteralOf,
    MapOf,
    Named,
    Optional,
    Recursive,
    Spelling,
    UnionOf,
    is_recursive,
    needs_of,
    type_names,
    walk,
)

TOOL = Named("Tool")
TEXT = Named("TextContent")


def test_rendering_in_each_spelling() -> None:
    """One tree, spelled for the types module, for ``methods.py`` (``t.``) and for run time."""
    ref = Optional(UnionOf((ListOf(TOOL), MapOf(Recursive("JSONValue")), Builtin("None"))))
    assert ref.render() == 'list[Tool] | dict[str, "JSONValue"] | None | UnsetType'
    assert ref.render(Spelling(qualifier="t.")) == (
        'list[t.Tool] | dict[str, "t.JSONValue"] | None | UnsetType'
    )
    assert ref.render(Spelling(runtime=True)) == (
        'list[Tool] | dict[str, recursive_alias("JSONValue", globals())] | None | UnsetType'
    )


def test_constraints_and_literals() -> None:
    """Meta keywords keep their values' Python spelling; strings are double-quoted literals."""
    bounded = Constrained(Builtin("float"), (("ge", 0), ("le", 1)))
    assert bounded.render() == "Annotated[float, Meta(ge=0, le=1)]"
    assert bounded.render(Spelling(annotated="_Annotated")).startswith("_Annotated[float")
    assert LiteralOf(("text", 2, True)).render() == 'Literal["text", 2, True]'


def test_needs_come_from_structure() -> None:
    """Imports are read off the tree: typing, msgspec and the revision's own names."""
    ref = UnionOf((Optional(Constrained(ListOf(TOOL), (("min_length", 1),))), LiteralOf(("a",))))
    assert ref.needs() == {
        ("types", "Tool"),
        ("typing", "Annotated"),
        ("typing", "Literal"),
        ("msgspec", "Meta"),
        ("msgspec", "UnsetType"),
    }
    assert needs_of([ANY, TEXT]) == {("typing", "Any"), ("types", "TextContent")}


def test_recursive_references_are_not_run_time_names() -> None:
    """A back reference is a name for type checkers only: it does not order aliases."""
    value = UnionOf((Named("JSONObject"), ListOf(Recursive("JSONValue")), Builtin("str")))
    assert is_recursive(value) and not is_recursive(ListOf(TOOL))
    assert type_names([value]) == {"JSONObject"}
    # At run time it is the runtime's back-reference class, imported from its module.
    assert ("recursive", "recursive_alias") in value.needs()
    assert [type(n).__name__ for n in walk(ListOf(TOOL))] == ["ListOf", "Named"]
