"""The sans-I/O core: JSON-RPC session, lifecycle, wire shapes, errors; no sockets, no asyncio."""
