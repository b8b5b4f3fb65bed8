# Copied by mcpgen 0.1.0 from its runtime. Do not edit.
"""The keys of per-request ``_meta`` and the error codes of the stateless era (no revision named).

A revision without a handshake carries in each request's ``_meta`` what ``initialize`` used to
say once (``basic/index.mdx#_meta``); its server names itself in each result's ``_meta``. These
reserved keys and the three errors only such a server sends are shared by both roles.
"""

from __future__ import annotations

from typing import Final

META_VERSION: Final = "io.modelcontextprotocol/protocolVersion"
"""The protocol version a request is made in."""
META_CAPABILITIES: Final = "io.modelcontextprotocol/clientCapabilities"
"""The client's capabilities, sent with every request."""
META_CLIENT_INFO: Final = "io.modelcontextprotocol/clientInfo"
"""The client's name and version, sent with every request."""
META_LOG_LEVEL: Final = "io.modelcontextprotocol/logLevel"
"""The lowest log level the client wants for this request (no logs without it)."""
META_SERVER_INFO: Final = "io.modelcontextprotocol/serverInfo"
"""The server's name and version, in every result."""

HEADER_MISMATCH: Final = -32020
"""An HTTP header disagrees with the body (or a required one is missing)."""
MISSING_CLIENT_CAPABILITY: Final = -32021
"""The request needs a client capability its ``_meta`` does not declare."""
UNSUPPORTED_PROTOCOL_VERSION: Final = -32022
"""The ``_meta`` version is not one the server serves (``data.supported`` lists those)."""
STATELESS_ERRORS: Final = frozenset(
    {HEADER_MISMATCH, MISSING_CLIENT_CAPABILITY, UNSUPPORTED_PROTOCOL_VERSION}
)
"""Errors only a server without a handshake sends: one that sent them is such a server."""
