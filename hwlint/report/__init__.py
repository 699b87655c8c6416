"""`hwlint report`: progress figures toward an empty allowlist."""
