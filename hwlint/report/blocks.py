"""The blocks a report's layout is made of, and what every format draws.

`hwlint.report.layout` puts the figures into sections of these blocks
(paragraphs, tables, the burn-down chart); a renderer in
hwlint/output/report_*.py draws each block in its medium and never decides
what a section holds, so every format shows the same sections with the same
figures. Cells say how they are shown (`Percent`, `Code`); a table folds its
long rows the same way for every format (`fold_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Union


class Percent(float):
    """A percentage cell: a number (right-aligned like the others), shown with %."""

    def __str__(self) -> str:
        return f"{float(self)}%"


class Code(str):
    """A cell holding a path or a commit: shown as code where the medium can."""


Cell = Union[int, float, str]


@dataclass(frozen=True)
class Paragraph:
    """One sentence or two; `backticks` mark code."""

    text: str


@dataclass(frozen=True)
class Table:
    """A table: its headers and rows, what to say when it has none, and how
    its rows are named when some are left out."""

    id: str  # stable: the html page's element id, which tests and links use
    headers: tuple[str, ...]
    rows: tuple[tuple[Cell, ...], ...]
    footer: tuple[Cell, ...] | None = None  # e.g. a total, computed here, never by a renderer
    empty: str = "None."  # shown instead of a table without rows
    # A list of details (the burn-down's commits): html and markdown fold it
    # under this summary.
    fold: str | None = None
    noun: tuple[str, str] = ("row", "rows")  # what a row is, singular and plural: "36 more directories"
    # Set by `fold_rows` when rows were left out (layout.TABLE_ROWS): the line every
    # format prints under the table, e.g. "36 more directories (...)".
    more: str | None = None


def fold_rows(table: Table, limit: int | None) -> Table:
    """The table's first `limit` rows, and a `more` line saying how many
    were left out and where to see them; the table itself when it is short
    enough or `limit` is None. The rows are already in the order that
    matters (most work first, newest first), so the first ones are kept."""
    if limit is None or len(table.rows) <= limit:
        return table
    left = len(table.rows) - limit
    noun = table.noun[0] if left == 1 else table.noun[1]
    more = f"{left} more {noun} (`--all-rows` shows every row; `--format json` lists them all)."
    return replace(table, rows=table.rows[:limit], more=more)


@dataclass(frozen=True)
class Chart:
    """The burn-down: the allowlist's size at each commit, until `until`.
    A phase's chart also has its `plan`: (date, files) points of the agreed
    pace, from the files at its start to zero on its due date."""

    history: tuple[dict[str, Any], ...]
    until: str
    title: str = "Files allowlisted"
    id: str = "chart"  # the html page's element id
    plan: tuple[tuple[str, int], ...] = ()


Block = Union[Paragraph, Table, Chart]


@dataclass(frozen=True)
class Section:
    """One part of the report: a title, what it counts, and its blocks."""

    id: str
    title: str
    blocks: tuple[Block, ...]
    note: str | None = None  # what the section counts, under its title


@dataclass(frozen=True)
class Layout:
    """What text, markdown and html show: the figures, the headline and the
    sections in order."""

    figures: dict[str, Any]  # build_report's dict: the JSON document
    percent: float
    headline: tuple[str, str]  # (the figure, what it means), e.g. ("70.0% migrated", "3 files ...")
    sections: tuple[Section, ...]
