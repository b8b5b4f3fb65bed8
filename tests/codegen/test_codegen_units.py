"""Generator units and functional tests on tiny inline schemas: names, unions, overrides."""

from __future__ import annotations

import hashlib
import importlib
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import msgspec
import pytest

from mcpgen.errors import GenerationError
from mcpgen.generate import generate
from mcpgen.loader import source
from mcpgen.loader.overrides import Patch, apply_patches
from mcpgen.parser.names import class_name, method_attr, module_name, snake_case


def test_names() -> None:
    """Wire names become snake_case attributes; revisions become module names."""
    assert snake_case("mimeType") == "mime_type"
    assert snake_case("_meta") == "meta"
    assert snake_case("nextCursor") == "next_cursor"
    assert snake_case("from") == "from_"
    assert snake_case("io.modelcontextprotocol/logLevel") == "io_modelcontextprotocol_log_level"
    assert class_name("URLElicitationRequiredError") == "URLElicitationRequiredError"
    assert module_name("2025-03-26") == "v2025_03_26"
    assert method_attr("notifications/tools/list_changed") == "notifications_tools_list_changed"


TINY: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "definitions": {
        "Cat": {
            "type": "object",
            "properties": {
                "kind": {"type": "string", "const": "cat"},
                "lives": {"type": "integer"},
            },
            "required": ["kind", "lives"],
        },
        "Dog": {
            "type": "object",
            "properties": {
                "kind": {"type": "string", "const": "dog"},
                "goodBoy": {"type": "boolean"},
            },
            "required": ["kind"],
        },
        "Pet": {"anyOf": [{"$ref": "#/definitions/Cat"}, {"$ref": "#/definitions/Dog"}]},
        "Text": {
            "type": "object",
            "properties": {"text": {"type": "string"}},
            "required": ["text"],
        },
        "Blob": {
            "type": "object",
            "properties": {"blob": {"type": "string"}},
            "required": ["blob"],
        },
        "Owner": {
            "description": "Someone with pets.",
            "type": "object",
            "properties": {
                "pets": {"type": "array", "items": {"$ref": "#/definitions/Pet"}},
                "file": {"anyOf": [{"$ref": "#/definitions/Text"}, {"$ref": "#/definitions/Blob"}]},
                "address": {
                    "type": "object",
                    "properties": {"zipCode": {"type": "string", "maxLength": 5}},
                },
                "_meta": {"type": "object", "properties": {"a": {"type": "string"}}},
                "score": {"type": "number", "minimum": 0},
                "nick": {"type": ["string", "null"]},
            },
            "required": ["pets"],
        },
    },
}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    """Generate the tiny schema into a temporary package and import its types."""
    root = tmp_path_factory.mktemp("tiny")
    schema = root / "tiny.json"
    schema.write_text(json.dumps(TINY))
    generate(["tiny"], root / "tinypkg", schema)
    sys.path.insert(0, str(root))
    try:
        return importlib.import_module("tinypkg.vtiny.types")
    finally:
        sys.path.remove(str(root))


def test_tagged_union_and_inline_names(tiny: ModuleType) -> None:
    """A shared const property becomes a msgspec tag; inline objects are named after their place."""
    from tinypkg import decode, encode

    raw = (
        b'{"pets":[{"kind":"dog","goodBoy":true},{"kind":"cat","lives":9}],'
        b'"address":{"zipCode":"75001"},"_meta":{"a":"x","extra":[1]},"nick":null}'
    )
    owner = decode(raw, tiny.Owner)
    assert isinstance(owner.pets[0], tiny.Dog) and owner.pets[0].good_boy is True
    assert isinstance(owner.address, tiny.OwnerAddress)
    assert owner.meta == {"a": "x", "extra": [1]}
    assert owner.nick is None and owner.score is msgspec.UNSET
    assert json.loads(encode(owner)) == json.loads(raw)
    assert tiny.Owner.__doc__ == "Someone with pets."


def test_untagged_union_by_shape(tiny: ModuleType) -> None:
    """Text vs blob is told apart by required keys; a bad member names the field."""
    from tinypkg import decode

    assert isinstance(decode(b'{"pets":[],"file":{"blob":"AA=="}}', tiny.Owner).file, tiny.Blob)
    assert isinstance(decode(b'{"pets":[],"file":{"text":"t"}}', tiny.Owner).file, tiny.Text)
    with pytest.raises(msgspec.ValidationError, match=r"matches none - at `\$.file`"):
        decode(b'{"pets":[],"file":{"other":1}}', tiny.Owner)
    with pytest.raises(msgspec.ValidationError, match=r"`text` of Text - at `\$.file`"):
        decode(b'{"pets":[],"file":{"text":1}}', tiny.Owner)


def test_constraints_and_consts(tiny: ModuleType) -> None:
    """maxLength/minimum become Meta; a wrong const is rejected at its path."""
    from tinypkg import decode

    with pytest.raises(msgspec.ValidationError, match=r"\$.address.zipCode"):
        decode(b'{"pets":[],"address":{"zipCode":"123456"}}', tiny.Owner)
    with pytest.raises(msgspec.ValidationError, match=r"\$.score"):
        decode(b'{"pets":[],"score":-1}', tiny.Owner)
    with pytest.raises(msgspec.ValidationError, match=r"\$.pets\[0\]"):
        decode(b'{"pets":[{"kind":"cow"}]}', tiny.Owner)


def test_patch_asserts_old_value() -> None:
    """A patch whose expected value is no longer there stops generation with a clear message."""
    raw = {"definitions": {"A": {"type": "integer"}}}
    patched = apply_patches(raw, (Patch("/definitions/A/type", "integer", "number", ""),), "r")
    assert patched["definitions"]["A"]["type"] == "number"
    assert raw["definitions"]["A"]["type"] == "integer"
    with pytest.raises(GenerationError, match='expected "string"'):
        apply_patches(raw, (Patch("/definitions/A/type", "string", "number", ""),), "r")
    with pytest.raises(GenerationError, match="is missing"):
        apply_patches(raw, (Patch("/definitions/B/type", "x", "y", ""),), "r")


def test_resolution_order(schemas: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """MCPGEN_SCHEMA_DIR first, then the cache, then a download into the cache (sha checked)."""
    data = (schemas / "2025-03-26" / "schema.json").read_bytes()
    monkeypatch.setenv("MCPGEN_SCHEMA_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))
    calls: list[str] = []

    class Response:
        """A stand-in for urlopen's response."""

        def __enter__(self) -> Response:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def read(self) -> bytes:
            """Return the pinned file's bytes."""
            return data

    def fake_urlopen(url: str, timeout: float) -> Response:
        calls.append(url)
        return Response()

    monkeypatch.setattr(source.urllib.request, "urlopen", fake_urlopen)
    first = source.resolve("2025-03-26")
    assert calls and first.origin == calls[0]
    assert (tmp_path / "cache" / "2025-03-26" / "schema.json").read_bytes() == data
    second = source.resolve("2025-03-26")
    assert len(calls) == 1 and second.origin.endswith("schema.json")
    assert second.sha256 == hashlib.sha256(data).hexdigest()


def test_download_with_wrong_sha_is_not_cached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A download whose sha256 differs is refused and not kept in the cache."""
    monkeypatch.setenv("MCPGEN_SCHEMA_DIR", str(tmp_path / "none"))
    monkeypatch.setenv("MCPGEN_CACHE_DIR", str(tmp_path / "cache"))

    class Response:
        """A stand-in for urlopen's response with tampered bytes."""

        def __enter__(self) -> Response:
            return self

        def __exit__(self, *exc: object) -> None:
            return None

        def read(self) -> bytes:
            """Return bytes that are not the pinned file."""
            return b"{}"

    monkeypatch.setattr(source.urllib.request, "urlopen", lambda url, timeout: Response())
    with pytest.raises(GenerationError, match="sha256 mismatch"):
        source.resolve("2024-11-05")
    assert not (tmp_path / "cache" / "2024-11-05" / "schema.json").exists()
