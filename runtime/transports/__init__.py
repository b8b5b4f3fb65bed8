"""Transports move messages between a peer and the world: stdio, in-memory and ``http/``."""
