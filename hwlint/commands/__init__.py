"""Commands beyond `check`, loaded lazily by hwlint.cli.LazyGroup."""
