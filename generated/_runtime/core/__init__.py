# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The sans-I/O core: JSON-RPC session, lifecycle, wire shapes, errors; no sockets, no asyncio."""
