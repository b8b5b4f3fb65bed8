"""``mcpgen diff`` as a command: exit codes, schema files, one-line errors, stable bytes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from mcpgen.diff.jsonformat import JSON_SCHEMA
from tests.codegen.test_cli import assert_one_line_error, run_cli


def schema(defs: dict[str, Any], draft07: bool = False) -> dict[str, Any]:
    """A small schema file body in either dialect the MCP revisions use."""
    if draft07:
        text = json.dumps(defs).replace("#/$defs/", "#/definitions/")
        return {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": json.loads(text),
        }
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", "$defs": defs}


def obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """An object definition."""
    return {"type": "object", "properties": props, "required": required}


def content(kind: str, field: str) -> dict[str, Any]:
    """A content block tagged by ``type``."""
    return obj({"type": {"const": kind, "type": "string"}, field: {"type": "string"}}, ["type"])


OLD = schema(
    {
        "Level": {"enum": ["debug", "info"], "type": "string"},
        "Text": content("text", "text"),
        "Image": content("image", "data"),
        "Block": {"anyOf": [{"$ref": "#/$defs/Text"}, {"$ref": "#/$defs/Image"}]},
        "Reply": obj(
            {
                "blocks": {"type": "array", "items": {"$ref": "#/$defs/Block"}},
                "count": {"type": "integer", "minimum": 0},
                "note": {"type": "string"},
                "retired": {"type": "boolean"},
                "level": {"$ref": "#/$defs/Level"},
            },
            ["blocks", "count", "retired"],
        ),
        "Gone": obj({"x": {"type": "string"}}, []),
    },
    draft07=True,
)
NEW = schema(
    {
        "Level": {"enum": ["debug", "info", "warning"], "type": "string"},
        "Text": content("text", "text"),
        "Image": content("image", "data"),
        "Audio": content("audio", "data"),
        "Block": {
            "anyOf": [
                {"$ref": "#/$defs/Text"},
                {"$ref": "#/$defs/Image"},
                {"$ref": "#/$defs/Audio"},
            ]
        },
        "Reply": obj(
            {
                "blocks": {"type": "array", "items": {"$ref": "#/$defs/Block"}},
                "count": {"type": "number", "minimum": 1},
                "note": {"type": "string"},
                "kind": {"const": "reply", "type": "string"},
                "stamp": {"type": "string"},
                "level": {"$ref": "#/$defs/Level"},
            },
            ["blocks", "count", "kind", "stamp", "note"],
        ),
    }
)


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    """The old and new small schemas, written to files."""
    old, new = tmp_path / "old.json", tmp_path / "new.json"
    old.write_text(json.dumps(OLD), encoding="utf-8")
    new.write_text(json.dumps(NEW), encoding="utf-8")
    return str(old), str(new)


def changes_of(*args: str) -> dict[str, dict[str, Any]]:
    """Run ``mcpgen diff --format json``, validate it, and index the changes by path and aspect."""
    proc = run_cli("diff", *args, "--format", "json")
    assert proc.returncode == 1, proc.stderr
    data = json.loads(proc.stdout)
    jsonschema.validate(data, JSON_SCHEMA)
    return {f"{c['path']} {c['aspect']}".strip(): c for c in data["changes"]}


def test_schema_file_pair(files: tuple[str, str]) -> None:
    """Two schema files (draft-07 and 2020-12) diff field by field, classified both ways."""
    found = changes_of(*files)
    assert sorted(found) == [
        "Audio",
        "Block | Audio",
        "Gone",
        'Level | "warning"',
        "Reply.count constraints",
        "Reply.count type",
        "Reply.kind",
        "Reply.note required",
        "Reply.retired",
        "Reply.stamp",
    ]

    def impacts(key: str) -> tuple[str, str]:
        return found[key]["upgrade"]["impact"], found[key]["downgrade"]["impact"]

    assert impacts("Block | Audio") == ("lossless", "lossy")  # audio mapped or dropped down
    assert impacts("Reply.count type") == ("lossless", "refused")  # a float is no int
    assert (found["Reply.count type"]["old"], found["Reply.count type"]["new"]) == ("int", "float")
    assert impacts("Reply.count constraints") == ("refused", "lossless")  # 0 breaks minimum=1
    assert impacts("Reply.kind") == ("lossless", "lossy")  # a constant fills it going up
    assert found["Reply.kind"]["upgrade"]["action"] == "fill"
    assert impacts("Reply.stamp") == ("refused", "lossy")  # required, nothing provides it
    assert impacts("Reply.retired") == ("lossy", "refused")  # dropped up, required down
    assert impacts("Reply.note required") == ("refused", "lossless")
    assert impacts('Level | "warning"') == ("lossless", "lossy")
    assert found["Gone"]["kind"] == "removed"


def test_revision_against_its_own_file_is_no_change(schemas: Path) -> None:
    """``REV=FILE`` reads a file as that revision (its overrides apply): equal to the pin."""
    pinned = str(schemas / "2025-11-25" / "schema.json")
    proc = run_cli("diff", "2025-11-25", f"2025-11-25={pinned}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "0 changes" in proc.stdout


def test_overrides_apply_to_pinned_revisions_only(schemas: Path) -> None:
    """A bare file is read as it is: only the pinned revision's patch differs from it.

    The 2025-11-25 override widens ElicitResult's integer values to numbers; the method table's
    gating capabilities come from overrides too, so they are not compared with a bare file.
    """
    bare = str(schemas / "2025-11-25" / "schema.json")
    found = changes_of("2025-11-25", bare)
    assert sorted(found) == ["ElicitResult.content type"]
    change = found["ElicitResult.content type"]
    assert "float" in change["old"] and "float" not in change["new"]
    assert change["upgrade"]["impact"] == "refused"  # 1.5 has no place in the unpatched file
    named = changes_of("2025-11-25", f"DRAFT={bare}")
    assert named["PROTOCOL_VERSION value"]["new"] == '"DRAFT"'


def test_exit_codes(schemas: Path, files: tuple[str, str]) -> None:
    """0 without changes, 1 with changes at the --fail-on level, per --direction."""
    assert run_cli("diff", "2025-06-18", "2025-06-18").returncode == 0
    assert run_cli("diff", "2024-11-05", "2025-03-26").returncode == 1
    # Going up from 2024-11-05 loses nothing; going down refuses audio in required content.
    lossy_up = run_cli(
        "diff", "2024-11-05", "2025-03-26", "--fail-on", "lossy", "--direction", "upgrade"
    )
    assert lossy_up.returncode == 0, lossy_up.stdout
    refused = run_cli("diff", "2024-11-05", "2025-03-26", "--fail-on", "refused")
    assert refused.returncode == 1
    assert run_cli("diff", *files, "--fail-on", "never").returncode == 0


def test_rules_fill_required_fields(files: tuple[str, str]) -> None:
    """``--rule`` names fields a declared rule fills: refused becomes a lossless fill."""
    before = changes_of(*files)["Reply.stamp"]["upgrade"]
    after = changes_of(*files, "--rule", "Reply.stamp", "--rule", "*.note")
    assert (before["impact"], before["action"]) == ("refused", "refuse")
    assert after["Reply.stamp"]["upgrade"] == {
        "impact": "lossless",
        "action": "fill",
        "reason": "filled by a declared rule",
    }
    assert after["Reply.note required"]["upgrade"]["impact"] == "lossless"
    text = run_cli("diff", *files, "--rule", "Reply.stamp", "--rule", "*.note").stdout
    # The converters' own rules (schema/converters.toml) always apply.
    assert "  declared fill rules: *.note, *.resultType, Reply.stamp\n" in text
    assert_one_line_error(run_cli("diff", *files, "--rule", "stamp"), "--rule")


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("diff", "2025-06-18", "nope"), "neither a known revision"),
        (("diff", "2025-06-18"), "Missing argument"),
        (("diff", "2025-06-18", "2025-11-25", "--format", "yaml"), "--format"),
        (("diff", "2025-06-18", "2025-11-25", "--fail-on", "some"), "--fail-on"),
    ],
)
def test_usage_errors_are_one_line(args: tuple[str, ...], needle: str) -> None:
    """Bad arguments: one ``mcpgen: error:`` line, exit 2, no usage screen."""
    assert_one_line_error(run_cli(*args), needle)


def test_bad_schema_files_are_one_line(tmp_path: Path, files: tuple[str, str]) -> None:
    """A file that is not JSON, or not a schema the generator reads, is one line and exit 2."""
    broken = tmp_path / "broken.json"
    broken.write_bytes(b'{"$defs": {"A": ')
    assert_one_line_error(run_cli("diff", files[0], str(broken)), "not valid JSON")
    odd = tmp_path / "odd.json"
    odd.write_text(json.dumps(schema({"A": {"type": "object", "oneOf": []}})), encoding="utf-8")
    assert_one_line_error(run_cli("diff", str(odd), files[1]), "oneOf")
    assert_one_line_error(run_cli("diff", "2025-06-18", "2025-06-18=" + str(tmp_path / "no.json")))


def test_output_is_deterministic(schemas: Path, tmp_path: Path) -> None:
    """Two runs in fresh processes print the same bytes, on stdout and with -o."""
    printed: dict[str, str] = {}
    for fmt in ("text", "json", "markdown"):
        first = run_cli("diff", "2025-06-18", "2025-11-25", "--format", fmt)
        second = run_cli("diff", "2025-06-18", "2025-11-25", "--format", fmt)
        assert first.returncode == second.returncode == 1
        assert first.stdout == second.stdout and first.stdout
        printed[fmt] = first.stdout
    out = tmp_path / "diff.json"
    proc = run_cli("diff", "2025-06-18", "2025-11-25", "--format", "json", "-o", str(out))
    assert proc.returncode == 1 and proc.stdout == ""
    assert out.read_text(encoding="utf-8") == printed["json"]
    assert json.loads(printed["json"])["old"]["revision"] == "2025-06-18"
