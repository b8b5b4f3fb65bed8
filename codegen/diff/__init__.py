"""``mcpgen diff``: what changed between two schema revisions, and what it means for converters.

``load_surface`` reads a revision through the generator's pipeline, ``compare`` turns two into a
``Diff`` of classified changes (``model``), and ``render``/``jsonformat`` print it.
"""

from __future__ import annotations

from .compare import compare
from .load import load_surface
from .model import Action, Category, Change, Diff, Effect, Impact, Kind, Side

__all__ = [
    "Action",
    "Category",
    "Change",
    "Diff",
    "Effect",
    "Impact",
    "Kind",
    "Side",
    "compare",
    "load_surface",
]
