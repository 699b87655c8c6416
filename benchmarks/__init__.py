"""Benchmarks and the synthetic corpus generator (not part of the installed package)."""
