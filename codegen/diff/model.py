"""The data model of a schema diff: changes, and what each means for converters both ways.

Pure data: no I/O, no rendering. The converter generator reads a ``Diff`` to decide, per field,
union member and method, whether a conversion copies, fills, drops, maps or refuses.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass


class Impact(enum.Enum):
    """How much a conversion in one direction keeps; ordered from best to worst."""

    LOSSLESS = "lossless"
    LOSSY = "lossy"
    REFUSED = "refused"

    @property
    def rank(self) -> int:
        """0 for lossless, 1 for lossy, 2 for refused."""
        return list(Impact).index(self)


class Action(enum.Enum):
    """What a converter does with the changed element in one direction."""

    COPY = "copy"  # the value fits the target as it is, or there is nothing to convert
    FILL = "fill"  # the target requires it; a constant or a declared rule provides it
    DROP = "drop"  # the target lacks it; it is left out
    MAP = "map"  # the target lacks this value or member; map it to one it has, or drop it
    REFUSE = "refuse"  # the target cannot take it; the conversion fails naming the element


class Category(enum.Enum):
    """What kind of element changed; the order is the order of the output."""

    CONSTANT = "constant"
    METHOD = "method"
    CAPABILITY = "capability"
    TYPE = "type"
    MEMBER = "member"
    FIELD = "field"


# The order of the aspects of one element's changes: what it is, then how it is constrained.
ASPECTS = (
    "",
    "kind",
    "type",
    "values",
    "value",
    "required",
    "constraints",
    "extra members",
    "senders",
    "params",
    "params required",
    "result",
    "input required",
    "paginated",
    "capability",
)


class Kind(enum.Enum):
    """Whether the element is new, gone, or different."""

    ADDED = "added"
    REMOVED = "removed"
    CHANGED = "changed"


@dataclass(frozen=True)
class Effect:
    """What converting in one direction does with a change, and why."""

    impact: Impact
    action: Action
    reason: str


@dataclass(frozen=True)
class Change:
    """One difference between the old and the new revision.

    ``subject`` is a type name, a method, a capability path or a constant; ``item`` the field
    wire name, union member or enum value inside it; ``aspect`` what differs for a change
    (``type``, ``required``, ``constraints``, ``values``, ``direction`` ...). ``upgrade`` converts
    a value of the old revision into the new one, ``downgrade`` the new into the old.
    """

    category: Category
    kind: Kind
    subject: str
    item: str
    aspect: str
    old: str | None
    new: str | None
    upgrade: Effect
    downgrade: Effect

    @property
    def path(self) -> str:
        """Where: ``Type.field``, ``Union | Member``, ``Enum | "value"``, a method, a capability."""
        if not self.item:
            return self.subject
        # A union member or an enum value is one of a set; a field sits inside its type.
        one_of = self.category is Category.MEMBER or (
            self.category is Category.CONSTANT and self.kind is not Kind.CHANGED
        )
        sep = " | " if one_of else "."
        return f"{self.subject}{sep}{self.item}"

    @property
    def worst(self) -> Impact:
        """The worse impact of the two directions."""
        return max(self.upgrade.impact, self.downgrade.impact, key=lambda i: i.rank)

    def sort_key(self) -> tuple[int, str, str, int, int, str, int]:
        """Stable order: category group, subject, then the element inside it."""
        group = min(list(Category).index(self.category), list(Category).index(Category.TYPE))
        inner = list(Category).index(self.category)
        aspect = ASPECTS.index(self.aspect) if self.aspect in ASPECTS else len(ASPECTS)
        kind = list(Kind).index(self.kind)
        return (group, self.subject, self.item, inner, aspect, self.aspect, kind)


@dataclass(frozen=True)
class Side:
    """One side of a diff: what the user named, its revision if known, its schema's sha256."""

    label: str
    revision: str | None
    sha256: str


@dataclass(frozen=True)
class Diff:
    """All changes from ``old`` to ``new``, in a stable order."""

    old: Side
    new: Side
    changes: tuple[Change, ...]
    rules: tuple[str, ...] = ()  # the declared fill rules the classification assumed, sorted

    def worst(self) -> Impact | None:
        """The worst impact of any change in either direction, None without changes."""
        if not self.changes:
            return None
        return max((c.worst for c in self.changes), key=lambda i: i.rank)

    def counts(self) -> dict[str, dict[str, int]]:
        """How many changes of each kind there are per category (all keys present)."""
        found = Counter((c.category, c.kind) for c in self.changes)
        return {cat.value: {kind.value: found[cat, kind] for kind in Kind} for cat in Category}

    def impacts(self, direction: str) -> dict[str, int]:
        """How many changes are lossless, lossy and refused ``upgrade`` or ``downgrade``."""
        found = Counter(getattr(c, direction).impact for c in self.changes)
        return {impact.value: found[impact] for impact in Impact}

    def find(self, category: Category, subject: str, item: str = "") -> tuple[Change, ...]:
        """The changes of one element (a type, a field, a method ...), for converter generators."""
        return tuple(
            c for c in self.changes if (c.category, c.subject, c.item) == (category, subject, item)
        )
