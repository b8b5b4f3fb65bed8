"""Stage 2: the intermediate representation, with every name and type decided."""

from __future__ import annotations

import re

from ..errors import Problem
from ..loader.model import SchemaDocument
from ..loader.overrides import Overrides
from .api import build_api
from .implicit import inherit_base_params
from .ir import RevisionIR, UnionIR
from .methods import build_methods
from .names import class_name, module_name
from .types import TypesResult, build_types


def _used(text: str, names: tuple[str, ...], types: TypesResult) -> str:
    """Return the comma-separated subset of ``names`` the generated types module uses."""
    has_unions = any(isinstance(a, UnionIR) for a in types.aliases)
    always = {"TypeAlias": bool(types.aliases), "TYPE_CHECKING": has_unions}
    always |= {"Variant": has_unions, "untagged_union": has_unions}
    used = [n for n in names if always.get(n, False) or re.search(rf"\b{n}\b", text)]
    return ", ".join(sorted(used, key=_isort_key))


def _isort_key(name: str) -> tuple[int, str]:
    """Order imported names as isort's ``order-by-type`` does: CONSTANTS, Classes, functions."""
    bare = name.split(" ")[0]
    rank = 0 if bare.isupper() and len(bare) > 1 else 1 if bare[0].isupper() else 2
    return rank, bare


def build_revision(
    revision: str, sha256: str, version: str, doc: SchemaDocument, overrides: Overrides
) -> tuple[RevisionIR, tuple[Problem, ...]]:
    """Build the IR of one revision from its typed schema and overrides."""
    doc = inherit_base_params(doc)
    types = build_types(doc)
    methods, method_problems = build_methods(doc, types, overrides)
    text = " ".join(
        [f.annotation + f.assignment for st in types.structs for f in st.fields]
        + [a.annotation for a in types.aliases]
    )
    ir = RevisionIR(
        revision=revision,
        module=module_name(revision),
        sha256=sha256,
        generator_version=version,
        structs=types.structs,
        aliases=types.aliases,
        methods=methods,
        definition_names=tuple(class_name(name) for name, _ in doc.definitions),
        supports_batch=overrides.supports_batch,
        typing_imports=_used(
            text, ("TYPE_CHECKING", "Annotated", "Any", "Literal", "TypeAlias"), types
        ),
        msgspec_imports=_used(text, ("UNSET", "Meta", "UnsetType", "field"), types),
        runtime_imports=_used(text, ("Variant", "untagged_union"), types),
        api=build_api(
            methods,
            types.structs,
            {s.name for s in types.structs} | {a.name for a in types.aliases},
            types.annotated,
        ),
        extra_imports=(
            (f"from typing import Annotated as {types.annotated}",)
            if types.annotated != "Annotated" and types.annotated in text
            else ()
        ),
    )
    return ir, doc.problems + types.problems + method_problems
