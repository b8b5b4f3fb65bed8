"""Converters between revisions: planned from ``mcpgen diff``'s classification, rendered as tables.

``build.build_convert(revisions)`` compares each neighbouring pair of revisions (``codegen/diff``)
and plans both directions (``plan``) under the declared policy of ``schema/converters.toml``
(``ir.load_policy``); the package's ``converters.py`` is rendered from the result.
"""
