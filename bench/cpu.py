"""CPU time of the server processes a benchmark starts (robust when other work shares the cores).

Wall-clock rates swing with whatever else runs on the machine; the CPU time a server process
spends per call does not (much). Linux only: read from ``/proc/<pid>/schedstat`` (nanoseconds
on a CPU) for every child process of this one; elsewhere the figures are 0.
"""

from __future__ import annotations

import os
from pathlib import Path


def _children() -> list[int]:
    """Pids of this process's direct children."""
    me = os.getpid()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command name may hold spaces: the fields after it start past the last ")".
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[1]) == me:
            found.append(int(entry.name))
    return found


def children_cpu_ns() -> int:
    """Nanoseconds of CPU used so far by this process's live child processes."""
    total = 0
    for pid in _children():
        try:
            total += int(Path(f"/proc/{pid}/schedstat").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            continue
    return total


class ServerCPU:
    """Measures the CPU the child processes spend between ``start()`` and ``stop()``."""

    def __init__(self) -> None:
        self.began = 0
        self.spent_ns = 0

    def start(self) -> None:
        """Start measuring."""
        self.began = children_cpu_ns()

    def stop(self) -> None:
        """Stop measuring; ``spent_ns`` holds the CPU time spent meanwhile."""
        self.spent_ns = children_cpu_ns() - self.began
