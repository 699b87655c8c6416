"""`hwlint server`: a language server (LSP over stdio, on pygls) that gives
an editor the diagnostics `hwlint check` gives, as the user types, with
quick fixes, `# noqa` insertion and the rules' explanations on hover.

The package, bottom up: `workspace` (each project's settings, the facts of
its files held in memory, one document's diagnostics as `hwlint check FILE`
computes them), `diagnostics` (hwlint's findings as LSP diagnostics, and
back), `actions` (code actions and hover text), `app` (the pygls wiring:
every handler guarded, so that the server never dies on input).
"""
