"""Processes the benchmarks start: servers written three ways, and a raw echo floor."""
