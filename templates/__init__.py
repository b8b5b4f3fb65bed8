"""Jinja2 templates of the generated package, one per output file, macros in macros/."""
