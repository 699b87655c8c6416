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

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Callable, Iterator, NamedTuple

CHILD = Path(__file__).with_name("runtime_child.py")


class RuntimeClass(NamedTuple):
    name: str  # as the module holds it (what unittest and pytest collect)
    classification: str | None  # member name; None when unclassified
    valid: bool  # False: the attribute is not an enum member (PyTorch raises TypeError)
    generic: str | None  # the class instantiate_device_type_tests made it from
    file: str | None  # the root-relative file that defines it; None when outside the root or unknown
    device_type: str | None = None  # instantiate_device_type_tests's device of the class
    tests: tuple[str, ...] = ()  # the test methods unittest collects from it
    skipped: tuple[str, ...] = ()  # those a skip decorator skips on the machine that collected them


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


def collect_module(
    root: Path,
    path: str,
    *,
    python: str,
    attribute: str,
    timeout: float,
    device: str | None = None,
    source: bytes | None = None,
) -> RuntimeModule:
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
                cwd=root,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
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
        return _result(root, path, out, child.returncode, err.decode("utf-8", "replace"))


def _result(root: Path, path: str, out: str, code: int, stderr: str) -> RuntimeModule:
    """What a child wrote to `out` (it ended with exit code `code`,
    negative for a signal, saying `stderr`)."""
    try:
        with open(out, encoding="utf-8") as fh:
            record = json.load(fh)
    except (OSError, ValueError):
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
            RuntimeClass(
                c["name"],
                c["classification"],
                c["valid"],
                c["generic"],
                relative(c["file"]),
                c.get("device_type"),
                tuple(c.get("test_names", ())),
                tuple(c.get("skipped", ())),
            )
            for c in record["classes"]
        )
    except (KeyError, TypeError) as exc:  # a child script of another hwlint version
        return RuntimeModule(path, error=f"unexpected output from {CHILD.name}: {exc!r}")
    return RuntimeModule(path, classes)


class _Server:
    """A `runtime_child.py --serve` process: torch imported once, then each
    module collected in a process forked from it (seconds saved per
    module). Used by `fix --verify-runtime`, which collects every changed
    module twice; `select --runtime` keeps a fresh process per module."""

    def __init__(self, root: Path, python: str, attribute: str) -> None:
        self.root = root
        self.error: str | None = None
        try:
            self.proc: subprocess.Popen[str] | None = subprocess.Popen(
                [python, str(CHILD), "--serve", str(root), attribute],
                cwd=root,
                text=True,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
        except OSError as exc:
            self.proc, self.error = None, f"cannot run {python}: {exc.strerror}"
            return
        with _RUNNING_LOCK:
            _RUNNING.add(self.proc.pid)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            self.close()
            self.error = f"{python} could not start {CHILD.name}"

    def collect(self, path: str, *, timeout: float, device: str | None, source: bytes | None) -> RuntimeModule:
        if self.proc is None or self.proc.stdin is None or self.proc.stdout is None:
            return RuntimeModule(path, error=self.error or "the collection process ended")
        with tempfile.TemporaryDirectory(prefix="hwlint-runtime-") as scratch:
            out, err = os.path.join(scratch, "collected.json"), os.path.join(scratch, "stderr.txt")
            text = None
            if source is not None:
                text = os.path.join(scratch, "source.py")
                Path(text).write_bytes(source)
            job = {
                "rel": path,
                "out": out,
                "devices": device or "cpu",
                "source": text,
                "timeout": timeout,
                "stderr": err,
            }
            try:
                self.proc.stdin.write(json.dumps(job) + "\n")
                self.proc.stdin.flush()
                line = self.proc.stdout.readline()
            except (OSError, ValueError):
                line = ""
            if not line:
                self.close()
                self.error = "the collection process ended"
                return RuntimeModule(path, error=self.error)
            code = os.waitstatus_to_exitcode(json.loads(line)["status"])
            if code == -signal.SIGALRM:
                return RuntimeModule(path, error=f"importing it took longer than {timeout:g} s")
            try:
                stderr = Path(err).read_text(encoding="utf-8", errors="replace")
            except OSError:
                stderr = ""
            return _result(self.root, path, out, code, stderr)

    def close(self) -> None:
        if self.proc is None:
            return
        _end_group(self.proc.pid)
        self.proc.wait()
        with _RUNNING_LOCK:
            _RUNNING.discard(self.proc.pid)
        self.proc = None


def collect_served(
    root: Path,
    paths: list[str],
    *,
    python: str,
    attribute: str,
    timeout: float,
    jobs: int | None = None,
    device: str | None = None,
    sources: dict[str, bytes] | None = None,
) -> dict[str, RuntimeModule]:
    """Like `collect`, each module in a process forked from one that has
    imported torch already (`jobs` of them, default: all cores)."""
    if not paths:
        return {}
    workers = max(1, min(jobs or os.cpu_count() or 1, len(paths)))
    todo = list(reversed(paths))
    lock = threading.Lock()
    found: dict[str, RuntimeModule] = {}

    def work() -> None:
        server = _Server(root, python, attribute)
        try:
            while True:
                with lock:
                    if not todo:
                        return
                    path = todo.pop()
                module = server.collect(path, timeout=timeout, device=device, source=(sources or {}).get(path))
                if server.proc is None and server.error == "the collection process ended":
                    server = _Server(root, python, attribute)  # a fork crashed it: a fresh one for the rest
                with lock:
                    found[path] = module
        finally:
            server.close()

    # The guard inside the pool: children end before the pool waits for its threads.
    with ThreadPoolExecutor(max_workers=workers) as pool, _children_guard():
        futures = [pool.submit(work) for _ in range(workers)]
        try:
            for future in futures:
                future.result()
        except BaseException:
            with lock:
                todo.clear()
            raise
    return {path: found[path] for path in paths if path in found}


@contextlib.contextmanager
def _children_guard() -> Iterator[None]:
    """While the children run: SIGTERM (a CI job cancelled) ends hwlint by
    an exception, and any exception ends every child still running."""
    terminate = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_signal) if terminate else None
    try:
        yield
    except BaseException:
        with _RUNNING_LOCK:
            for pid in _RUNNING:
                _end_group(pid)
        raise
    finally:
        if terminate:
            signal.signal(signal.SIGTERM, previous)


def collect(
    root: Path,
    paths: list[str],
    *,
    python: str,
    attribute: str,
    timeout: float,
    jobs: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    device: str | None = None,
    sources: dict[str, bytes] | None = None,
) -> dict[str, RuntimeModule]:
    """Every module in `paths`, `jobs` children at a time (default: all cores);
    with `device`, as a runner of that device type collects them; a module
    in `sources` as that text."""
    workers = max(1, jobs or os.cpu_count() or 1)
    found: dict[str, RuntimeModule] = {}
    # The guard inside the pool: children end before the pool waits for its threads.
    with ThreadPoolExecutor(max_workers=workers) as pool, _children_guard():
        futures = [
            pool.submit(
                collect_module,
                root,
                path,
                python=python,
                attribute=attribute,
                timeout=timeout,
                device=device,
                source=(sources or {}).get(path),
            )
            for path in paths
        ]
        try:
            for future in futures:
                module = future.result()
                found[module.path] = module
                if progress is not None:
                    progress(1, len(paths))
        except BaseException:
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    return found


def _exit_on_signal(signum: int, frame: object) -> None:
    raise SystemExit(128 + signum)
