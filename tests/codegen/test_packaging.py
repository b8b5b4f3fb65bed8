"""Packaging as users expect: the wheel, its metadata, the pins a generated package carries,
and a missing optional dependency reported as one line naming the extra."""

from __future__ import annotations

import ast
import email
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from mcpgen import pins
from tests.conftest import ROOT

GENERATED = ROOT / "generated"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> zipfile.ZipFile:
    """Build mcpgen's wheel once, the way a release would (``pip wheel --no-deps``)."""
    out = tmp_path_factory.mktemp("wheel")
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(out), str(ROOT)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr
    (built,) = out.glob("mcpgen-*.whl")
    return zipfile.ZipFile(built)


def _metadata(wheel: zipfile.ZipFile) -> email.message.Message:
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return email.message_from_bytes(wheel.read(name))


def test_wheel_ships_py_typed_license_and_the_whole_runtime(wheel: zipfile.ZipFile) -> None:
    """py.typed, LICENSE, every runtime module and every template are in the wheel."""
    names = set(wheel.namelist())
    assert "mcpgen/py.typed" in names
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names), sorted(names)
    runtime = {
        "mcpgen/runtime/" + p.relative_to(ROOT / "runtime").as_posix()
        for p in (ROOT / "runtime").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert runtime <= names, sorted(runtime - names)
    templates = {
        "mcpgen/templates/" + p.relative_to(ROOT / "templates").as_posix()
        for p in (ROOT / "templates").rglob("*.jinja")
    }
    assert templates <= names, sorted(templates - names)
    assert "mcpgen/schema/manifest.toml" in names


def test_wheel_ships_the_bindings_mcpgen_bridge_runs_on(wheel: zipfile.ZipFile) -> None:
    """``mcpgen bridge`` needs every revision's bindings: the checked-in ``generated/`` is in
    the wheel as ``mcpgen.generated``, every module of it."""
    names = set(wheel.namelist())
    bindings = {
        "mcpgen/generated/" + p.relative_to(GENERATED).as_posix()
        for p in GENERATED.rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert "mcpgen/generated/converters.py" in bindings
    assert bindings <= names, sorted(bindings - names)


def test_wheel_metadata_ranges_markers_and_urls(wheel: zipfile.ZipFile) -> None:
    """The generator's dependencies are ranges, the output's pins carry markers, URLs exist."""
    meta = _metadata(wheel)
    assert meta["License-Expression"] == "MIT"
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL") or [])
    assert {"Homepage", "Repository", "Issues"} <= set(urls), urls
    requires = meta.get_all("Requires-Dist") or []
    generator = [r for r in requires if "extra ==" not in r]
    assert {r.split("<")[0].split(">")[0] for r in generator} >= {"msgspec", "black", "click"}
    for req in generator:
        assert "==" not in req and "<" in req and ">=" in req, req
    for req in (r for r in requires if "extra ==" in r and 'extra == "test"' not in r):
        assert "==" not in req.split(";")[0], req  # what an application installs: ranges
    (uvloop,) = [r for r in requires if r.startswith("uvloop")]
    assert uvloop.endswith('; sys_platform != "win32" and extra == "http"'), uvloop
    assert "Typing :: Typed" in (meta.get_all("Classifier") or [])


def _requirements(lines: list[str]) -> list[Requirement]:
    """The requirements among ``lines`` (comments and blank lines left out)."""
    return [Requirement(line) for line in lines if line.strip() and not line.startswith("#")]


def test_extras_are_ranges_that_admit_the_tested_pins() -> None:
    """The runtime/http/auth extras are ranges; each admits its pin (codegen/pins.py, written
    into every package), and constraints.txt (what CI installs with) holds exactly the pins."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    extras = project["optional-dependencies"]
    for name, pinned in pins.EXTRAS.items():
        ranges = {r.name: r for r in _requirements(extras[name]) if r.name != "mcpgen"}
        assert set(ranges) == {Requirement(p).name for p in pinned}, name
        for pin in map(Requirement, pinned):
            (version,) = [s.version for s in pin.specifier if s.operator == "=="]
            allowed = ranges[pin.name]
            assert "==" not in str(allowed.specifier), allowed
            assert allowed.specifier.contains(version), (allowed, version)
            assert allowed.marker == pin.marker, (allowed, pin)
    constraints = (ROOT / "constraints.txt").read_text(encoding="utf-8").splitlines()
    tested = [p for pinned in pins.EXTRAS.values() for p in pinned]
    assert [str(r) for r in _requirements(constraints)] == [str(Requirement(p)) for p in tested]


def _extra_closure(extra: str) -> set[str]:
    """Import names of what ``pip install '.[extra]'`` brings: the generator's dependencies
    and the extra's, following ``mcpgen[...]`` references."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    found: set[str] = set()
    pending = [*project["dependencies"], *project["optional-dependencies"][extra]]
    while pending:
        req = Requirement(pending.pop())
        if req.name == "mcpgen":
            for sub in req.extras:
                pending.extend(project["optional-dependencies"][sub])
        else:
            found.add({"PyJWT": "jwt"}.get(req.name, req.name))
    return found


def test_auth_extra_brings_every_library_authorization_imports() -> None:
    """``.[auth]`` alone installs what ``_runtime/auth`` and the HTTP transport it uses import
    (it lacked aiohttp: the OAuth client failed with a bare ModuleNotFoundError)."""
    needed = _third_party_imports(ROOT / "runtime" / "auth")
    needed |= _third_party_imports(ROOT / "runtime" / "transports" / "http")
    assert needed <= _extra_closure("auth"), needed - _extra_closure("auth")


def _third_party_imports(folder: Path) -> set[str]:
    """Top-level names of every non-stdlib module the package imports, statically or by name."""
    found: set[str] = set()
    for path in folder.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.split(".")[0])
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "import_module"
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)
                and not node.args[0].value.startswith(".")
            ):
                found.add(node.args[0].value.split(".")[0])
    return found - set(sys.stdlib_module_names) - {"__future__"}


def test_generated_package_carries_py_typed_and_exact_requirements() -> None:
    """The checked-in output has py.typed and requirements files naming what it imports."""
    assert (GENERATED / "py.typed").read_text(encoding="utf-8") == ""
    files = pins.requirement_files("0")
    core = (GENERATED / "requirements.txt").read_text(encoding="utf-8").splitlines()
    http = (GENERATED / "requirements-http.txt").read_text(encoding="utf-8").splitlines()
    assert [line for line in core if not line.startswith("#")] == list(pins.RUNTIME)
    assert "-r requirements.txt" in http
    assert set(pins.HTTP) <= set(http)
    auth = (GENERATED / "requirements-auth.txt").read_text(encoding="utf-8").splitlines()
    assert "-r requirements-http.txt" in auth
    assert set(pins.AUTH) <= set(auth)
    shared = (GENERATED / "requirements-redis.txt").read_text(encoding="utf-8").splitlines()
    assert "-r requirements-http.txt" in shared
    assert set(pins.REDIS) <= set(shared)
    assert set(files) == {
        "requirements.txt",
        "requirements-http.txt",
        "requirements-auth.txt",
        "requirements-redis.txt",
    }
    import_names = {"PyJWT": "jwt"}
    every = (*pins.RUNTIME, *pins.HTTP, *pins.AUTH, *pins.REDIS)
    named = {import_names.get(name, name) for name in (req.split("==")[0] for req in every)}
    # uvicorn loads httptools itself, redis its parser hiredis; everything else must be
    # imported by the package (uvloop by the blocking runners, when it is installed).
    assert _third_party_imports(GENERATED) == named - {"httptools", "hiredis"}


def _run_without(module: str, code: str) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter in which ``module`` cannot be imported."""
    blocker = f"import sys; sys.modules[{module!r}] = None\n"
    return subprocess.run(
        [sys.executable, "-c", blocker + code],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=60,
    )


def test_missing_aiohttp_names_the_http_extra() -> None:
    """Importing the HTTP client without aiohttp raises one ImportError naming the extra and
    the two installs the README gives: the package's requirements file, or the extra from a
    checkout (mcpgen is on no index, so ``pip install mcpgen[http]`` cannot work)."""
    code = (
        "try:\n"
        "    import generated._runtime.transports.http.client\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__, exc.name, exc, sep='|')\n"
    )
    proc = _run_without("aiohttp", code)
    assert proc.returncode == 0, proc.stderr
    kind, name, message = proc.stdout.strip().split("|")
    assert (kind, name) == ("MissingDependency", "aiohttp")
    requirements = GENERATED / "requirements-http.txt"
    assert "'http' extra" in message and f"pip install -r {requirements} " in message
    assert 'pip install ".[http]"' in message and "mcpgen[" not in message
    assert "\n" not in message
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert (
        'pip install ".[http]"' in readme and "pip install -r pkg/requirements-http.txt" in readme
    )


def test_authorization_is_public_and_a_missing_library_names_the_auth_extra() -> None:
    """``pkg.runtime.auth`` is the public face of OAuth; without aiohttp or PyJWT its names
    raise MissingDependency naming the auth extra, and ``current_principal`` still loads."""
    code = (
        "from generated.runtime import auth\n"
        "assert auth.current_principal() is None\n"
        "for name in ('OAuthClient', 'JWTVerifier', 'ProtectedMcpApp'):\n"
        "    try:\n"
        "        getattr(auth, name)\n"
        "    except ImportError as exc:\n"
        "        print(type(exc).__name__, exc.name, exc, sep='|')\n"
    )
    for module, package in (("aiohttp", "aiohttp"), ("jwt", "PyJWT")):
        proc = _run_without(module, code)
        assert proc.returncode == 0, proc.stderr
        lines = proc.stdout.strip().splitlines()
        assert lines, proc.stdout
        for line in lines:
            kind, name, message = line.split("|")
            assert (kind, name) == ("MissingDependency", package), line
            assert "'auth' extra" in message and 'pip install ".[auth]"' in message, line
    proc = _run_without("a_module_nobody_imports", code)  # with the extra: every name loads
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr


def test_missing_uvicorn_is_one_line_from_the_blocking_runner() -> None:
    """run_http without uvicorn exits with one line naming the extra, no traceback."""
    code = (
        "from generated.v2025_11_25 import Server\n"
        "from generated._runtime.transports.http.server import run_http\n"
        "run_http(Server(), '127.0.0.1', 0)\n"
    )
    proc = _run_without("uvicorn", code)
    assert proc.returncode == 1
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert "uvicorn" in lines[0] and "'http' extra" in lines[0]
    assert "Traceback" not in proc.stderr
