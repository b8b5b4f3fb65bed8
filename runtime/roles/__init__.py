"""The asyncio roles: the peer driver, the shared connection, the client and the server."""
