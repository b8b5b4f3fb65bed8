"""Pinned schema manifest and per-revision overrides, shipped with mcpgen as data."""
