"""mcpgen: generate typed msgspec bindings for the Model Context Protocol schema."""

__version__ = "0.1.0"
