"""The 2026-07-28 demo: auto mode against the dual-era demo server over stdio and HTTP."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_era_demo_passes_over_stdio_and_http() -> None:
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "demo_era_client.py")],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.splitlines()
    assert lines.count("  ok  auto mode chose 2026-07-28") == 2
    assert lines.count("  ok  MRTR elicitation: 'thank you Ada, you are visitor #1'") == 2
    assert lines.count("  ok  listen acknowledged first") == 2
    assert "  ok  server->client elicitation: 'thank you Grace, you are visitor #2'" in lines
    assert lines[-1] == "== era demo finished: every step behaved as expected"
