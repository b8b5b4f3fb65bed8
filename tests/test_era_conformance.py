"""The official conformance harness against the dual-era fixture server (Streamable HTTP).

One fixture server process (``tests/era_fixture_server.py``) serves the whole module (a second
one serves its initialize-era side through the converters, for the scenarios of the converted
2026-07-28 face); each scenario is one ``conformance server`` run whose ``checks.json`` must
hold no FAILURE and no WARNING. The tasks extension scenarios (``tasks-*``) are not on the
harness's spec timeline, so they run with ``--force`` at 2026-07-28.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.node_tools import node_env, node_tool
from tests.process_support import http_process

ROOT = Path(__file__).resolve().parent.parent
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
    with http_process(lambda port: ["-m", "tests.era_fixture_server", str(port)]) as url:
        yield url


def run_harness(
    mode: str,
    target: list[str],
    scenario: str,
    out: Path,
    version: str = "2026-07-28",
    *,
    force: bool = False,
) -> None:
    """Run one harness scenario at ``version``; fail on any FAILURE or WARNING check it wrote.

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
        timeout=180,
    )
    results = list(out.glob("*/checks.json"))
    assert results, f"no checks.json written:\n{run.stdout}\n{run.stderr}"
    checks = json.loads(results[0].read_text())
    bad = [c for c in checks if c["status"] in ("FAILURE", "WARNING")]
    assert checks and not bad, json.dumps(bad, indent=1)[:4000]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_conformance_scenario(scenario: str, fixture_url: str, tmp_path: Path) -> None:
    """Every check of the scenario is SUCCESS (an INFO or SKIPPED check is not a failure)."""
    run_harness("server", ["--url", fixture_url], scenario, tmp_path)


CONVERTED_SCENARIOS = ["http-custom-header-server-validation", "tools-list", "json-schema-2020-12"]
"""Scenarios run against the fixture's 2025-11-25 side served through the converters: its
2026-07-28 face must carry each tool's JSON Schema whole (``x-mcp-header`` included)."""


@pytest.fixture(scope="module")
def converted_url() -> Iterator[str]:
    """The initialize-era fixture served with ``every_revision`` on a free port."""
    with http_process(
        lambda port: ["-m", "tests.era_fixture_server", str(port), "converted"]
    ) as url:
        yield url


@pytest.mark.parametrize("scenario", CONVERTED_SCENARIOS)
def test_converted_face_scenario(scenario: str, converted_url: str, tmp_path: Path) -> None:
    """Every check is SUCCESS against the converted 2026-07-28 face."""
    run_harness("server", ["--url", converted_url], scenario, tmp_path)


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
test of ``notifications/tasks`` is in ``tests/test_modern_tasks.py``)."""


@pytest.mark.parametrize("scenario", TASKS_SCENARIOS)
def test_tasks_extension_scenario(scenario: str, fixture_url: str, tmp_path: Path) -> None:
    """Every check of the tasks extension scenario is SUCCESS (or SKIPPED by the harness)."""
    run_harness("server", ["--url", fixture_url], scenario, tmp_path, force=True)


LEGACY_SCENARIOS = [
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
initialize-era side (``FixtureLegacy``) of the same dual-era server process."""


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


@pytest.mark.parametrize(
    ("scenario", "version"),
    [(name, "2025-11-25") for name in LEGACY_SCENARIOS]
    + [(name, "2025-06-18") for name in LEGACY_SCENARIOS if name not in NEWER_ONLY],
)
def test_initialize_era_scenario(
    scenario: str, version: str, fixture_url: str, tmp_path: Path
) -> None:
    """Every check of the initialize-era scenario is SUCCESS at ``version``."""
    run_harness("server", ["--url", fixture_url], scenario, tmp_path, version)


CLIENT_SCENARIOS = [
    "request-metadata",
    "sep-2322-client-request-state",
    "http-standard-headers",
    "http-custom-headers",
    "http-invalid-tool-headers",
    "tools_call",
]


@pytest.mark.parametrize("scenario", CLIENT_SCENARIOS)
def test_conformance_client_scenario(scenario: str, tmp_path: Path) -> None:
    """The harness's server checks our fixture client (``tests/era_fixture_client.py``)."""
    command = f"{sys.executable} -m tests.era_fixture_client"
    run_harness("client", ["--command", command], scenario, tmp_path)


LEGACY_CLIENT_SCENARIOS = [
    ("initialize", "2025-11-25"),
    ("initialize", "2025-06-18"),
    ("tools_call", "2025-11-25"),
    ("tools_call", "2025-06-18"),
    ("elicitation-sep1034-client-defaults", "2025-11-25"),
    ("sse-retry", "2025-11-25"),
]


@pytest.mark.parametrize(("scenario", "version"), LEGACY_CLIENT_SCENARIOS)
def test_initialize_era_client_scenario(scenario: str, version: str, tmp_path: Path) -> None:
    """The harness's initialize-era server checks our fixture client (auto mode falls back)."""
    command = f"{sys.executable} -m tests.era_fixture_client"
    run_harness("client", ["--command", command], scenario, tmp_path, version)
