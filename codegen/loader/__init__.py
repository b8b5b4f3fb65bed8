"""Stage 1: find, check, patch and read a schema file into a typed model."""
