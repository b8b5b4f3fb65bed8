"""What a generated module imports, read off the type references it renders."""

from __future__ import annotations

from collections.abc import Iterable

from .ir import ImportsIR
from .typeref import Need


def isort_key(name: str) -> tuple[int, str]:
    """Order imported names as isort's ``order-by-type`` does: CONSTANTS, Classes, functions."""
    rank = 0 if name.isupper() and len(name) > 1 else 1 if name[0].isupper() else 2
    return rank, name


def _sorted(names: Iterable[str]) -> tuple[str, ...]:
    return tuple(sorted(set(names), key=isort_key))


def module_imports(
    needs: frozenset[Need],
    *,
    typing: Iterable[str] = (),
    msgspec: Iterable[str] = (),
    runtime: Iterable[str] = (),
    types: Iterable[str] = (),
    specs: tuple[str, ...] = (),
    with_types: bool = True,
) -> ImportsIR:
    """The imports of a module whose type references need ``needs``, plus fixed extra names."""
    by_source: dict[str, set[str]] = {
        "typing": set(typing),
        "msgspec": set(msgspec),
        "tolerant": set(),
        "recursive": set(),
    }
    type_names = set(types)
    for source, name in needs:
        if source == "types":
            type_names.add(name)
        else:
            by_source[source].add(name)
    return ImportsIR(
        types=tuple(sorted(type_names, key=str.lower)) if with_types else (),
        typing=_sorted(by_source["typing"]),
        msgspec=_sorted(by_source["msgspec"]),
        runtime=_sorted(runtime),
        specs=specs,
        tolerant=_sorted(by_source["tolerant"]),
        recursive=_sorted(by_source["recursive"]),
    )
