# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The asyncio roles: the peer driver, the shared connection, the client and the server."""
