"""Stage 2: the intermediate representation, with every name and type decided."""

from __future__ import annotations

from ..errors import Problem
from ..loader.model import SchemaDocument
from ..loader.overrides import Overrides
from .api import build_api
from .implicit import inherit_base_params
from .imports import module_imports
from .ir import RevisionIR, UnionIR
from .methods import build_methods
from .names import class_name, module_name
from .tasks import build_tasks
from .typeref import needs_of
from .types import build_types


def build_revision(
    revision: str, sha256: str, version: str, doc: SchemaDocument, overrides: Overrides
) -> tuple[RevisionIR, tuple[Problem, ...]]:
    """Build the IR of one revision from its typed schema and overrides."""
    doc = inherit_base_params(doc)
    types = build_types(doc)
    methods, method_problems = build_methods(doc, types, overrides)
    tasks, task_problems = build_tasks(doc, methods)
    fields = [f for s in types.structs for f in s.fields]
    refs = [f.type for f in fields]
    for alias in types.aliases:
        refs.extend(alias.members if isinstance(alias, UnionIR) else (alias.type,))
    split = any(isinstance(a, UnionIR) or a.recursive for a in types.aliases)
    has_unions = any(isinstance(a, UnionIR) for a in types.aliases)
    imports = module_imports(
        needs_of(refs),
        typing=("TypeAlias",) * bool(types.aliases) + ("TYPE_CHECKING",) * split,
        msgspec=("UNSET",) * any(f.default == "unset" for f in fields)
        + ("field",) * any(f.py_name != f.wire_name for f in fields),
        runtime=("Variant", "untagged_union") if has_unions else (),
        with_types=False,
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
        sse_priming=overrides.sse_priming,
        method_headers=overrides.method_headers,
        base=overrides.base,
        overrides_sha256=overrides.file_sha256,
        annotated=types.annotated,
        imports=imports,
        api=build_api(methods, types.structs, tasks),
        tasks=tasks,
    )
    return ir, doc.problems + types.problems + method_problems + task_problems
