"""Stage 3: render the IR through the templates, format with black, write atomically."""
