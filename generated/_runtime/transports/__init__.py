# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Transports move messages between a peer and the world: stdio, in-memory and ``http/``."""
