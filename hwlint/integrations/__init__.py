"""hwlint inside other tools: the flake8 plugin."""
