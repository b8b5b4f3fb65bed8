"""The generated API and the method table say the same thing, and the stubs need no casts."""

from __future__ import annotations

import importlib
import inspect
from typing import Any

import pytest

from tests.conftest import ROOT

HANDSHAKE_REVISIONS = ("v2024_11_05", "v2025_03_26", "v2025_06_18", "v2025_11_25")


def _modules(module: str) -> tuple[Any, Any, Any]:
    """The client, server and methods modules of a revision."""
    return tuple(  # type: ignore[return-value]
        importlib.import_module(f"generated.{module}.{name}")
        for name in ("client", "server", "methods")
    )


@pytest.mark.parametrize("module", HANDSHAKE_REVISIONS)
def test_no_cast_and_no_method_strings_in_stubs(module: str) -> None:
    """Stubs call ``request``/``notify`` with a MethodSpec constant; nothing is cast."""
    for name in ("client", "server"):
        text = (ROOT / "generated" / module / f"{name}.py").read_text()
        assert "cast(" not in text and "import cast" not in text
        assert 'self.request("' not in text and 'self.notify("' not in text


@pytest.mark.parametrize("module", HANDSHAKE_REVISIONS)
def test_handler_params_optional_exactly_where_the_table_says(module: str) -> None:
    """A handler's ``params`` may be None only when METHODS says params are not required."""
    client, server, methods = _modules(module)
    pairs = [(server.Server, server.Server.ROUTES), (client.Client, client.Client.ROUTES)]
    checked = 0
    for cls, routes in pairs:
        for method, attr in routes.items():
            spec = methods.METHODS[method]
            annotation = str(inspect.signature(getattr(cls, attr)).parameters["params"].annotation)
            if spec.params is None:
                assert annotation == "None", (method, annotation)
            else:
                assert annotation.endswith("| None") == (not spec.params_required), (
                    method,
                    annotation,
                )
            checked += 1
    assert checked >= 10


@pytest.mark.parametrize("module", HANDSHAKE_REVISIONS)
def test_every_spec_constant_is_in_the_table(module: str) -> None:
    """``METHODS`` is built from the per-method constants: same objects, UPPER_SNAKE names."""
    _, _, methods = _modules(module)
    for wire, spec in methods.METHODS.items():
        constant = wire.replace("/", "_")
        name = "".join(f"_{c}" if c.isupper() else c for c in constant).upper()
        assert getattr(methods, name) is spec
