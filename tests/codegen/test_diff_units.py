"""The pure parts of ``mcpgen diff``: when one type accepts another, and the classification."""

from __future__ import annotations

from mcpgen.diff import classify as cl
from mcpgen.diff import shape as sh
from mcpgen.diff.model import Action, Category, Change, Diff, Impact, Kind, Side
from mcpgen.diff.shape import FieldShape, Shape, accepts


class Scope:
    """A revision's named types for ``accepts``: aliases and objects by name."""

    def __init__(
        self,
        aliases: dict[str, Shape] | None = None,
        objects: dict[str, tuple[FieldShape, ...]] | None = None,
    ) -> None:
        self.aliases, self.objects = aliases or {}, objects or {}

    def alias(self, name: str) -> Shape | None:
        """Expand an alias."""
        return self.aliases.get(name)

    def object_fields(self, name: str) -> tuple[FieldShape, ...] | None:
        """The fields of an object type."""
        return self.objects.get(name)

    def open_object(self, name: str) -> bool:
        """No object here keeps members it does not name."""
        return False


EMPTY = Scope()
STR, INT, FLOAT, BOOL = sh.prim("str"), sh.prim("int"), sh.prim("float"), sh.prim("bool")


def fits(target: Shape, source: Shape, ts: Scope = EMPTY, ss: Scope = EMPTY) -> bool:
    """``accepts`` with empty scopes by default."""
    return accepts(target, source, ts, ss)


def test_primitives_literals_and_unions() -> None:
    """int widens to float, not back; literals fit their primitive and larger literal sets."""
    assert fits(FLOAT, INT) and not fits(INT, FLOAT)
    assert not fits(STR, INT) and fits(sh.ANY, STR)
    assert fits(STR, sh.literal(("a", "b"))) and not fits(INT, sh.literal(("a",)))
    assert fits(FLOAT, sh.literal((1, 2))) and not fits(BOOL, sh.literal((1,)))
    assert fits(sh.literal(("a", "b", "c")), sh.literal(("b", "a")))
    assert not fits(sh.literal(("a",)), sh.literal(("a", "b")))
    assert fits(sh.union([STR, INT]), INT) and not fits(INT, sh.union([STR, INT]))
    assert fits(sh.array(sh.union([STR, INT])), sh.array(STR))
    assert not fits(sh.array(STR), sh.mapping(STR))


def test_union_is_flat_sorted_and_deduplicated() -> None:
    """A reordering or a nested union is no change in the rendered type."""
    a = sh.union([sh.ref("Text"), sh.union([sh.ref("Image"), sh.ref("Text")])])
    assert a == sh.union([sh.ref("Image"), sh.ref("Text")])
    assert a.render() == "Image | Text"
    assert sh.union([STR]) == STR
    assert sh.literal(("b", "a")).render() == 'Literal["a", "b"]'


def test_aliases_expand_in_their_own_revision() -> None:
    """``ContentBlock`` names a different member set on each side."""
    old = Scope({"ContentBlock": sh.union([sh.ref("Text"), sh.ref("Image")])})
    new = Scope({"ContentBlock": sh.union([sh.ref("Text"), sh.ref("Image"), sh.ref("Audio")])})
    block = sh.ref("ContentBlock")
    assert fits(block, block, new, old)  # old blocks all exist in the new revision
    assert not fits(block, block, old, new)  # new audio has no old counterpart
    inline = sh.union([sh.ref("Text"), sh.ref("Image")])
    assert fits(block, inline, new, EMPTY) and fits(inline, block, EMPTY, old)


def test_recursive_alias_terminates() -> None:
    """``JSONValue`` refers to itself; comparing it with itself or a map ends."""
    value = sh.union([STR, INT, sh.array(sh.ref("JSONValue")), sh.mapping(sh.ref("JSONValue"))])
    scope = Scope({"JSONValue": value})
    assert fits(sh.ref("JSONValue"), sh.ref("JSONValue"), scope, scope)
    assert fits(sh.ref("JSONValue"), sh.array(sh.array(STR)), scope, EMPTY)
    assert not fits(sh.ref("JSONValue"), BOOL, scope, EMPTY)


def test_objects_fit_by_fields() -> None:
    """An object fits another name holding all its fields, requiring none it may lack."""
    old = Scope(objects={"Inline": (("audience", STR, False), ("priority", FLOAT, False))})
    same = Scope(objects={"Annotations": (("audience", STR, False), ("priority", FLOAT, False))})
    more = Scope(objects={"Annotations": (("audience", STR, False),)})
    stricter = Scope(objects={"Annotations": (("audience", STR, True), ("priority", FLOAT, False))})
    inline, named = sh.ref("Inline"), sh.ref("Annotations")
    assert fits(named, inline, same, old) and fits(inline, named, old, same)
    assert not fits(named, inline, more, old)  # priority would be dropped
    assert not fits(named, inline, stricter, old)  # audience may be missing
    assert fits(sh.mapping(sh.ANY), inline, EMPTY, old)  # an open map takes any object
    assert not fits(named, inline, EMPTY, old)  # unknown target object


def test_required_by_target() -> None:
    """Optional is left unset, a constant or a rule fills, anything else is refused."""
    assert cl.required_by_target(False, None, False).impact is Impact.LOSSLESS
    filled = cl.required_by_target(True, '"2.0"', False)
    assert (filled.impact, filled.action) == (Impact.LOSSLESS, Action.FILL)
    assert cl.required_by_target(True, None, True).action is Action.FILL
    refused = cl.required_by_target(True, None, False)
    assert (refused.impact, refused.action) == (Impact.REFUSED, Action.REFUSE)


def test_missing_in_target_by_element() -> None:
    """A request the target lacks is refused; notifications and fields drop; members map."""
    assert cl.missing_in_target("request").impact is Impact.REFUSED
    assert cl.missing_in_target("notification").action is Action.DROP
    assert cl.missing_in_target("field").action is Action.DROP
    assert cl.missing_in_target("member").action is Action.MAP


def test_constraints_and_values() -> None:
    """Only constraints stricter in the target matter; a list maps items instead of refusing."""
    assert cl.stricter({"minimum": 0}, {"minimum": 1}) == ["minimum"]
    assert cl.stricter({"minimum": 1}, {"minimum": 0}) == []
    assert cl.stricter({"maxLength": 10}, {"maxLength": 5}) == ["maxLength"]
    assert cl.stricter({}, {"pattern": "^a"}) == ["pattern"]
    assert cl.stricter({"pattern": "^a"}, {}) == []
    assert cl.constraint_fit(["minimum"], True).impact is Impact.REFUSED
    assert cl.constraint_fit(["minimum"], False).impact is Impact.LOSSY
    assert cl.lost_member("map", False, True).action is Action.MAP
    assert cl.lost_member("drop", True, True).action is Action.DROP
    assert cl.lost_member("drop", False, True).impact is Impact.REFUSED
    assert cl.lost_member("refuse", True, False).impact is Impact.REFUSED


def test_methods_senders_and_input_required() -> None:
    """A sender losing a request is refused; an InputRequiredResult cannot go down."""
    up = cl.senders_fit(("client", "server"), ("server",), "request")
    assert up.impact is Impact.REFUSED and "client" in up.reason
    assert cl.senders_fit(("server",), ("client", "server"), "request").impact is Impact.LOSSLESS
    assert cl.senders_fit(("client",), ("server",), "notification").action is Action.DROP
    assert cl.input_required_fit(True, False).impact is Impact.REFUSED
    assert cl.input_required_fit(False, True).impact is Impact.LOSSLESS


def change(category: Category, kind: Kind, subject: str, item: str, worst: Impact) -> Change:
    """A change whose downgrade has impact ``worst``."""
    effect = cl.missing_in_target("field") if worst is Impact.LOSSY else cl.COPY
    if worst is Impact.REFUSED:
        effect = cl.missing_in_target("request")
    return Change(category, kind, subject, item, "", None, "x", cl.COPY, effect)


def test_diff_paths_counts_and_worst() -> None:
    """Paths name the element; counts cover every category and kind; worst is the maximum."""
    changes = (
        change(Category.FIELD, Kind.ADDED, "Tool", "title", Impact.LOSSY),
        change(Category.MEMBER, Kind.ADDED, "ContentBlock", "Audio", Impact.LOSSY),
        change(Category.CONSTANT, Kind.ADDED, "LoggingLevel", '"x"', Impact.LOSSLESS),
        change(Category.METHOD, Kind.ADDED, "server/discover", "", Impact.REFUSED),
    )
    assert [c.path for c in changes] == [
        "Tool.title",
        "ContentBlock | Audio",
        'LoggingLevel | "x"',
        "server/discover",
    ]
    side = Side("a", None, "0" * 64)
    diff = Diff(side, side, tuple(sorted(changes, key=Change.sort_key)))
    assert [c.category for c in diff.changes] == [
        Category.CONSTANT,
        Category.METHOD,
        Category.MEMBER,
        Category.FIELD,
    ]
    assert diff.worst() is Impact.REFUSED
    assert diff.counts()["field"] == {"added": 1, "removed": 0, "changed": 0}
    assert diff.impacts("downgrade") == {"lossless": 1, "lossy": 2, "refused": 1}
    assert diff.find(Category.FIELD, "Tool", "title") == (changes[0],)
