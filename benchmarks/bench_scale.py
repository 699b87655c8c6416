"""How `hwlint check` scales: the synthetic tree (benchmarks/corpus/) at 1×,
2×, 5× and 10× (2,000 to 20,000 files), cold (empty cache) and warm, time
and peak memory.

    python benchmarks/bench_scale.py        # ~15 minutes on 2 cores (generating the trees is ~2 of them)

Per size: the cold run (median of --runs), the warm run (median of 3), and,
in a run of its own, the peak memory (PSS summed over hwlint and its
workers, sampled every 5 ms; see bench_check.py). The table also gives the
time per 1,000 files, which stays the same when time grows linearly, and
the peak memory relative to 1×. Trees are generated in a temporary folder,
or under --out (kept, and reused when they match).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import bench_check  # noqa: E402
import corpus  # noqa: E402


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=2000, help="the 1× size")
    parser.add_argument("--scales", default="1,2,5,10")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=2, help="cold runs per size (median)")
    parser.add_argument("--out", help="generate the trees under this folder (kept)")
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)

    work = Path(tempfile.mkdtemp(prefix="hwlint-scale-"))
    base = Path(args.out) if args.out else work / "trees"
    env = bench_check._environment(work / "pycache")
    rows = []
    try:
        for scale in (int(s) for s in args.scales.split(",")):
            files = args.files * scale
            root = base / f"tree-{files}"
            marker = root / corpus.MARKER
            summary = json.loads(marker.read_text()) if marker.is_file() else {}
            if summary.get("files") != files or summary.get("seed") != args.seed:
                print(f"generating {files} files ...", file=sys.stderr)
                summary = corpus.generate(root, files=files, seed=args.seed)
            cache = work / f"cache-{files}"
            hwlint = [sys.executable, "-m", "hwlint", "check", "--cache-dir", str(cache)]
            bench_check.timed(hwlint + ["--no-cache"], root, env)  # bytecode, page cache
            print(f"{files} files: cold ...", file=sys.stderr)
            cold = []
            for _ in range(args.runs):
                shutil.rmtree(cache, ignore_errors=True)
                cold.append(bench_check.timed(hwlint, root, env).seconds)
            warm = [bench_check.timed(hwlint, root, env).seconds for _ in range(3)]
            print(f"{files} files: memory ...", file=sys.stderr)
            shutil.rmtree(cache, ignore_errors=True)
            pss, largest = bench_check.peak_memory(hwlint, root, env)
            warm_pss, _ = bench_check.peak_memory(hwlint, root, env)
            rows.append(
                {
                    "scale": scale,
                    "files": files,
                    "mb": summary["bytes"] / 1e6,
                    "cold_s": statistics.median(cold),
                    "warm_s": statistics.median(warm),
                    "peak_mb": pss,
                    "largest_process_mb": largest,
                    "warm_peak_mb": warm_pss,
                }
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)

    first = rows[0]
    print()
    print(
        "| scale | files | source MB | cold s | cold s / 1,000 files | warm s | peak MB (PSS, all processes) | peak vs 1× | warm peak MB |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['scale']}× | {r['files']:,} | {r['mb']:.0f} | {r['cold_s']:.1f} | {r['cold_s'] / r['files'] * 1000:.2f} | "
            f"{r['warm_s']:.2f} | {r['peak_mb']:.0f} | {r['peak_mb'] / first['peak_mb']:.2f}× | {r['warm_peak_mb']:.0f} |"
        )
    last = rows[-1]
    per_file = [r["cold_s"] / r["files"] for r in rows]
    print()
    print(
        f"time: {last['files'] / first['files']:.0f}× the files took {last['cold_s'] / first['cold_s']:.1f}× as long "
        f"(per file: {min(per_file) * 1e3:.2f}-{max(per_file) * 1e3:.2f} ms); "
        f"peak memory: {last['peak_mb'] / first['peak_mb']:.2f}× at {last['files'] / first['files']:.0f}× the files"
    )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
