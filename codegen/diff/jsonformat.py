"""The JSON form of a ``Diff``: stable bytes, a JSON Schema for it, and reading it back."""

from __future__ import annotations

import json
from typing import Any

from .model import Action, Category, Change, Diff, Effect, Impact, Kind, Side

FORMAT = "mcpgen-diff/1"

_EFFECT = {
    "type": "object",
    "required": ["impact", "action", "reason"],
    "additionalProperties": False,
    "properties": {
        "impact": {"enum": [i.value for i in Impact]},
        "action": {"enum": [a.value for a in Action]},
        "reason": {"type": "string"},
    },
}
_SIDE = {
    "type": "object",
    "required": ["label", "revision", "sha256"],
    "additionalProperties": False,
    "properties": {
        "label": {"type": "string"},
        "revision": {"type": ["string", "null"]},
        "sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
    },
}
_COUNTS = {"type": "object", "additionalProperties": {"type": "integer", "minimum": 0}}
_CHANGE_KEYS = ["category", "kind", "path", "subject", "item", "aspect", "old", "new"]
JSON_SCHEMA: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "mcpgen diff output",
    "type": "object",
    "required": ["format", "old", "new", "rules", "summary", "changes"],
    "additionalProperties": False,
    "properties": {
        "format": {"const": FORMAT},
        "old": _SIDE,
        "new": _SIDE,
        "rules": {"type": "array", "items": {"type": "string"}},
        "summary": {
            "type": "object",
            "required": ["changes", "worst", "counts", "upgrade", "downgrade"],
            "additionalProperties": False,
            "properties": {
                "changes": {"type": "integer", "minimum": 0},
                "worst": {"enum": [*(i.value for i in Impact), None]},
                "counts": {"type": "object", "additionalProperties": _COUNTS},
                "upgrade": _COUNTS,
                "downgrade": _COUNTS,
            },
        },
        "changes": {
            "type": "array",
            "items": {
                "type": "object",
                "required": [*_CHANGE_KEYS, "upgrade", "downgrade"],
                "additionalProperties": False,
                "properties": {
                    "category": {"enum": [c.value for c in Category]},
                    "kind": {"enum": [k.value for k in Kind]},
                    "path": {"type": "string"},
                    "subject": {"type": "string"},
                    "item": {"type": "string"},
                    "aspect": {"type": "string"},
                    "old": {"type": ["string", "null"]},
                    "new": {"type": ["string", "null"]},
                    "upgrade": _EFFECT,
                    "downgrade": _EFFECT,
                },
            },
        },
    },
}


def _effect(effect: Effect) -> dict[str, str]:
    return {"impact": effect.impact.value, "action": effect.action.value, "reason": effect.reason}


def _side(side: Side) -> dict[str, str | None]:
    return {"label": side.label, "revision": side.revision, "sha256": side.sha256}


def to_data(diff: Diff) -> dict[str, Any]:
    """The diff as plain JSON data, keys in a fixed order."""
    worst = diff.worst()
    return {
        "format": FORMAT,
        "old": _side(diff.old),
        "new": _side(diff.new),
        "rules": list(diff.rules),
        "summary": {
            "changes": len(diff.changes),
            "worst": worst.value if worst is not None else None,
            "counts": diff.counts(),
            "upgrade": diff.impacts("upgrade"),
            "downgrade": diff.impacts("downgrade"),
        },
        "changes": [
            {
                "category": c.category.value,
                "kind": c.kind.value,
                "path": c.path,
                "subject": c.subject,
                "item": c.item,
                "aspect": c.aspect,
                "old": c.old,
                "new": c.new,
                "upgrade": _effect(c.upgrade),
                "downgrade": _effect(c.downgrade),
            }
            for c in diff.changes
        ],
    }


def render_json(diff: Diff) -> str:
    """The diff as indented JSON text ending in a newline; same diff, same bytes."""
    return json.dumps(to_data(diff), indent=2, ensure_ascii=False) + "\n"


def _read_effect(data: dict[str, str]) -> Effect:
    return Effect(Impact(data["impact"]), Action(data["action"]), data["reason"])


def from_data(data: dict[str, Any]) -> Diff:
    """Read back what ``to_data`` wrote (for tools that consume saved diffs)."""
    if data.get("format") != FORMAT:
        raise ValueError(f"not an {FORMAT} document")
    changes = tuple(
        Change(
            category=Category(c["category"]),
            kind=Kind(c["kind"]),
            subject=c["subject"],
            item=c["item"],
            aspect=c["aspect"],
            old=c["old"],
            new=c["new"],
            upgrade=_read_effect(c["upgrade"]),
            downgrade=_read_effect(c["downgrade"]),
        )
        for c in data["changes"]
    )
    return Diff(Side(**data["old"]), Side(**data["new"]), changes, tuple(data["rules"]))
