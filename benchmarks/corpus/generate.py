"""The driver: the tree written to disk with its ground truth, and its
statistics against the targets."""

from __future__ import annotations

import json
import math
import shutil
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .render import common_file, render_file
from .shape import (
    DECORATOR_COUNTS,
    DIRS,
    MEASURED_FILES,
    MEASURED_METHODS,
    TARGET_CLASSES_PER_FILE,
    TARGET_DEVICE_METHOD_FRACTION,
    TARGET_NO_CLASS_FRACTION,
    TARGET_TOTAL_BYTES_PER_FILE,
    TARGET_UNCLASSIFIED_CLASS_FRACTION,
    TARGETS,
    dir_stem,
    plan_tree,
)

MARKER = ".hwlint-corpus.json"

# ---------------------------------------------------------------------------
# Driver and statistics.
# ---------------------------------------------------------------------------


def percentile(values: Sequence[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100); max for p = 100."""
    if not values:
        return 0
    v = sorted(values)
    k = max(0, math.ceil(p / 100 * len(v)) - 1)
    return v[k]


def percentiles(values: Sequence[float]) -> dict[str, float]:
    return {
        "p50": percentile(values, 50),
        "p90": percentile(values, 90),
        "p99": percentile(values, 99),
        "max": max(values) if values else 0,
    }


def _prepare(out_dir: Path) -> None:
    # Refuse to clobber a directory we did not create; regenerate one we did.
    if out_dir.exists() and any(out_dir.iterdir()):
        if not (out_dir / MARKER).is_file():
            raise FileExistsError(f"{out_dir} is not empty and holds no {MARKER}; refusing to overwrite it")
        for name in ("test",):
            if (out_dir / name).exists():
                shutil.rmtree(out_dir / name)
        for name in ("allowlist.txt", "pyproject.toml", MARKER):
            if (out_dir / name).exists():
                (out_dir / name).unlink()
    out_dir.mkdir(parents=True, exist_ok=True)


def generate(out_dir: Path, files: int = 2000, seed: int = 0) -> dict[str, Any]:
    """Write the tree under `out_dir` and return its summary statistics.

    Deterministic: the same `files` and `seed` give byte-identical output.
    """
    t0 = time.perf_counter()
    out_dir = Path(out_dir)
    _prepare(out_dir)
    plans, probs = plan_tree(files, seed)

    sizes: list[int] = []
    lines_per_file: list[int] = []
    class_counts: list[int] = []
    methods: list[int] = []
    by_class: dict[str, int] = {}
    decorators: dict[str, int] = {}
    device_tests = 0
    allow: list[tuple[str, int]] = []
    inst_calls = 0
    inst_files = 0
    dirs_written: set[str] = set()
    common_dirs: list[str] = []
    for p in plans:
        text, w = render_file(p, probs)
        path = out_dir / p.relpath
        if p.directory not in dirs_written:
            path.parent.mkdir(parents=True, exist_ok=True)
            dirs_written.add(p.directory)
        data = text.encode("utf-8")
        path.write_bytes(data)
        sizes.append(len(data))
        lines_per_file.append(text.count("\n"))
        class_counts.append(len(p.classes))
        for c in p.classes:
            methods.append(c.tests)
            key = c.classification or "unclassified"
            by_class[key] = by_class.get(key, 0) + 1
        for k, v in w.counts.items():
            decorators[k] = decorators.get(k, 0) + v
        device_tests += w.device_tests
        n_inst = sum(1 for c in p.classes if c.device)
        inst_calls += n_inst
        inst_files += 1 if n_inst else 0
        unclassified = sum(1 for c in p.classes if c.classification is None)
        if unclassified:
            allow.append((p.relpath, unclassified))

    # Sibling base modules, for every directory that has one (importers or not:
    # real trees keep them regardless).
    for d, _, has_common, _ in DIRS:
        if has_common and d in dirs_written:
            (out_dir / d / f"common_{dir_stem(d)}.py").write_text(common_file(d), encoding="utf-8", newline="\n")
            common_dirs.append(d)

    allow.sort()
    with open(out_dir / "allowlist.txt", "w", encoding="utf-8", newline="\n") as f:
        f.write("# Test files not yet migrated to hw_classification. This list may only shrink.\n")
        f.write("# <path> <violations allowed>\n")
        for path_, n in allow:
            f.write(f"{path_} {n}\n")
    with open(out_dir / "pyproject.toml", "w", encoding="utf-8", newline="\n") as f:
        f.write(f"[tool.hwlint]\nbaseline = {len(allow)}\n")

    total_methods = sum(methods)
    summary: dict[str, Any] = {
        "files": files,
        "seed": seed,
        "bytes": sum(sizes),
        "lines": sum(lines_per_file),
        "directories": len(dirs_written),
        "common_files": [f"{d}/common_{dir_stem(d)}.py" for d in common_dirs],
        "classes": sum(class_counts),
        "files_without_classes": sum(1 for c in class_counts if c == 0),
        "methods": total_methods,
        "classes_by_classification": dict(sorted(by_class.items())),
        "allowlisted_files": len(allow),
        "allowlisted_violations": sum(n for _, n in allow),
        "device_methods": device_tests,
        "device_method_fraction": round(device_tests / max(1, total_methods), 4),
        "instantiating_files": inst_files,
        "instantiate_calls": inst_calls,
        "decorators": dict(sorted(decorators.items(), key=lambda kv: -kv[1])),
        "size": percentiles(sizes),
        "lines_per_file": percentiles(lines_per_file),
        "classes_per_file": percentiles(class_counts),
        "methods_per_class": percentiles(methods),
        "syntax_error_files": sorted(p.relpath for p in plans if p.syntax_error),
        "invalid_escape_files": sorted(p.relpath for p in plans if p.invalid_escape),
    }
    (out_dir / MARKER).write_text(json.dumps(summary, indent=2) + "\n", encoding="utf-8")
    summary["elapsed_seconds"] = round(time.perf_counter() - t0, 2)
    return summary


def compare(summary: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Measured vs target percentiles, with the relative error of each."""
    keys = {
        "size": "size",
        "lines": "lines_per_file",
        "classes_per_file": "classes_per_file",
        "methods_per_class": "methods_per_class",
    }
    out: dict[str, dict[str, Any]] = {}
    for tk, sk in keys.items():
        row = {}
        for p, target in TARGETS[tk].items():
            got = summary[sk][p]
            row[p] = {"target": target, "got": got, "error": round((got - target) / target, 3)}
        out[tk] = row
    scale = summary["files"] / MEASURED_FILES
    method_scale = summary["methods"] / MEASURED_METHODS
    out["totals"] = {
        "bytes": {"target": round(TARGET_TOTAL_BYTES_PER_FILE * summary["files"]), "got": summary["bytes"]},
        "classes": {"target": round(TARGET_CLASSES_PER_FILE * summary["files"]), "got": summary["classes"]},
        "files_without_classes": {
            "target": round(TARGET_NO_CLASS_FRACTION * summary["files"]),
            "got": summary["files_without_classes"],
        },
        "methods": {"target": round(MEASURED_METHODS * scale), "got": summary["methods"]},
        "device_method_fraction": {"target": TARGET_DEVICE_METHOD_FRACTION, "got": summary["device_method_fraction"]},
        "instantiating_files": {"target": round(203 * scale), "got": summary["instantiating_files"]},
        "instantiate_calls": {"target": round(424 * scale), "got": summary["instantiate_calls"]},
        "unclassified_fraction": {
            "target": TARGET_UNCLASSIFIED_CLASS_FRACTION,
            "got": round(summary["classes_by_classification"].get("unclassified", 0) / max(1, summary["classes"]), 3),
        },
    }
    out["decorators"] = {
        k: {"target": round(v * method_scale), "got": summary["decorators"].get(k, 0)}
        for k, v in DECORATOR_COUNTS.items()
    }
    return out
