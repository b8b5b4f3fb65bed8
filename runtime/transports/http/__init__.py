"""Streamable HTTP (and the legacy HTTP+SSE fallback): the ASGI server and the aiohttp client.

Importing this package imports neither: the server never loads the client library.
"""
