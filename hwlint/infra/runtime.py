"""`hwlint select --runtime`: what the runtime collects, module by module.

Each test module is imported in a child process of the project's own
Python (where torch and the tests' dependencies are installed) by
hwlint/infra/runtime_child.py, which collects classes as unittest does and reads
each one's classification as PyTorch's `get_hw_classification` does. A
module that fails to import, crashes its process or runs past the timeout
gives an error instead, and selection falls back to the static view for
it; nothing a child does stops the run.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, NamedTuple

CHILD = Path(__file__).with_name("runtime_child.py")


class RuntimeClass(NamedTuple):
    name: str  # as the module holds it (what unittest and pytest collect)
    classification: str | None  # member name; None when unclassified
    valid: bool  # False: the attribute is not an enum member (PyTorch raises TypeError)
    generic: str | None  # the class instantiate_device_type_tests made it from
    file: str | None  # the root-relative file that defines it; None when outside the root or unknown
    device_type: str | None = None  # instantiate_device_type_tests's device of the class
    tests: tuple[str, ...] = ()  # the test methods unittest collects from it


class RuntimeModule(NamedTuple):
    path: str
    classes: tuple[RuntimeClass, ...] = ()
    error: str | None = None  # why the module could not be collected


def _tail(text: str) -> str:
    """What a crashed child said last: faulthandler's "Fatal Python error"
    line when there is one, else the last line."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    fatal = [line for line in lines if line.startswith("Fatal Python error")]
    return (fatal or lines or [""])[-1][:200]


# Process groups of the children running now, ended if hwlint is
# interrupted: they run in sessions of their own, so neither Ctrl-C nor the
# end of hwlint would reach them.
_RUNNING: set[int] = set()
_RUNNING_LOCK = threading.Lock()


def _end_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def collect_module(root: Path, path: str, *, python: str, attribute: str, timeout: float,
                   device: str | None = None, source: bytes | None = None) -> RuntimeModule:
    """Import `path` (root-relative) in a child process and collect it; with
    `device` (comma-separated device types), as a runner of that device type
    would, whether or not this machine has one
    (runtime_child.add_collection_only_device); with `source`, the module
    as that text (what a fix would write), in the file's place."""
    with tempfile.TemporaryDirectory(prefix="hwlint-runtime-") as scratch:
        out = os.path.join(scratch, "collected.json")
        extra = [device or "cpu"] if device or source is not None else []
        if source is not None:
            text = os.path.join(scratch, "source.py")
            Path(text).write_bytes(source)
            extra.append(text)
        try:
            child = subprocess.Popen(
                [python, str(CHILD), str(root), path, out, attribute, *extra],
                cwd=root, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                start_new_session=True,  # its own process group: a timeout ends its children too
            )
        except OSError as exc:
            return RuntimeModule(path, error=f"cannot run {python}: {exc.strerror}")
        with _RUNNING_LOCK:
            _RUNNING.add(child.pid)
        try:
            _, err = child.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            _end_group(child.pid)
            child.communicate()
            return RuntimeModule(path, error=f"importing it took longer than {timeout:g} s")
        finally:
            # Whatever the module started (worker processes, servers) ends with it.
            _end_group(child.pid)
            with _RUNNING_LOCK:
                _RUNNING.discard(child.pid)
        stderr = err.decode("utf-8", "replace")
        try:
            with open(out, encoding="utf-8") as fh:
                record = json.load(fh)
        except (OSError, ValueError):
            code = child.returncode
            how = f"killed by signal {-code}" if code < 0 else f"exit status {code}"
            detail = _tail(stderr)
            return RuntimeModule(path, error=f"the import crashed ({how})" + (f": {detail}" if detail else ""))
    if not isinstance(record, dict):
        return RuntimeModule(path, error=f"unexpected output from {CHILD.name}")
    if record.get("error"):
        return RuntimeModule(path, error=f"import failed: {record['error']}")
    def relative(file: str | None) -> str | None:
        if not file:
            return None
        rel = os.path.relpath(os.path.realpath(file), os.path.realpath(root))
        return None if rel.startswith("..") else Path(rel).as_posix()

    try:
        classes = tuple(
            RuntimeClass(c["name"], c["classification"], c["valid"], c["generic"], relative(c["file"]),
                         c.get("device_type"), tuple(c.get("test_names", ())))
            for c in record["classes"]
        )
    except (KeyError, TypeError) as exc:  # a child script of another hwlint version
        return RuntimeModule(path, error=f"unexpected output from {CHILD.name}: {exc!r}")
    return RuntimeModule(path, classes)


def collect(root: Path, paths: list[str], *, python: str, attribute: str, timeout: float, jobs: int | None = None,
            progress: Callable[[int, int], None] | None = None, device: str | None = None,
            sources: dict[str, bytes] | None = None) -> dict[str, RuntimeModule]:
    """Every module in `paths`, `jobs` children at a time (default: all cores);
    with `device`, as a runner of that device type collects them; a module
    in `sources` as that text."""
    workers = max(1, jobs or os.cpu_count() or 1)
    found: dict[str, RuntimeModule] = {}
    # SIGTERM (a CI job cancelled) ends hwlint by an exception, so that the children end too.
    terminate = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_signal) if terminate else None
    try:
        with ThreadPoolExecutor(max_workers=workers) as pool:
            futures = [pool.submit(collect_module, root, path, python=python, attribute=attribute, timeout=timeout,
                                   device=device, source=(sources or {}).get(path))
                       for path in paths]
            try:
                for future in futures:
                    module = future.result()
                    found[module.path] = module
                    if progress is not None:
                        progress(1, len(paths))
            except BaseException:
                pool.shutdown(wait=False, cancel_futures=True)
                with _RUNNING_LOCK:
                    for pid in _RUNNING:
                        _end_group(pid)
                raise
    finally:
        if terminate:
            signal.signal(signal.SIGTERM, previous)
    return found


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
