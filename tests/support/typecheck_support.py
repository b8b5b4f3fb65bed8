"""Run mypy --strict or pyright strict on one file of the project, as a user's checker would."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import ROOT
from tests.support.node_tools import node_env, node_tool


def strict_check(checker: str, target: Path, tmp_path: Path, mypy_extra: str = "") -> None:
    """Fail with the checker's report unless ``target`` passes it in strict mode.

    ``mypy_extra``: more lines of the mypy configuration (per-module sections).
    """
    env = None
    if checker == "mypy":
        config = tmp_path / "mypy.ini"
        config.write_text("[mypy]\nstrict = True\n" + mypy_extra)
        command = [sys.executable, "-m", "mypy", "--config-file", str(config), str(target)]
    else:
        config = tmp_path / "pyrightconfig.json"
        settings = {
            "typeCheckingMode": "strict",
            "pythonVersion": "3.11",
            "extraPaths": [str(ROOT)],
        }
        config.write_text(json.dumps(settings))
        command = [node_tool("pyright"), "--pythonpath", sys.executable, "-p", str(config)]
        command.append(str(target))
        env = node_env()
    proc = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
