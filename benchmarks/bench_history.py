"""Benchmark: `hwlint report --history` on a repository whose allowlist
changed in 1,000 commits.

Builds the repository in a second with `git fast-import`: the allowlist
starts at PyTorch's 1,191 files and shrinks by about one file per commit
over 1,000 commits, one a day, with an unrelated commit between each two
(so that git's path filter has work to do), and a few test files. Then it
times

- the history stage alone (`hwlint.allowlist.history.allowlist_history`, in this
  process, best of --repeat runs): it must take less than --bound seconds
  (default 1), else the script exits 1;
- the whole command, `hwlint report --history --format json`, as a user
  runs it (a fresh interpreter, linting included), for information.

    python benchmarks/bench_history.py [--commits 1000] [--entries 1191] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

START = 1_704_067_200  # 2024-01-01T00:00:00Z
DAY = 86_400

TEST_FILE = """\
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class TestBench{n}(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_ok(self):
        pass
"""


def _data(payload: bytes) -> bytes:
    return b"data %d\n" % len(payload) + payload + b"\n"


def fast_import_stream(commits: int, entries: int) -> bytes:
    """A fast-import stream: `commits` allowlist commits, each followed by an
    unrelated one. The list shrinks evenly from `entries` to a tenth of it."""
    paths = [f"test/area{i % 40:02d}/test_file{i:04d}.py" for i in range(entries)]
    paths.sort()
    out: list[bytes] = []
    mark = 0
    final = max(1, entries // 10)
    for index in range(commits):
        size = entries - (entries - final) * index // max(1, commits - 1)
        # The revision line makes every version differ, even where the
        # schedule keeps the size (more commits than files to remove).
        listing = f"# Test files not yet migrated. This list may only shrink.\n# revision {index}\n" + "".join(
            f"{p} 1\n" for p in paths[:size]
        )
        for kind in ("allowlist", "other"):
            mark += 1
            stamp = START + index * DAY + (0 if kind == "allowlist" else DAY // 2)
            out.append(b"commit refs/heads/main\n")
            out.append(b"mark :%d\n" % mark)
            out.append(b"committer Bench <bench@example.com> %d +0000\n" % stamp)
            out.append(_data(f"{kind} change {index}".encode()))
            if mark > 1:
                out.append(b"from :%d\n" % (mark - 1))
            if kind == "allowlist":
                out.append(b"M 100644 inline allowlist.txt\n")
                out.append(_data(listing.encode()))
            else:
                out.append(b"M 100644 inline notes.txt\n")
                out.append(_data(f"note {index}\n".encode()))
    # The tree the report lints: a configuration and a few test files.
    mark += 1
    out.append(b"commit refs/heads/main\nmark :%d\n" % mark)
    out.append(b"committer Bench <bench@example.com> %d +0000\n" % (START + commits * DAY))
    out.append(_data(b"test files"))
    out.append(b"from :%d\n" % (mark - 1))
    out.append(b"M 100644 inline pyproject.toml\n")
    out.append(_data(f"[tool.hwlint]\nbaseline = {entries}\n".encode()))
    for n in range(20):
        out.append(f"M 100644 inline test/area{n:02d}/test_bench{n}.py\n".encode())
        out.append(_data(TEST_FILE.format(n=n).encode()))
    out.append(b"done\n")
    return b"".join(out)


def build(root: Path, commits: int, entries: int) -> float:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}
    started = time.perf_counter()
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True, env=env)
    subprocess.run(
        ["git", "-C", str(root), "fast-import", "--quiet", "--done"],
        input=fast_import_stream(commits, entries),
        check=True,
        env=env,
    )
    subprocess.run(["git", "-C", str(root), "reset", "-q", "--hard", "main"], check=True, env=env)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--commits", type=int, default=1000, help="allowlist commits (default 1000)")
    parser.add_argument("--entries", type=int, default=1191, help="files in the first allowlist (default 1191)")
    parser.add_argument("--repeat", type=int, default=5, help="runs of the history stage; the best counts")
    parser.add_argument("--bound", type=float, default=1.0, help="seconds the history stage must stay under")
    parser.add_argument("--keep", type=Path, default=None, help="build the repository here and keep it")
    args = parser.parse_args()

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from hwlint.allowlist.history import allowlist_history, project_zero

    work = Path(tempfile.mkdtemp(prefix="hwlint-bench-history-"))
    root = args.keep.resolve() if args.keep else work / "repo"
    try:
        if root.exists():
            shutil.rmtree(root)
        built = build(root, args.commits, args.entries)
        print(f"built {args.commits} allowlist commits ({2 * args.commits + 1} in all) in {built:.2f} s: {root}")

        timings, cpu = [], []
        for _ in range(args.repeat):
            # CPU time, this process's and its git children's, does not
            # depend on what else the machine runs; wall time does.
            children = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu_started = time.process_time()
            started = time.perf_counter()
            history = allowlist_history(root, "allowlist.txt")
            timings.append(time.perf_counter() - started)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(
                time.process_time()
                - cpu_started
                + (after.ru_utime - children.ru_utime)
                + (after.ru_stime - children.ru_stime)
            )
        best = min(timings)
        assert len(history) == args.commits, f"expected {args.commits} points, got {len(history)}"
        assert history[0].allowlisted == args.entries, history[0]
        projection = project_zero(history)
        print(
            f"history stage: {best * 1000:.0f} ms best of {args.repeat} (median {sorted(timings)[len(timings) // 2] * 1000:.0f} ms, "
            f"{min(cpu) * 1000:.0f} ms of CPU with git's) "
            f"for {len(history)} points, {history[0].allowlisted} -> {history[-1].allowlisted} files; "
            f"projected zero {projection.date if projection else None}"
        )

        started = time.perf_counter()
        proc = subprocess.run(
            [sys.executable, "-m", "hwlint", "report", "--history", "--format", "json"],
            cwd=root,
            capture_output=True,
            text=True,
        )
        whole = time.perf_counter() - started
        if proc.returncode != 0:
            print(f"hwlint report failed: {proc.stderr.strip()}", file=sys.stderr)
            return 1
        report = json.loads(proc.stdout)
        print(
            f"hwlint report --history --format json: {whole * 1000:.0f} ms end to end "
            f"({report['files_checked']} test files, {len(report['history'])} history points, "
            f"{len(proc.stdout) // 1024} KB of JSON)"
        )
        if best >= args.bound:
            print(f"FAIL: the history stage took {best:.2f} s, the bound is {args.bound:.2f} s", file=sys.stderr)
            return 1
        print(f"OK: under the {args.bound:.2f} s bound")
        return 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
