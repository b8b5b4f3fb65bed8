"""The official conformance harness's authorization scenarios against our OAuth client.

Each ``auth/*`` client scenario runs ``tests/support/auth_fixture_client.py`` -- an MCP client
with an ``OAuthClient``, written on the public API -- against the harness's resource server and
authorization server, and every check the harness records must succeed (no FAILURE, no
WARNING) and the client must exit as the scenario expects.

Scenarios run at the harness's default revision for them (2025-11-25 for most, 2026-07-28 for
those it introduced), and those that also apply to 2026-07-28 run at 2026-07-28 again: there the
fixture's MCP requests are stateless POSTs through the same ``OAuthClient``. The extension
scenarios (DPoP, workload identity federation, enterprise-managed authorization) run at their
default; 0.1.16's ``cross-app-access-complete-flow`` (the same enterprise flow under its older
name) runs with the 0.1.16 harness.
"""

from __future__ import annotations

import json
import subprocess
import sys
from concurrent.futures import Future
from pathlib import Path
from typing import Any

import pytest

from tests.support.node_tools import node_env, node_tool, start_selected

FIXTURE = Path(__file__).resolve().parents[1] / "support" / "auth_fixture_client.py"

SCENARIOS = [
    "metadata-default",
    "metadata-var1",
    "metadata-var2",
    "metadata-var3",
    "basic-cimd",
    "scope-from-www-authenticate",
    "scope-from-scopes-supported",
    "scope-omitted-when-undefined",
    "scope-step-up",
    "scope-retry-limit",
    "token-endpoint-auth-basic",
    "token-endpoint-auth-post",
    "token-endpoint-auth-none",
    "pre-registration",
    "2025-03-26-oauth-metadata-backcompat",
    "2025-03-26-oauth-endpoint-fallback",
    "client-credentials-jwt",
    "client-credentials-basic",
]
ONLY_2026 = [
    "resource-mismatch",
    "offline-access-scope",
    "offline-access-not-supported",
    "authorization-server-migration",
    "iss-supported",
    "iss-not-advertised",
    "iss-supported-missing",
    "iss-wrong-issuer",
    "iss-unexpected",
    "iss-normalized",
    "metadata-issuer-mismatch",
]
REFUSALS = {
    "scope-retry-limit",
    "resource-mismatch",
    "iss-supported-missing",
    "iss-wrong-issuer",
    "iss-unexpected",
    "iss-normalized",
    "metadata-issuer-mismatch",
}
"""Scenarios where the client must refuse to go on or give up (so it exits with an error)."""
EXTENSIONS = ["dpop", "dpop-nonce", "wif-jwt-bearer", "enterprise-managed-authorization"]
"""Scenarios of the authorization extensions (each an option of ``OAuthClient``)."""
OLDER_HARNESS = {"cross-app-access-complete-flow": "conformance-0.1.16"}
"""Scenarios run with another pinned release of the harness than the default one."""
ALSO_2026 = [
    name for name in SCENARIOS if not name.startswith(("2025-03-26", "client-credentials"))
]
"""Scenarios that apply to 2025-11-25 and 2026-07-28 alike, run at both."""
RUNS = (
    SCENARIOS
    + ONLY_2026
    + EXTENSIONS
    + list(OLDER_HARNESS)
    + [f"{name}@2026-07-28" for name in ALSO_2026]
)
PARALLEL = 3
"""Scenarios run at once (each is a Node harness and a Python client, mostly waiting)."""
Outcome = tuple[subprocess.CompletedProcess[str], list[dict[str, Any]], str]


def run_scenario(run: str, out: Path) -> Outcome:
    """Run one client scenario (``name`` or ``name@revision``); return the harness's process,
    its checks and the client's stderr."""
    name, _, version = run.partition("@")
    harness = node_tool(OLDER_HARNESS.get(name, "conformance"))
    command = [harness, "client", "--command", f"{sys.executable} {FIXTURE}"]
    command += ["--scenario", f"auth/{name}", "-o", str(out), "--timeout", "60000"]
    if version:
        command += ["--spec-version", version]
    done = subprocess.run(
        command, env=node_env(), capture_output=True, text=True, timeout=180, check=False
    )
    found = sorted(out.rglob("checks.json"))
    assert found, f"no checks.json written:\n{done.stdout}\n{done.stderr}"
    client_log = next(out.rglob("stderr.txt")).read_text()
    return done, json.loads(found[0].read_text()), client_log


@pytest.fixture(scope="module")
def outcomes(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, Future[Outcome]]:
    """The selected scenarios, started ``PARALLEL`` at a time when the first test needs one."""
    return start_selected(request, tmp_path_factory, "test_auth_scenario", run_scenario, PARALLEL)


@pytest.mark.parametrize("name", RUNS)
def test_auth_scenario(name: str, outcomes: dict[str, Future[Outcome]]) -> None:
    """Every check of the scenario succeeds and the harness reports it passed."""
    done, checks, client_log = outcomes[name].result(timeout=300)
    bad = [c for c in checks if c["status"] in ("FAILURE", "WARNING")]
    assert not bad, json.dumps(bad, indent=1) + done.stderr[-3000:]
    assert any(c["status"] == "SUCCESS" for c in checks)
    assert "OVERALL: PASSED" in done.stdout + done.stderr, done.stderr[-3000:]
    if name.partition("@")[0] in REFUSALS:
        assert "auth fixture client failed" in client_log, client_log
    else:
        assert "auth fixture client failed" not in client_log, client_log
