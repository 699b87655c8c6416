"""Benchmark of `hwlint server` where people wait: the time from an edit in
the editor to its diagnostics, and the server's memory, on a project made
of real trees (issue 34), against the interpreter's start-up measured in
the same run (what any one-file `hwlint check` pays first).

    python benchmarks/bench_server.py                   # the four trees in /tmp/ft_*
    python benchmarks/bench_server.py --tree A --tree B # other trees
    python benchmarks/bench_server.py --file REL        # the file to edit (default: the median-size test file)

The trees are copied side by side into one folder with a pyproject whose
`[tool.hwlint] include` covers each tree's tests, and checked once (the
cache warm, as on a contributor's machine). The server is started over
stdio with pygls' client, a test file is opened, and `--changes` edits
(default 50: a comment line appended, incremental sync) are sent one at a
time, each timed from the moment it is sent to the diagnostics of that
version. Printed: the median and p90 change-to-diagnostics latency (ms),
the open-to-diagnostics time of the first open, the server's resident
memory after the edits (psutil), and `python -c pass` (median of
--startup-runs). Targets: median <= 50 ms, RSS <= 200 MB; exits 1 if one
is missed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

TREES = ("/tmp/ft_ascend", "/tmp/ft_xpu-ops", "/tmp/ft_ipex", "/tmp/ft_xla")
TARGET_MEDIAN_MS = 50.0
TARGET_RSS_MB = 200.0


def prepare(work: Path, trees: list[Path]) -> Path:
    """One project of the trees, each under its own name, the cache warm."""
    root = work / "project"
    root.mkdir(parents=True)
    include = []
    for tree in trees:
        name = tree.name.removeprefix("ft_")
        shutil.copytree(tree, root / name, symlinks=True, ignore=shutil.ignore_patterns(".git", "__pycache__"))
        include += [f"{name}/test/**/test_*.py", f"{name}/test/**/*_test.py"]
    (root / "pyproject.toml").write_text("[tool.hwlint]\ninclude = " + json.dumps(include) + "\n")
    subprocess.run([sys.executable, "-m", "hwlint", "check", "--exit-zero"], cwd=root, check=True, capture_output=True)
    return root


def median_file(root: Path) -> str:
    """The median-size test file of the project (by bytes; `include`'s patterns)."""
    files = sorted(
        {
            p.relative_to(root).as_posix()
            for pattern in ("*/test/**/test_*.py", "*/test/**/*_test.py")
            for p in root.glob(pattern)
        }
    )
    files.sort(key=lambda rel: (root / rel).stat().st_size)
    return files[len(files) // 2]


def startup_seconds(runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", "pass"], check=True)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


async def measure(root: Path, rel: str, changes: int) -> dict[str, float]:
    import psutil
    from lsprotocol import types
    from pygls.lsp.client import LanguageClient

    client = LanguageClient("bench", "1")
    arrived: dict[int | None, float] = {}
    event = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def diagnostics(params: types.PublishDiagnosticsParams) -> None:
        if params.uri == uri:
            arrived[params.version] = time.perf_counter()
            event.set()

    async def version(n: int) -> float:
        while n not in arrived:
            event.clear()
            await asyncio.wait_for(event.wait(), 60)
        return arrived[n]

    path = root / rel
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8", errors="replace")
    await client.start_io(sys.executable, "-m", "hwlint", "server", cwd=str(root))
    capabilities = types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)
        )
    )
    await client.initialize_async(types.InitializeParams(capabilities=capabilities, root_uri=root.as_uri()))
    client.initialized(types.InitializedParams())
    sent = time.perf_counter()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    )
    first_open = await version(1) - sent
    lines = text.splitlines(keepends=True)
    end_line = len(lines) if not lines or lines[-1].endswith("\n") else len(lines) - 1
    latencies = []
    for i in range(changes):
        at = types.Position(end_line + i, 0)
        change = types.TextDocumentContentChangePartial(range=types.Range(at, at), text=f"# edit {i}\n")
        sent = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(types.VersionedTextDocumentIdentifier(uri=uri, version=i + 2), [change])
        )
        latencies.append(await version(i + 2) - sent)
    process = client._server
    rss = psutil.Process(process.pid).memory_info().rss / 2**20 if process is not None else float("nan")
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    latencies.sort()
    return {
        "median_ms": statistics.median(latencies) * 1000,
        "p90_ms": latencies[min(len(latencies) - 1, int(round(0.9 * (len(latencies) - 1))))] * 1000,
        "first_open_ms": first_open * 1000,
        "rss_mb": rss,
        "changes": changes,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", type=Path, help="a tree to include (default: the four /tmp/ft_*)")
    parser.add_argument("--file", help="the file to edit, relative to the project (default: the median-size test file)")
    parser.add_argument("--changes", type=int, default=50)
    parser.add_argument("--startup-runs", type=int, default=10)
    parser.add_argument("--keep", type=Path, help="build the project here and keep it")
    args = parser.parse_args()
    trees = args.tree or [Path(t) for t in TREES]
    missing = [str(t) for t in trees if not t.is_dir()]
    if missing:
        print(f"bench_server: no tree at {', '.join(missing)}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="hwlint-bench-server-") as temp:
        work = args.keep or Path(temp)
        if args.keep is not None and (work / "project").exists():
            shutil.rmtree(work / "project")
        root = prepare(work, trees)
        rel = args.file or median_file(root)
        found = asyncio.run(measure(root, rel, args.changes))
        files = len(list(root.glob("*/test/**/*.py")))
    start_up = startup_seconds(args.startup_runs)
    found.update({"file": rel, "python_files": files, "startup_ms": start_up * 1000})
    print(json.dumps(found, indent=2, sort_keys=True))
    print(
        f"edit -> diagnostics: median {found['median_ms']:.1f} ms, p90 {found['p90_ms']:.1f} ms "
        f"over {args.changes} changes of {rel} ({found['median_ms'] / found['startup_ms']:.2f}x `python -c pass`, "
        f"{found['startup_ms']:.1f} ms); first open {found['first_open_ms']:.0f} ms; "
        f"server RSS {found['rss_mb']:.1f} MB"
    )
    ok = found["median_ms"] <= TARGET_MEDIAN_MS and found["rss_mb"] <= TARGET_RSS_MB
    print(f"targets: median <= {TARGET_MEDIAN_MS:.0f} ms, RSS <= {TARGET_RSS_MB:.0f} MB: {'met' if ok else 'MISSED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
