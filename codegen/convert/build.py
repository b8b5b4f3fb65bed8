"""Build the converter IR of a package: diff each neighbouring pair, plan both ways."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from ..diff import compare, load_surface
from ..errors import GenerationError
from ..revision import BuiltRevision, RevisionInput, known_revisions
from .ir import ConvertIR, Policy, StepIR, load_policy
from .plan import plan_step


def build_convert(
    revisions: Sequence[str | RevisionInput | BuiltRevision], policy: Policy | None = None
) -> ConvertIR:
    """Plan every step between neighbouring ``revisions`` (oldest first), both ways.

    A revision is a built-in one by name, an input (a next revision with its overrides), or
    one the generator already built (its schema model and IR are used as they are).
    """
    policy = policy if policy is not None else load_policy()
    surfaces = [load_surface(rev) for rev in revisions]
    steps: list[StepIR] = []
    used: set[str] = set()
    for old, new in itertools.pairwise(surfaces):
        diff = compare(old, new, policy.rule_names, policy.member_actions)
        steps.append(plan_step(old, new, diff, True, policy, used))
        steps.append(plan_step(new, old, diff, False, policy, used))
    stale = [f"members.{tag}" for tag, _ in policy.members if f"members.{tag}" not in used]
    if policy.fills and "fill" not in used:
        stale.append("[fill]")
    names = [s.revision or s.label for s in surfaces]
    if stale and set(known_revisions()) <= set(names):
        raise GenerationError(
            f"schema/converters.toml: {', '.join(stale)} applies to no pair of revisions; remove it"
        )
    return ConvertIR(tuple(names), tuple(steps), tuple(s.sha256 for s in surfaces))
