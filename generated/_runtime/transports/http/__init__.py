# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""Streamable HTTP (and 2024-11-05's HTTP+SSE fallback): the ASGI server and the aiohttp client.

Importing this package imports neither: the server never loads the client library.
"""
