"""Allow ``python -m mcpgen``."""

from .cli import main

main()
