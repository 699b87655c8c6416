"""hwlint: every test class of a PyTorch-style test suite declares its hardware."""

__version__ = "0.1.0"
