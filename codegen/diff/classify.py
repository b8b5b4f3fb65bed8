"""What a change means for a converter from a source revision to a target revision.

Each function looks at one direction only: the ``source`` is the revision a value comes from,
the ``target`` the revision it is converted into. ``compare`` calls each twice (upgrade and
downgrade). Pure functions over plain values.
"""

from __future__ import annotations

from .model import Action, Effect, Impact

COPY = Effect(Impact.LOSSLESS, Action.COPY, "fits the target unchanged")
ABSENT = Effect(Impact.LOSSLESS, Action.COPY, "the source never has it; nothing to convert")
WHERE_USED = Effect(
    Impact.LOSSLESS,
    Action.COPY,
    "a type converts where it is used: see the fields, members and methods naming it",
)


ENVELOPE = Effect(
    Impact.LOSSLESS,
    Action.COPY,
    "a JSON-RPC envelope member: every revision's messages carry it on the wire",
)
REFUSED_VALUE = Effect(
    Impact.REFUSED, Action.REFUSE, "values outside the target's type are refused, naming them"
)
LEFT_OUT = Effect(Impact.LOSSY, Action.DROP, "members the target does not define are dropped")


def lost_member(action: str, in_list: bool | None, required: bool) -> Effect:
    """A union member the target lacks, converted by its declared rule (``drop`` by default).

    ``in_list``: the member is an item of a list or map (dropped from it), a single value
    (dropped only where the target does not require it), or None where the context decides.
    """
    if action == "map":
        return Effect(Impact.LOSSY, Action.MAP, "the target lacks this member: mapped by a rule")
    if action == "refuse":
        return Effect(Impact.REFUSED, Action.REFUSE, "the target lacks this member: refused")
    if in_list is None:
        why = "the target lacks this member: dropped from a list, refused as a required value"
        return Effect(Impact.LOSSY, Action.DROP, why)
    if in_list or not required:
        return Effect(Impact.LOSSY, Action.DROP, "the target lacks this member: dropped")
    return Effect(
        Impact.REFUSED, Action.REFUSE, "the target lacks this member and requires the value"
    )


def worst(effects: list[Effect]) -> Effect:
    """The worst of several effects (lossless copy for none)."""
    return max(effects, key=lambda e: e.impact.rank, default=COPY)


def missing_in_target(what: str) -> Effect:
    """The source has an element the target lacks entirely."""
    if what == "request":
        return Effect(
            Impact.REFUSED, Action.REFUSE, "the target has no such request: answer method not found"
        )
    if what in ("member", "value", "type"):
        return Effect(
            Impact.LOSSY,
            Action.MAP,
            f"the target lacks this {what}: mapped to one it has, or dropped",
        )
    return Effect(Impact.LOSSY, Action.DROP, f"the target lacks this {what}: dropped")


def lacked_field(target_open: bool) -> Effect:
    """The source has a field the target's type does not name."""
    if target_open:
        return Effect(
            Impact.LOSSLESS, Action.COPY, "the target keeps members it does not name: copied"
        )
    return missing_in_target("field")


def required_by_target(required: bool, const: str | None, ruled: bool, when: str = "it") -> Effect:
    """The target has a field the source may not provide (absent there, or optional there)."""
    if not required:
        return Effect(Impact.LOSSLESS, Action.COPY, "optional in the target: left unset")
    if const is not None:
        return Effect(Impact.LOSSLESS, Action.FILL, f"filled with the constant {const}")
    if ruled:
        return Effect(Impact.LOSSLESS, Action.FILL, "filled by a declared rule")
    return Effect(
        Impact.REFUSED,
        Action.REFUSE,
        f"the target requires {when}; no constant or declared rule provides it",
    )


_MIN_KEYS = frozenset({"minimum", "minLength", "minItems"})
_MAX_KEYS = frozenset({"maximum", "maxLength", "maxItems"})


def stricter(source: dict[str, float | str], target: dict[str, float | str]) -> list[str]:
    """The constraint keys where the target rejects values the source accepts."""
    out: list[str] = []
    for key in sorted(target):
        t, s = target[key], source.get(key)
        if s is None or isinstance(t, str) or isinstance(s, str):
            if s != t:
                out.append(key)
        elif (key in _MIN_KEYS and t > s) or (key in _MAX_KEYS and t < s):
            out.append(key)
    return out


def constraint_fit(keys: list[str], target_required: bool) -> Effect:
    """A field's constraints differ; ``keys`` are those stricter in the target."""
    if not keys:
        return COPY
    why = f"values may break the target's {', '.join(keys)}"
    if target_required:
        return Effect(Impact.REFUSED, Action.REFUSE, why)
    return Effect(Impact.LOSSY, Action.DROP, why + ": dropped")


def openness_fit(source_open: bool, target_open: bool) -> Effect:
    """An object allows extra members in one revision and not in the other."""
    if source_open and not target_open:
        return Effect(Impact.LOSSY, Action.DROP, "members the target does not name are dropped")
    return COPY


def shape_fit(fits: bool) -> Effect:
    """A named type or capability changed as a whole (its kind or its shape)."""
    if fits:
        return COPY
    return Effect(
        Impact.LOSSY, Action.MAP, "values outside the target's type are mapped or dropped"
    )


def senders_fit(source: tuple[str, ...], target: tuple[str, ...], kind: str) -> Effect:
    """A method's senders differ: may every source sender still send it in the target?"""
    lost = [s for s in source if s not in target]
    if not lost:
        return COPY
    who = " and ".join(lost)
    if kind == "request":
        return Effect(Impact.REFUSED, Action.REFUSE, f"the {who} may not send it in the target")
    return Effect(Impact.LOSSY, Action.DROP, f"the {who} may not send it in the target: dropped")


def input_required_fit(source: bool, target: bool) -> Effect:
    """The method may answer an InputRequiredResult in the source but not in the target."""
    if source and not target:
        return Effect(
            Impact.REFUSED,
            Action.REFUSE,
            "an InputRequiredResult has no counterpart in the target",
        )
    return COPY


def type_name_fit(source: str | None, target: str | None) -> Effect:
    """A method's params or result type is another named type in the target."""
    if source is None:
        return ABSENT
    if target is None:
        return Effect(Impact.LOSSY, Action.DROP, "the target takes none: dropped")
    return Effect(
        Impact.LOSSY, Action.MAP, f"converted from {source} to {target}: fields may not carry over"
    )


def informational(what: str) -> Effect:
    """A change that converters carry over unchanged (a capability gate, pagination, a name)."""
    return Effect(Impact.LOSSLESS, Action.COPY, what)
