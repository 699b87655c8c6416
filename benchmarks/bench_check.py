"""Benchmark of `hwlint check` against the upstream design, on a synthetic
tree of the measured shape (benchmarks/corpus/, fixed seed).

    python benchmarks/bench_check.py            # 2,000 files, 5 rounds: ~3 minutes on 2 cores

Measured in one run, the scenarios alternating within each round (so that a
change in the machine's load hits all of them alike), medians over rounds:

- baseline: the design of PyTorch's own TEST_LINTER adapter, written below
  as the peer to beat: a ProcessPoolExecutor with one task per file,
  `ast.parse`, a walk of each class body (garbage collector on, as by
  default); it parses every test file, as hwlint does;
- cold: `hwlint check` with an empty cache (it fills it);
- warm: `hwlint check` again, nothing changed;
- touch 10: `hwlint check` after editing 10 files (a comment appended);
- one file: `hwlint check FILE` (a median-size file, just edited: its facts
  are not cached), next to `python -c "import ast"` (interpreter start-up);
  these two take tens of milliseconds, so each round runs the pair
  --pairs times (default 8), in alternating order; the target is the
  median of the ratios of each pair (runs seconds apart share the
  machine's state: a busy spell slows both, where it would move the
  median of one list and not the other's);
- information only: `check --no-cache`; the upstream adapter as it is (it
  skips allowlisted files: less parsing, no budgets); one file through the
  `hwlint` console script (what pre-commit runs);
- peak memory, in runs of their own: the sum over the process tree (hwlint,
  its workers) of the proportional set size (PSS: a page shared by n
  processes counts 1/n in each), and the largest RSS of a single process,
  sampled every 5 ms.

Every command runs as a user runs it, in a fresh interpreter
(`python -m hwlint ...`), with bytecode caching on (the pyc files go to a
temporary PYTHONPYCACHEPREFIX, and every command runs once before timing).
It prints a table, the ratios, PASS/FAIL per target, and exits 1 if a target
fails. `--json FILE` writes the figures; `--runs`, `--files`, `--out`.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Sequence

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

TARGETS = {
    "cold / baseline": 0.8,
    "warm / cold": 0.05,
    "one file / interpreter start-up": 1.3,
    "peak memory, whole tree (MB)": 150.0,
}


# ---------------------------------------------------------------------------
# The baseline: the design of the upstream TEST_LINTER adapter, written plainly:
# one ProcessPoolExecutor task per file; in the task, read, `ast.parse`,
# collect the statements of the module and of its if/try/with/for/while
# blocks, and for each class with test methods read its declaration, then
# apply the rules of its classification: GENERIC walks the whole class body
# (ast.walk) for accelerator checks, ACCELERATOR looks at each test method's
# parameters and decorators. It parses every file, as hwlint does (the
# upstream adapter skips allowlisted files, and so checks no budgets).

_NESTED = (ast.If, ast.Try, ast.With, ast.For, ast.While)
_ONLY = {
    "onlyCPU",
    "onlyCUDA",
    "onlyMPS",
    "onlyXPU",
    "onlyHPU",
    "onlyPRIVATEUSE1",
    "onlyOn",
    "onlyCUDAAndPRIVATEUSE1",
    "onlyNativeDeviceTypes",
    "onlyNativeDeviceTypesAnd",
}
_DEVICE_MODULES = {"accelerator", "cuda", "hpu", "ipu", "mps", "mtia", "xla", "xpu"}


def _statements(body: list[ast.stmt], out: list[ast.stmt]) -> list[ast.stmt]:
    for stmt in body:
        if isinstance(stmt, _NESTED):
            for part in ("body", "orelse", "finalbody"):
                _statements(getattr(stmt, part, []), out)
            for handler in getattr(stmt, "handlers", []):
                _statements(handler.body, out)
        else:
            out.append(stmt)
    return out


def _classification(node: ast.ClassDef) -> str | None:
    for stmt in node.body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
            target, value = stmt.targets[0], stmt.value
        elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
            target, value = stmt.target, stmt.value
        else:
            continue
        if isinstance(target, ast.Name) and target.id == "hw_classification":
            if (
                isinstance(value, ast.Attribute)
                and isinstance(value.value, ast.Name)
                and value.value.id == "HardwareClassification"
            ):
                return value.attr
            return None
    return None


_SKIPPED: set[str] = set()  # the upstream adapter's allowlist gate (--upstream-as-is)


def _baseline_file(path: str) -> list[tuple[str, int, str]]:
    """One task: the checks of one file."""
    if path in _SKIPPED:
        return []
    try:
        with open(path, encoding="utf-8") as fh:
            source = fh.read()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source, filename=path)
    except (OSError, UnicodeDecodeError, SyntaxError) as exc:
        return [(path, 1, f"cannot parse: {exc}")]
    classes: dict[str, ast.ClassDef] = {}
    instantiated: dict[str, ast.Call] = {}
    for stmt in _statements(tree.body, []):
        if isinstance(stmt, ast.ClassDef) and any(
            isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name.startswith("test") for s in stmt.body
        ):
            classes[stmt.name] = stmt
        elif isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call):
            call = stmt.value
            func = call.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            if name == "instantiate_device_type_tests" and call.args and isinstance(call.args[0], ast.Name):
                instantiated[call.args[0].id] = call
    problems = []
    for name, node in classes.items():
        member = _classification(node)
        if member is None:
            problems.append((path, node.lineno, f"{name}: missing or invalid hw_classification"))
            continue
        tests = [
            s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name.startswith("test")
        ]
        if member in ("GENERIC", "ACCELERATOR"):
            if (name in instantiated) != (member == "ACCELERATOR"):
                problems.append((path, node.lineno, f"{name}: instantiation"))
            for method in tests:
                params = {a.arg for a in method.args.args + method.args.posonlyargs + method.args.kwonlyargs}
                if bool(params & {"device", "devices"}) != (member == "ACCELERATOR"):
                    problems.append((path, method.lineno, f"{name}.{method.name}: device parameter"))
        if member == "GENERIC":
            for stmt in node.body:
                for sub in ast.walk(stmt):
                    if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
                        dotted = ast.unparse(sub.func).split(".")
                        if dotted[0] == "torch" and _DEVICE_MODULES.intersection(dotted):
                            problems.append((path, sub.lineno, f"{name}: accelerator check"))
        elif member == "ACCELERATOR":
            for method in tests:
                for dec in method.decorator_list:
                    target = dec.func if isinstance(dec, ast.Call) else dec
                    label = (
                        target.id
                        if isinstance(target, ast.Name)
                        else target.attr
                        if isinstance(target, ast.Attribute)
                        else None
                    )
                    if label in _ONLY:
                        problems.append((path, method.lineno, f"{name}.{method.name}: @{label}"))
            call = instantiated.get(name)
            if call is not None and any(kw.arg == "only_for" for kw in call.keywords):
                problems.append((path, call.lineno, f"{name}: only_for"))
    return problems


def baseline_main(root: Path, skip_allowlisted: bool = False) -> int:
    files = sorted({str(p) for pattern in ("test_*.py", "*_test.py") for p in (root / "test").rglob(pattern)})
    if skip_allowlisted:
        for line in (root / "allowlist.txt").read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                _SKIPPED.add(str(root / line.split()[0]))
    found = 0
    with ProcessPoolExecutor(max_workers=os.cpu_count()) as pool:
        futures = {pool.submit(_baseline_file, path): path for path in files}
        for future in as_completed(futures):
            for path, line, message in future.result():
                print(json.dumps({"path": os.path.relpath(path, root), "line": line, "description": message}))
                found += 1
    print(f"{found} problems in {len(files)} files", file=sys.stderr)
    return 1 if found else 0


# ---------------------------------------------------------------------------
# Measuring.


class Run:
    def __init__(self, seconds: float, returncode: int, stdout: str) -> None:
        self.seconds = seconds
        self.returncode = returncode
        self.stdout = stdout


def _environment(pycache: Path) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # a user's interpreter caches bytecode
    env.pop("HWLINT_CACHE_DIR", None)
    env.pop("HWLINT_NO_CACHE", None)
    env["PYTHONPYCACHEPREFIX"] = str(pycache)
    env["NO_COLOR"] = "1"
    return env


def timed(cmd: Sequence[str], cwd: Path, env: dict[str, str]) -> Run:
    start = time.perf_counter()
    proc = subprocess.run(list(cmd), cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    return Run(time.perf_counter() - start, proc.returncode, proc.stdout)


def peak_memory(cmd: Sequence[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """(peak PSS summed over the process tree, peak RSS of its largest
    process), in MB, sampled every 5 ms."""
    import psutil

    proc = subprocess.Popen(list(cmd), cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak_total = peak_single = 0
    try:
        root = psutil.Process(proc.pid)
        while proc.poll() is None:
            try:
                procs = [root, *root.children(recursive=True)]
            except psutil.Error:
                break
            total = 0
            for p in procs:
                try:
                    info = p.memory_full_info()
                except psutil.Error:
                    continue
                total += info.pss
                peak_single = max(peak_single, info.rss)
            peak_total = max(peak_total, total)
            time.sleep(0.005)
    finally:
        proc.wait()
    return peak_total / 2**20, peak_single / 2**20


def _edit(path: Path, tag: str) -> bytes:
    original = path.read_bytes()
    path.write_bytes(original + f"# benchmark edit {tag}\n".encode())
    return original


def _median_file(root: Path) -> Path:
    files = sorted((p for p in (root / "test").rglob("test_*.py")), key=lambda p: (p.stat().st_size, str(p)))
    return files[len(files) // 2]


def run(args: argparse.Namespace) -> int:
    import corpus

    work = Path(tempfile.mkdtemp(prefix="hwlint-bench-"))
    root = Path(args.out) if args.out else work / "tree"
    try:
        marker = root / corpus.MARKER
        summary = json.loads(marker.read_text()) if marker.is_file() else {}
        if summary.get("files") != args.files or summary.get("seed") != args.seed:
            print(f"generating {args.files} files (seed {args.seed}) in {root} ...", file=sys.stderr)
            summary = corpus.generate(root, files=args.files, seed=args.seed)
        env = _environment(work / "pycache")
        cache = work / "cache"
        py = sys.executable
        hwlint = [py, "-m", "hwlint", "check", "--cache-dir", str(cache)]
        baseline = [py, str(Path(__file__).resolve()), "--baseline-run", str(root)]
        upstream = baseline + ["--upstream-as-is"]
        one = _median_file(root)
        one_rel = one.relative_to(root).as_posix()
        touch = sorted((root / "test").rglob("test_*.py"))[:: max(1, args.files // 10)][:10]
        startup = [py, "-c", "import ast"]
        # The console script (what pre-commit's `entry: hwlint check` runs):
        # information only (it takes the same path as `python -m hwlint`).
        script = Path(py).parent / "hwlint"
        script_one = [str(script), "check", "--cache-dir", str(cache), one_rel] if script.is_file() else None

        # Warm up: bytecode of hwlint and the standard library, the page cache.
        for cmd in (baseline, hwlint, hwlint + [one_rel], startup):
            timed(cmd, root, env)

        times: dict[str, list[float]] = {
            k: []
            for k in (
                "baseline",
                "cold",
                "warm",
                "touch 10",
                "one file",
                "start-up",
                "cold, --no-cache",
                "upstream as is",
                "one file, script",
            )
        }
        outputs: dict[str, set[str]] = {}

        def record(name: str, result: Run) -> None:
            times[name].append(result.seconds)
            if name in ("cold", "warm", "touch 10", "cold, --no-cache"):
                outputs.setdefault("whole tree", set()).add(result.stdout)

        for round_ in range(args.runs):
            print(f"round {round_ + 1}/{args.runs} ...", file=sys.stderr)
            record("baseline", timed(baseline, root, env))
            shutil.rmtree(cache, ignore_errors=True)
            record("cold", timed(hwlint, root, env))
            record("warm", timed(hwlint, root, env))
            originals = {p: _edit(p, f"{round_}") for p in touch}
            try:
                record("touch 10", timed(hwlint, root, env))
            finally:
                for p, data in originals.items():
                    p.write_bytes(data)
            for pair in range(args.pairs):
                if pair % 2:
                    record("start-up", timed(startup, root, env))
                original = _edit(one, f"one {round_} {pair}")
                try:
                    record("one file", timed(hwlint + [one_rel], root, env))
                finally:
                    one.write_bytes(original)
                if not pair % 2:
                    record("start-up", timed(startup, root, env))
                if script_one is not None and not args.skip_info:
                    original = _edit(one, f"script {round_} {pair}")
                    try:
                        record("one file, script", timed(script_one, root, env))
                    finally:
                        one.write_bytes(original)
            if not args.skip_info:
                record("cold, --no-cache", timed(hwlint + ["--no-cache"], root, env))
                record("upstream as is", timed(upstream, root, env))

        # Peak memory, in runs of their own (sampling costs CPU).
        memory: dict[str, tuple[float, float]] = {}
        memory["baseline"] = peak_memory(baseline, root, env)
        shutil.rmtree(cache, ignore_errors=True)
        memory["cold"] = peak_memory(hwlint, root, env)
        memory["warm"] = peak_memory(hwlint, root, env)
        original = _edit(one, "memory")
        try:
            memory["one file"] = peak_memory(hwlint + [one_rel], root, env)
        finally:
            one.write_bytes(original)
        memory["start-up"] = peak_memory(startup, root, env)
        if not args.skip_info:
            memory["cold, --no-cache"] = peak_memory(hwlint + ["--no-cache"], root, env)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)

    med = {k: statistics.median(v) for k, v in times.items() if v}
    ratios = {
        "cold / baseline": med["cold"] / med["baseline"],
        "warm / cold": med["warm"] / med["cold"],
        "one file / interpreter start-up": statistics.median(
            [a / b for a, b in zip(times["one file"], times["start-up"])]
        ),
        "peak memory, whole tree (MB)": max(memory["cold"][0], memory["warm"][0]),
    }
    cores = os.cpu_count()
    print()
    print(
        f"hwlint check on {args.files:,} files ({summary.get('bytes', 0) / 1e6:.1f} MB, seed {args.seed}), "
        f"{cores} cores, Python {sys.version.split()[0]}, {args.runs} rounds, load average at the end "
        f"{os.getloadavg()[0]:.1f}"
    )
    print()
    print(
        f"| {'run':<18} | {'median s':>9} | {'min s':>7} | {'max s':>7} | {'peak MB (PSS, all processes)':>28} | {'largest process RSS MB':>22} |"
    )
    print(f"|{'-' * 20}|{'-' * 11}|{'-' * 9}|{'-' * 9}|{'-' * 30}|{'-' * 24}|")
    for name, values in times.items():
        if not values:
            continue
        pss, rss = memory.get(name, (float("nan"), float("nan")))
        print(
            f"| {name:<18} | {med[name]:>9.3f} | {min(values):>7.3f} | {max(values):>7.3f} | {pss:>28.1f} | {rss:>22.1f} |"
        )
    print()
    failed = False
    for name, limit in TARGETS.items():
        value = ratios[name]
        ok = value <= limit
        failed |= not ok
        unit = "" if "MB" in name else "×"
        print(f"{'PASS' if ok else 'FAIL'}  {name:<34} {value:8.3f}{unit}  (target ≤ {limit}{unit})")
    print(f"info  touch 10 / cold                    {med['touch 10'] / med['cold']:8.3f}×")
    print(
        f"info  one file / start-up, medians        {med['one file'] / med['start-up']:8.3f}×  "
        "(the ratio of the two lists' medians, not paired)"
    )
    if "one file, script" in med and len(times["one file, script"]) == len(times["start-up"]):
        script = statistics.median([a / b for a, b in zip(times["one file, script"], times["start-up"])])
        print(
            f"info  one file with the `hwlint` script  {script:8.3f}×  "
            "(paired; the console script takes the same click-free path)"
        )
    if "cold, --no-cache" in med:
        print(f"info  cold --no-cache / baseline         {med['cold, --no-cache'] / med['baseline']:8.3f}×")
        print(
            f"info  cold / upstream as is              {med['cold'] / med['upstream as is']:8.3f}×  "
            "(the upstream adapter skips allowlisted files: it parses less and checks no budgets)"
        )
    consistent = len(outputs.get("whole tree", set())) == 1
    print(f"{'PASS' if consistent else 'FAIL'}  cold, warm, touch 10 and --no-cache print the same diagnostics")
    failed |= not consistent
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    "files": args.files,
                    "seed": args.seed,
                    "bytes": summary.get("bytes"),
                    "cores": cores,
                    "python": sys.version.split()[0],
                    "runs": args.runs,
                    "seconds": times,
                    "median": med,
                    "memory_mb": {k: {"pss_total": v[0], "largest_rss": v[1]} for k, v in memory.items()},
                    "ratios": ratios,
                    "targets": TARGETS,
                    "passed": not failed,
                },
                indent=2,
            )
            + "\n"
        )
    return 1 if failed else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--runs", type=int, default=5, help="rounds (medians are taken over them)")
    parser.add_argument(
        "--pairs",
        type=int,
        default=8,
        help="one-file and start-up runs per round, alternating (they are short: many samples)",
    )
    parser.add_argument("--out", help="generate the tree here (reused when it matches --files/--seed)")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (cache, pyc)")
    parser.add_argument(
        "--skip-info",
        action="store_true",
        help="do not time `check --no-cache` and the upstream adapter as is (information only)",
    )
    parser.add_argument("--json", help="also write the figures to this file")
    parser.add_argument("--baseline-run", help=argparse.SUPPRESS)
    parser.add_argument("--upstream-as-is", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.baseline_run:
        return baseline_main(Path(args.baseline_run), skip_allowlisted=args.upstream_as_is)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
