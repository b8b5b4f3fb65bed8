"""Errors and problem reports shared by every stage of the generator."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class GenerationError(Exception):
    """A problem that stops generation; its message is one line meant for the user."""


class Level(enum.Enum):
    """How serious a problem found in the input is."""

    WARNING = "warning"
    ERROR = "error"


@dataclass(frozen=True)
class Problem:
    """One problem found in a schema, with where it sits."""

    level: Level
    where: str
    message: str

    def __str__(self) -> str:
        """Render as ``level: where: message``."""
        return f"{self.level.value}: {self.where}: {self.message}"
