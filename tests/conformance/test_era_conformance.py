"""The official conformance harness against the dual-era fixture server (Streamable HTTP).

One fixture server process (``tests/support/era_fixture_server.py``) serves the whole module (a
second one serves its initialize-era side through the converters, for the scenarios of the converted
2026-07-28 face); each scenario is one ``conformance server`` run whose ``checks.json`` must
hold no FAILURE and no WARNING, and each client scenario one ``conformance client`` run of the
fixture client (``tests/support/era_fixture_client.py``). The runs go ``PARALLEL`` at a time. The
tasks extension scenarios (``tasks-*``) are not on the harness's spec timeline, so they run
with ``--force`` at 2026-07-28.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from tests.support.node_tools import node_env, node_tool, start_selected
from tests.support.process_support import http_process

ROOT = Path(__file__).resolve().parents[2]
BOTH_ERAS = [
    "completion-complete",
    "tools-list",
    "tools-call-simple-text",
    "tools-call-image",
    "tools-call-audio",
    "tools-call-embedded-resource",
    "tools-call-mixed-content",
    "tools-call-error",
    "tools-call-with-progress",
    "json-schema-2020-12",
    "server-sse-multiple-streams",
    "resources-list",
    "resources-read-text",
    "resources-read-binary",
    "resources-templates-read",
    "prompts-list",
    "prompts-get-simple",
    "prompts-get-with-args",
    "prompts-get-embedded-resource",
    "prompts-get-with-image",
    "dns-rebinding-protection",
]
"""Server scenarios the harness tags 2026-07-28 and an initialize-era revision."""
SCENARIOS = [
    "server-stateless",
    "caching",
    "http-header-validation",
    "http-custom-header-server-validation",
    "sep-2164-resource-not-found",
    "input-required-result-basic-elicitation",
    "input-required-result-basic-sampling",
    "input-required-result-basic-list-roots",
    "input-required-result-request-state",
    "input-required-result-multiple-input-requests",
    "input-required-result-multi-round",
    "input-required-result-missing-input-response",
    "input-required-result-non-tool-request",
    "input-required-result-result-type",
    "input-required-result-unsupported-methods",
    "input-required-result-tampered-state",
    "input-required-result-capability-check",
    "input-required-result-ignore-extra-params",
    "input-required-result-validate-input",
    *BOTH_ERAS,
]


@pytest.fixture(scope="module")
def fixture_url() -> Iterator[str]:
    """Start the fixture server on a free port; stop it after the module."""
    with http_process(lambda port: ["-m", "tests.support.era_fixture_server", str(port)]) as url:
        yield url


def run_harness(
    mode: str,
    target: list[str],
    scenario: str,
    out: Path,
    version: str = "2026-07-28",
    *,
    force: bool = False,
) -> list[dict[str, Any]]:
    """Run one harness scenario at ``version``; return the checks it wrote.

    ``force``: run an extension scenario, which the harness places on no spec version.
    """
    run = subprocess.run(
        [
            *(node_tool("conformance"), mode, *target),
            *("--scenario", scenario, "--spec-version", version, "-o", str(out)),
            *(["--force"] if force else []),
        ],
        cwd=ROOT,
        env=node_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    results = list(out.glob("*/checks.json"))
    assert results, f"no checks.json written:\n{run.stdout}\n{run.stderr}"
    checks: list[dict[str, Any]] = json.loads(results[0].read_text())
    return checks


CONVERTED_SCENARIOS = ["http-custom-header-server-validation", "tools-list", "json-schema-2020-12"]
"""Scenarios run against the fixture's 2025-11-25 side served through the converters: its
2026-07-28 face must carry each tool's JSON Schema whole (``x-mcp-header`` included)."""


@pytest.fixture(scope="module")
def converted_url() -> Iterator[str]:
    """The initialize-era fixture served with ``every_revision`` on a free port."""
    with http_process(
        lambda port: ["-m", "tests.support.era_fixture_server", str(port), "converted"]
    ) as url:
        yield url


TASKS_SCENARIOS = [
    "tasks-lifecycle",
    "tasks-capability-negotiation",
    "tasks-wire-fields",
    "tasks-request-state-removal",
    "tasks-mrtr-input",
    "tasks-request-headers",
    "tasks-dispatch-and-envelope",
    "tasks-status-notifications",
    "tasks-required-task-error",
    "tasks-mrtr-composition",
]
"""The tasks extension (``io.modelcontextprotocol/tasks``) scenarios: every one the harness has
(``tasks-status-notifications`` is a single SKIPPED check in this harness version; our own
test of ``notifications/tasks`` is in ``tests/roles/test_stateless_tasks.py``)."""


HANDSHAKE_SCENARIOS = [
    "server-initialize",
    "server-session-lifecycle",
    "logging-set-level",
    "ping",
    "tools-call-with-logging",
    "tools-call-sampling",
    "tools-call-elicitation",
    "elicitation-sep1034-defaults",
    "server-sse-polling",
    "elicitation-sep1330-enums",
    "resources-subscribe",
    "resources-unsubscribe",
    *BOTH_ERAS,
]
"""Every server scenario the harness tags 2025-06-18 or 2025-11-25, run against the
initialize-era side (``FixtureHandshake``) of the same dual-era server process."""


NEWER_ONLY = {
    "json-schema-2020-12",
    "elicitation-sep1034-defaults",
    "server-sse-polling",
    "server-sse-multiple-streams",
    "elicitation-sep1330-enums",
    "dns-rebinding-protection",
}
"""Scenarios the harness tags 2025-11-25 only; the others are also run at 2025-06-18 (the
harness's client still negotiates its newest revision; ``--spec-version`` picks the schema its
wire check validates every message against, so a field 2025-06-18 lacks would fail there)."""


CLIENT_SCENARIOS = [
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "tools_call",
]


HANDSHAKE_CLIENT_SCENARIOS = [
    ("initialize", "2025-11-25"),
    ("initialize", "2025-06-18"),
    ("tools_call", "2025-11-25"),
    ("tools_call", "2025-06-18"),
    ("elicitation-sep1034-client-defaults", "2025-11-25"),
    ("sse-retry", "2025-11-25"),
]


PARALLEL = 4
"""Harness runs at once (each a Node process against a fixture, mostly waiting)."""
NEWEST = "2026-07-28"
Run = tuple[str, str, str, str, bool]
"""mode, target (``fixture``, ``converted``, ``client``), scenario, version, force."""
RUNS: dict[str, Run] = {
    **{f"{s}@{NEWEST}": ("server", "fixture", s, NEWEST, False) for s in SCENARIOS},
    **{f"{s}@converted": ("server", "converted", s, NEWEST, False) for s in CONVERTED_SCENARIOS},
    **{f"{s}@extension": ("server", "fixture", s, NEWEST, True) for s in TASKS_SCENARIOS},
    **{
        f"{s}@2025-11-25": ("server", "fixture", s, "2025-11-25", False)
        for s in HANDSHAKE_SCENARIOS
    },
    **{
        f"{s}@2025-06-18": ("server", "fixture", s, "2025-06-18", False)
        for s in HANDSHAKE_SCENARIOS
        if s not in NEWER_ONLY
    },
    **{f"client:{s}@{NEWEST}": ("client", "client", s, NEWEST, False) for s in CLIENT_SCENARIOS},
    **{f"client:{s}@{v}": ("client", "client", s, v, False) for s, v in HANDSHAKE_CLIENT_SCENARIOS},
}
"""Every run of this module by its test id."""


@pytest.fixture(scope="module")
def outcomes(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    fixture_url: str,
    converted_url: str,
) -> dict[str, Future[list[dict[str, Any]]]]:
    """The selected runs, started ``PARALLEL`` at a time when the first test needs one."""
    command = f"{sys.executable} -m tests.support.era_fixture_client"
    targets = {
        "fixture": ["--url", fixture_url],
        "converted": ["--url", converted_url],
        "client": ["--command", command],
    }

    def run(name: str, out: Path) -> list[dict[str, Any]]:
        mode, target, scenario, version, force = RUNS[name]
        return run_harness(mode, targets[target], scenario, out, version, force=force)

    return start_selected(request, tmp_path_factory, "test_scenario", run, PARALLEL)


@pytest.mark.parametrize("name", list(RUNS))
def test_scenario(name: str, outcomes: dict[str, Future[list[dict[str, Any]]]]) -> None:
    """Every check of the run is SUCCESS (an INFO or SKIPPED check is not a failure): the
    harness's client against the fixture server (either face), or its server against the
    fixture client (``tests/support/era_fixture_client.py``, auto mode falling back)."""
    checks = outcomes[name].result(timeout=900)
    bad = [c for c in checks if c["status"] in ("FAILURE", "WARNING")]
    assert checks and not bad, json.dumps(bad, indent=1)[:4000]
