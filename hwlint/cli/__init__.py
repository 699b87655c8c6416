"""The command line: option declarations, the click group, one module per command.

Kept free of imports: `check` on a few files parses its options without click
(hwlint.__main__), and importing this package must not pull click in."""
