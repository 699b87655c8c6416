"""`path:line:col: CODE message`, then a summary, as flake8 and ruff print."""

from __future__ import annotations

from collections import Counter

from hwlint.engine.api import CheckResult
from hwlint.facts.devices import note
from hwlint.rules import BY_CODE


def _style(text: str, color: bool, **kwargs: object) -> str:
    if not color:
        return text
    import click

    # The callers pass click.style's own keywords (fg, bold, dim).
    return click.style(text, **kwargs)  # type: ignore[arg-type]  # kwargs typed loosely on purpose


def render(
    result: CheckResult, *, statistics: bool = False, color: bool = False, fmt: str = "", fixable: int = 0
) -> str:
    """The diagnostics and a summary; `fixable` (hwlint.fix.fixable.fixable_count,
    which the command computes) is how many a plain `hwlint fix` classifies."""
    out: list[str] = []
    for d in result.diagnostics:
        location = _style(f"{d.path}:{d.line}:{d.column}:", color, bold=True)
        out.append(f"{location} {_style(d.code, color, fg='red', bold=True)} {d.message}")
    if statistics and result.diagnostics:
        if out:
            out.append("")
        counts = Counter(d.code for d in result.diagnostics)
        for code, count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
            out.append(f"{count:>6}  {code}  {BY_CODE[code].name}")
    files = len({d.path for d in result.diagnostics})
    n = len(result.diagnostics)
    checked = f"{result.files_checked} file{'s' if result.files_checked != 1 else ''} checked"
    if result.allowlist is not None and result.allowlist.entries:
        checked += f", {len(result.allowlist.entries)} allowlisted"
    if n:
        summary = f"Found {n} error{'s' if n != 1 else ''} in {files} file{'s' if files != 1 else ''} ({checked})."
        if fixable:
            summary += f"\n{fixable} fixable with `hwlint fix`."
    else:
        summary = f"All checks passed ({checked})."
    if out:
        out.append("")
    out.append(_style(summary, color, bold=True))
    found = note(result.unconfigured_devices(), result.config)
    if found:
        out += ["", found.rstrip("\n")]
    return "\n".join(out) + "\n"
