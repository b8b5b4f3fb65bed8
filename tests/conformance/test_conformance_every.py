"""Every scenario of both pinned conformance harness releases, server and client mode.

``test_every_listed_scenario_is_run`` asks each release (``tests.support.node_tools.HARNESSES``)
for its scenarios (``conformance list --server`` / ``--client``) and the spec versions each
applies to, and fails if any (release, mode, scenario, version) is neither run by the suite (this
module's ``RUNS``, ``test_era_conformance.py``, ``test_auth_conformance.py``, all in
``tests/conformance/``) nor named in ``tests/conformance/expected_failures.toml``, which lists
harness bugs only, each with its reason. A scenario tagged ``extension`` runs without
``--spec-version``, one tagged ``draft`` (0.1.16) with ``--spec-version draft``.

``RUNS`` are what the two older modules do not run: the 0.1.16 release whole, the alpha's
scenarios added since (JSON Schema preservation, the skills extension, 2025-03-26 and
2025-06-18 tags), and a few server scenarios again against the fixture in JSON response mode
(``HttpOptions(json_response=True)``: progress, logs, input requests, SSE polling). They run
``PARALLEL`` at a time. Each must record no FAILURE and no WARNING (a client run must also end
``OVERALL: PASSED``); an expected failure must fail exactly as the file says.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.conformance import test_auth_conformance as auth
from tests.conformance import test_era_conformance as era
from tests.support.node_tools import HARNESSES, node_env, node_tool, start_selected
from tests.support.process_support import http_process

ROOT = Path(__file__).resolve().parents[2]
EXPECTED = Path(__file__).resolve().parent / "expected_failures.toml"
ALPHA = "conformance"
OLDER = "conformance-0.1.16"
PARALLEL = 4
"""Harness runs at once (each a Node process and a Python peer, mostly waiting)."""
NEWEST = "2026-07-28"


@dataclass(frozen=True)
class Run:
    """One harness run: release, mode, scenario, spec version tag and what it runs against
    (``sse``/``json``: the fixture server in either response mode; ``era``/``auth``: the
    fixture client or the OAuth fixture client)."""

    harness: str
    mode: str
    scenario: str
    version: str
    target: str

    @property
    def key(self) -> tuple[str, str, str, str]:
        """What the coverage test matches: release, mode, scenario, version tag."""
        return (self.harness, self.mode, self.scenario, self.version)

    @property
    def name(self) -> str:
        """The test id."""
        return f"{self.harness}:{self.scenario}@{self.version}:{self.target}"


def runs(harness: str, target: str, scenarios: list[str], *versions: str) -> list[Run]:
    """One run per scenario and version."""
    mode = "server" if target in ("sse", "json") else "client"
    return [Run(harness, mode, s, v, target) for s in scenarios for v in versions]


OLDER_SERVER = [name for name in era.HANDSHAKE_SCENARIOS if name != "server-session-lifecycle"]
"""0.1.16's server scenarios: the alpha's initialize-era ones but the session lifecycle."""
OLDER_AUTH = [
    *("metadata-default", "metadata-var1", "metadata-var2", "metadata-var3", "basic-cimd"),
    *("scope-from-www-authenticate", "scope-from-scopes-supported"),
    *("scope-omitted-when-undefined", "scope-step-up", "scope-retry-limit", "pre-registration"),
]
TOKEN_AUTH = ["token-endpoint-auth-basic", "token-endpoint-auth-post", "token-endpoint-auth-none"]
SKILLS = ["sep-2640-skills-directory", "sep-2640-skills-enumeration", "sep-2640-skills-manifest"]
SKILLS_CLIENT = [
    *("sep-2640-client-no-prefetch", "sep-2640-client-verify-digest"),
    *("sep-2640-client-verify-size", "sep-2640-client-verify-frontmatter"),
]
JSON_MODE = [
    *("server-initialize", "tools-call-with-progress", "tools-call-with-logging"),
    *("tools-call-sampling", "tools-call-elicitation", "server-sse-polling"),
]
RUNS = [
    *runs(ALPHA, "sse", SKILLS, "extension"),
    *runs(ALPHA, "sse", ["server-session-lifecycle"], "2025-03-26"),
    *runs(ALPHA, "json", JSON_MODE, "2025-11-25"),
    *runs(ALPHA, "json", ["tools-call-with-progress"], "2025-06-18", NEWEST),
    *runs(ALPHA, "era", ["json-schema-ref-no-deref"], NEWEST),
    *runs(ALPHA, "era", ["json-schema-2020-12-preservation"], "2025-11-25", NEWEST),
    *runs(ALPHA, "era", SKILLS_CLIENT, "extension"),
    *runs(ALPHA, "auth", [f"auth/{name}" for name in TOKEN_AUTH], "2025-06-18"),
    *runs(OLDER, "sse", OLDER_SERVER, "2025-11-25"),
    *runs(OLDER, "sse", [s for s in OLDER_SERVER if s not in era.NEWER_ONLY], "2025-06-18"),
    *runs(OLDER, "era", ["initialize", "tools_call"], "2025-11-25", "2025-06-18"),
    *runs(OLDER, "era", ["elicitation-sep1034-client-defaults", "sse-retry"], "2025-11-25"),
    *runs(OLDER, "auth", [f"auth/{name}" for name in OLDER_AUTH + TOKEN_AUTH], "2025-11-25"),
    *runs(OLDER, "auth", [f"auth/{name}" for name in TOKEN_AUTH], "2025-06-18"),
    *runs(OLDER, "auth", ["auth/2025-03-26-oauth-metadata-backcompat"], "2025-03-26"),
    *runs(OLDER, "auth", ["auth/2025-03-26-oauth-endpoint-fallback"], "2025-03-26"),
    *runs(OLDER, "auth", ["auth/resource-mismatch", "auth/offline-access-scope"], "draft"),
    *runs(OLDER, "auth", ["auth/offline-access-not-supported"], "draft"),
    *runs(
        OLDER, "auth", ["auth/client-credentials-jwt", "auth/client-credentials-basic"], "extension"
    ),
]
BY_NAME = {run.name: run for run in RUNS}


def expected_failures() -> dict[tuple[str, str, str, str], dict[str, Any]]:
    """The expected-failures file by (release, mode, scenario, version)."""
    entries = tomllib.loads(EXPECTED.read_text())["failure"]
    return {(e["harness"], e["mode"], e["scenario"], e["version"]): e for e in entries}


Outcome = tuple[list[dict[str, Any]], str]
"""The checks a run recorded, and what it printed (the harness's output, the client's log)."""


def run_one(run: Run, out: Path, urls: dict[str, str]) -> Outcome:
    """Run one scenario; return its checks and output."""
    command = [node_tool(run.harness), run.mode]
    if run.mode == "server":
        command += ["--url", urls[run.target]]
    else:
        client = "-m tests.support.era_fixture_client" if run.target == "era" else str(auth.FIXTURE)
        command += ["--command", f"{sys.executable} {client}", "--timeout", "60000"]
    command += ["--scenario", run.scenario, "-o", str(out)]
    if run.version != "extension":
        command += ["--spec-version", run.version]
    done = subprocess.run(
        command, cwd=ROOT, env=node_env(), capture_output=True, text=True, timeout=300
    )
    found = sorted(out.rglob("checks.json"))
    assert found, f"no checks.json written:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    logs = "".join(path.read_text(errors="replace") for path in out.rglob("stderr.txt"))
    return json.loads(found[0].read_text()), done.stdout + done.stderr + logs


@pytest.fixture(scope="module")
def fixture_urls() -> Iterator[dict[str, str]]:
    """The fixture server in SSE mode and in JSON response mode, each on a free port."""
    module = ["-m", "tests.support.era_fixture_server"]
    with (
        http_process(lambda port: [*module, str(port)]) as sse,
        http_process(lambda port: [*module, str(port), "--json"]) as json_mode,
    ):
        yield {"sse": sse, "json": json_mode}


@pytest.fixture(scope="module")
def outcomes(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    fixture_urls: dict[str, str],
) -> dict[str, Future[Outcome]]:
    """The selected runs, started ``PARALLEL`` at a time when the first test needs one."""

    def run(name: str, out: Path) -> Outcome:
        return run_one(BY_NAME[name], out, fixture_urls)

    return start_selected(request, tmp_path_factory, "test_scenario", run, PARALLEL)


@pytest.mark.parametrize("name", list(BY_NAME))
def test_scenario(name: str, outcomes: dict[str, Future[Outcome]]) -> None:
    """The run records no FAILURE or WARNING (a client run passes overall), or, for an
    expected failure, fails exactly as the expected-failures file says."""
    run = BY_NAME[name]
    checks, output = outcomes[name].result(timeout=900)
    bad = sorted({c["id"] for c in checks if c["status"] in ("FAILURE", "WARNING")})
    expected = expected_failures().get(run.key)
    if expected is not None:
        assert bad == sorted(expected["fails"]), (bad, expected)
        assert expected.get("client_error", "") in output, output[-3000:]
        assert "OVERALL: PASSED" not in output
        return
    assert checks and not bad, json.dumps(checks, indent=1)[:4000]
    if run.mode == "client":
        assert "OVERALL: PASSED" in output, output[-3000:]


LISTED = re.compile(r"^\s+- (\S+) \[([^\]]*)\]$", re.MULTILINE)


def listed(harness: str, mode: str) -> dict[str, list[str]]:
    """The scenarios one release lists in one mode, each with its version tags."""
    done = subprocess.run(
        [node_tool(harness), "list", f"--{mode}"],
        env=node_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = {name: tags.split(",") for name, tags in LISTED.findall(done.stdout)}
    assert found, done.stdout
    return found


def run_elsewhere(listing: dict[tuple[str, str], dict[str, list[str]]]) -> set[tuple[str, ...]]:
    """What ``test_era_conformance`` and ``test_auth_conformance`` run, as coverage keys."""
    keys: set[tuple[str, ...]] = set()
    keys |= {(ALPHA, "server", name, NEWEST) for name in era.SCENARIOS}
    keys |= {(ALPHA, "server", name, NEWEST) for name in era.CONVERTED_SCENARIOS}
    keys |= {(ALPHA, "server", name, "extension") for name in era.TASKS_SCENARIOS}
    keys |= {(ALPHA, "server", name, "2025-11-25") for name in era.HANDSHAKE_SCENARIOS}
    older = [name for name in era.HANDSHAKE_SCENARIOS if name not in era.NEWER_ONLY]
    keys |= {(ALPHA, "server", name, "2025-06-18") for name in older}
    keys |= {(ALPHA, "client", name, NEWEST) for name in era.CLIENT_SCENARIOS}
    keys |= {(ALPHA, "client", name, version) for name, version in era.HANDSHAKE_CLIENT_SCENARIOS}
    for entry in auth.RUNS:
        name, _, version = entry.partition("@")
        harness = auth.OLDER_HARNESS.get(name, ALPHA)
        scenario = f"auth/{name}"
        tags = listing[(harness, "client")].get(scenario, [])
        dated = [tag for tag in tags if tag[:1].isdigit() and tag < NEWEST]
        keys.add((harness, "client", scenario, version or (max(dated) if dated else tags[0])))
    return keys


def test_every_listed_scenario_is_run() -> None:
    """Each scenario of each release, mode and version tag is run, or a known harness bug."""
    listing = {(h, m): listed(h, m) for h in HARNESSES for m in ("server", "client")}
    covered = run_elsewhere(listing) | {run.key for run in RUNS}
    known = expected_failures()
    missing = [
        (harness, mode, scenario, tag)
        for (harness, mode), scenarios in listing.items()
        for scenario, tags in scenarios.items()
        for tag in tags
        if (harness, mode, scenario, tag) not in covered
    ]
    assert not missing, "\n".join(map(str, missing))
    not_run = [key for key in known if key not in {run.key for run in RUNS}]
    assert not not_run, f"expected failures that no run of this module checks: {not_run}"
    unknown = [key for key in covered if key[2] not in listing.get(key[:2], {})]
    assert not unknown, f"runs of scenarios the harness does not list: {unknown}"
