"""Per-revision overrides, one TOML file per MCP schema revision."""
