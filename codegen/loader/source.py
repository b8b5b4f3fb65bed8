"""Find the schema file of a revision: --schema FILE, MCPGEN_SCHEMA_DIR, the cache, or download."""

from __future__ import annotations

import hashlib
import os
import tempfile
import tomllib
import urllib.error
import urllib.request
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from ..errors import GenerationError

SCHEMA_DIR_ENV = "MCPGEN_SCHEMA_DIR"
CACHE_DIR_ENV = "MCPGEN_CACHE_DIR"
DOWNLOAD_TIMEOUT_S = 30.0


@dataclass(frozen=True)
class PinnedRevision:
    """One revision of the manifest: its name, public URL and expected sha256."""

    name: str
    url: str
    sha256: str


@dataclass(frozen=True)
class SchemaSource:
    """The bytes of one schema file, where they came from, and their sha256."""

    revision: str
    data: bytes
    origin: str
    sha256: str


def schema_package_file(name: str) -> str:
    """Read a text file shipped in the project's ``schema/`` folder."""
    return resources.files("mcpgen.schema").joinpath(name).read_text(encoding="utf-8")


def load_manifest() -> dict[str, PinnedRevision]:
    """Return the pinned revisions of ``schema/manifest.toml``, oldest first."""
    table = tomllib.loads(schema_package_file("manifest.toml"))["revisions"]
    return {
        name: PinnedRevision(name, entry["url"], entry["sha256"])
        for name, entry in sorted(table.items())
    }


def cache_dir() -> Path:
    """Return the folder where downloaded schema files are kept."""
    if explicit := os.environ.get(CACHE_DIR_ENV):
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "mcpgen" / "schema"


def sha256_hex(data: bytes) -> str:
    """Return the hex sha256 digest of ``data``."""
    return hashlib.sha256(data).hexdigest()


def _read(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as exc:
        raise GenerationError(f"cannot read schema file {path}: {exc.strerror or exc}") from None


def _checked(pin: PinnedRevision, data: bytes, origin: str) -> SchemaSource:
    digest = sha256_hex(data)
    if digest != pin.sha256:
        raise GenerationError(
            f"sha256 mismatch for revision {pin.name} from {origin}: "
            f"expected {pin.sha256}, got {digest}"
        )
    return SchemaSource(pin.name, data, origin, digest)


def _download(pin: PinnedRevision, target: Path, looked: str) -> SchemaSource:
    try:
        with urllib.request.urlopen(pin.url, timeout=DOWNLOAD_TIMEOUT_S) as response:
            data = response.read()
    except (urllib.error.URLError, OSError) as exc:
        raise GenerationError(
            f"revision {pin.name}: {looked}, no schema file in the cache ({target}), "
            f"and downloading {pin.url} failed: {exc}"
        ) from None
    source = _checked(pin, data, pin.url)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as tmp:
            tmp.write(data)
        os.replace(tmp.name, target)
    except OSError:
        pass  # The cache is an optimisation; an unwritable one only costs a later download.
    return source


def resolve(revision: str, schema_file: Path | None = None) -> SchemaSource:
    """Return the schema of ``revision`` from the first place that has it, sha256 checked."""
    manifest = load_manifest()
    pin = manifest.get(revision)
    if schema_file is not None:
        data = _read(schema_file)
        return SchemaSource(revision, data, str(schema_file), sha256_hex(data))
    if pin is None:
        known = ", ".join(manifest)
        raise GenerationError(
            f"unknown revision {revision!r}; known revisions: {known} (a revision outside "
            f"the manifest needs its schema file: --schema {revision}=FILE)"
        )
    looked = f"${SCHEMA_DIR_ENV} is not set"
    if schema_dir := os.environ.get(SCHEMA_DIR_ENV):
        candidate = Path(schema_dir) / revision / "schema.json"
        if candidate.is_file():
            return _checked(pin, _read(candidate), str(candidate))
        looked = f"no schema file at {candidate} (from ${SCHEMA_DIR_ENV})"
    cached = cache_dir() / revision / "schema.json"
    if cached.is_file():
        return _checked(pin, _read(cached), str(cached))
    return _download(pin, cached, looked)
