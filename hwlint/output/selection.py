"""`hwlint select`'s formats: the selection as files or pytest node ids
(what `pytest $(hwlint select ...)` runs, relative to the current
directory, where that shell is) or as json, and `--matrix`'s GitHub
Actions matrix. `select` has its own `--format` choices
(hwlint.cli.options), so these are not in this package's registry."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hwlint.core.diagnostics import UserError


def _here(root: Path, path: str) -> str:
    """A root-relative path as seen from the current directory, which is
    where the shell that runs `pytest $(...)` is."""
    return Path(os.path.relpath(root / path)).as_posix()


def render(selection: Any, fmt: str, root: Path) -> str:
    """A selection as `--format` asks: files, pytest node ids, or json."""
    if fmt == "files":
        return "".join(_here(root, path) + "\n" for path in selection.files)
    if fmt == "pytest":
        waiting = [t for t in selection.known() if t.collected_as is None]
        if waiting:
            first = waiting[0]
            raise UserError(
                f"{first.path}: {first.class_name} is instantiated per device type, so pytest collects it as "
                f"{first.class_name}<DEVICE> (e.g. {first.class_name}CUDA): pass --device to name the classes "
                "this runner collects" + (f" ({len(waiting) - 1} more like it)" if len(waiting) > 1 else "")
            )
        # An uncertain file is named whole (pytest runs all of it), in place of its classes.
        lines = [f"{_here(root, t.path)}::{t.collected_as}" for t in selection.known()]
        lines += [_here(root, path) for path in sorted(selection.uncertain)]
        return "".join(line + "\n" for line in lines)
    document = {
        "root": str(root),
        "members": list(selection.members),
        "include_unclassified": selection.include_unclassified,
        "device": selection.device,
        "files": selection.files,
        "tests": [
            {
                "path": t.path,
                "class_name": t.class_name,
                "classification": t.classification,
                "inherited_from": t.inherited_from,
                "instantiated": t.instantiated,
                "collected_as": t.collected_as,
                "node_id": t.node_id,
                "imported_from": t.imported_from,
            }
            for t in selection.tests
        ],
        "uncertain": [
            {
                "path": path,
                "reasons": [
                    {
                        "line": r.line,
                        "column": r.column,
                        "kind": r.kind,
                        "class_name": r.class_name,
                        "message": r.message,
                    }
                    for r in reasons
                ],
            }
            for path, reasons in sorted(selection.uncertain.items())
        ],
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def matrix_document(shards: list[Any], root: Path) -> str:
    """`--matrix`: GitHub Actions' `strategy.matrix` (`{"include": [...]}`),
    one entry per runner and shard, paths as `--format pytest` gives them."""
    include = []
    for shard in shards:
        tests = [_here(root, u.path) + (f"::{u.class_name}" if u.class_name else "") for u in shard.units]
        include.append(
            {
                "runner": shard.runner.name,
                "shard": shard.number,
                "shards": shard.runner.shards,
                "device": shard.runner.device,
                "members": list(shard.runner.members),
                "tests": tests,
                "files": sorted({_here(root, u.path) for u in shard.units}),
            }
        )
    return json.dumps({"include": include}, indent=2, ensure_ascii=False) + "\n"
