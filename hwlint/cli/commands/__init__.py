"""Every command, one module each, imported only when run (hwlint.cli.main's
LazyGroup). Their options are declared in hwlint.cli.options. check_body and
console need no click: the one-file `check` (hwlint.__main__) runs them
without it."""
