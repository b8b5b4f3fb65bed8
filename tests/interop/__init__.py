"""Interoperability tests against the official Python MCP SDK, over stdio."""
