"""mcpgen tests."""
