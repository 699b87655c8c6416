"""Collect one test module the way unittest does, in the project's Python.

Run by `hwlint select --runtime` and `hwlint fix --verify-runtime`
(hwlint.infra.runtime) as a script, one process per module: `python
runtime_child.py ROOT PATH OUT ATTRIBUTE [DEVICES [SOURCE]]` (DEVICES: comma-separated,
"cpu" for none; SOURCE: a file whose text is imported as the module at PATH,
in its place: the module as a fix would write it). It imports the
module, finds the `unittest.TestCase` classes among its names that have
test methods (what `unittest.TestLoader.loadTestsFromModule` collects,
imported classes and classes made at run time included), reads each one's
classification, and writes JSON to OUT. Standard library only: the
project's Python need not have hwlint installed.
"""

import faulthandler
import importlib
import importlib.machinery
import importlib.util
import json
import math
import os
import signal
import sys
import unittest
from typing import Any


def _classification(cls: type, attribute: str) -> "tuple[str | None, bool]":
    """(member name or None, valid). PyTorch's own get_hw_classification
    when the module uses PyTorch's helpers (a plain getattr, so inheritance
    counts); the same getattr otherwise."""
    helpers = sys.modules.get("torch.testing._internal.common_utils")
    get = getattr(helpers, "get_hw_classification", None) if attribute == "hw_classification" else None
    try:
        value = get(cls) if get is not None else getattr(cls, attribute, None)
    except TypeError:  # PyTorch's: not a HardwareClassification
        return repr(getattr(cls, attribute, None))[:80], False
    if value is None:
        return None, True
    name = getattr(value, "name", None)
    return (name, True) if isinstance(name, str) else (repr(value)[:80], False)


def add_collection_only_device(device: str) -> None:
    """Make `instantiate_device_type_tests` create the classes of `device`
    although this machine lacks it, so that a CPU machine sees what a CUDA or
    XPU runner collects. The device's test base joins PyTorch's list of
    device test bases, as a `TORCH_TEST_DEVICES` file does, with a
    `setUpClass` that skips: the classes are collected, never run. XPU and
    MPS stay behind `allow_xpu`/`allow_mps` as on their runners: the base
    is what PyTorch adds when the device is there (TEST_XPU, TEST_MPS). A
    machine that has the device, or a project without PyTorch's helpers,
    is left as it is."""
    try:
        # By name: the project's Python has torch, hwlint's type checker need not.
        cdt = importlib.import_module("torch.testing._internal.common_device_type")
    except Exception:  # no torch, or its helpers fail here: the module's own import will say so
        return
    bases = cdt.device_type_test_bases
    if any(getattr(base, "device_type", None) == device for base in bases):
        return

    def collection_only(parent: type) -> type:
        def skip(cls: type) -> None:
            raise unittest.SkipTest("hwlint: collection only, the machine has no " + device)

        def primary(cls: type) -> str:
            return device + ":0"

        # PyTorch asks the base for its primary device while it makes the
        # classes (the real bases learn it in setUpClass, which must skip here).
        return type(
            "CollectOnly" + device.upper() + "TestBase",
            (parent,),
            {"device_type": device, "setUpClass": classmethod(skip), "get_primary_device": classmethod(primary)},
        )

    gated = {"xpu": ("TEST_XPU", "XPUTestBase"), "mps": ("TEST_MPS", "MPSTestBase")}
    if device in gated and hasattr(cdt, gated[device][1]):
        flag, name = gated[device]
        setattr(cdt, name, collection_only(getattr(cdt, name)))
        setattr(cdt, flag, True)
        return
    parent = cdt.CUDATestBase if device == "cuda" else cdt.DeviceTypeTestBase
    bases.append(collection_only(parent))


class _SourceLoader(importlib.machinery.SourceFileLoader):
    """Loads the module at its own path (so that `__file__`, relative
    imports and tracebacks are the module's) from another text, compiled
    afresh: no bytecode of the file on disk is read, none written."""

    def __init__(self, fullname: str, path: str, text: bytes) -> None:
        super().__init__(fullname, path)
        self.text = text

    def get_code(self, fullname: str) -> Any:
        return compile(self.text, self.path, "exec", dont_inherit=True)


def _import(name: str, path: str, source: "str | None") -> Any:
    if source is None:
        return importlib.import_module(name)
    with open(source, "rb") as fh:
        text = fh.read()
    parent = name.rpartition(".")[0]
    if parent:
        importlib.import_module(parent)
    loader = _SourceLoader(name, path, text)
    spec = importlib.util.spec_from_file_location(name, path, loader=loader)
    if spec is None:
        raise ImportError(f"cannot import {name} from {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    try:
        loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def collect(root: str, rel: str, attribute: str, source: "str | None" = None) -> dict[str, Any]:
    path = os.path.abspath(os.path.join(root, rel))
    # As pytest imports it (its default "prepend" mode): inside a package
    # (folders with __init__.py) by its dotted name, from the folder above
    # the package, so that relative imports work. Then its own folder and
    # those above it up to the root, as `python test/foo/test_x.py` and
    # hwlint's resolver see sibling modules.
    parts = [os.path.splitext(os.path.basename(path))[0]]
    base = os.path.dirname(path)
    while os.path.isfile(os.path.join(base, "__init__.py")) and os.path.dirname(base) != base:
        parts.insert(0, os.path.basename(base))
        base = os.path.dirname(base)
    folders = [base]
    folder = os.path.dirname(path)
    top = os.path.abspath(root)
    while True:
        if folder not in folders:
            folders.append(folder)
        if folder == top or os.path.dirname(folder) == folder:
            break
        folder = os.path.dirname(folder)
    sys.path[:0] = folders
    sys.argv = [path]  # PyTorch's common_utils parses sys.argv when imported
    try:
        module = _import(".".join(parts), path, source)
    except BaseException as exc:  # SystemExit and unittest.SkipTest at import included
        text = str(exc).strip().splitlines()
        return {"classes": [], "error": f"{type(exc).__name__}: {text[0] if text else ''}".rstrip(": ")}
    loader = unittest.TestLoader()
    classes = []
    for attr in dir(module):
        obj = getattr(module, attr, None)
        if not (isinstance(obj, type) and issubclass(obj, unittest.TestCase)):
            continue
        names = loader.getTestCaseNames(obj)
        if not names and not hasattr(obj, "runTest"):
            continue
        member, valid = _classification(obj, attribute)
        device_type = getattr(obj, "device_type", None)
        # instantiate_device_type_tests names a class <Generic><DEVICE> and
        # derives it from the generic class (and the device's test base).
        generic = None
        if isinstance(device_type, str) and attr.endswith(device_type.upper()):
            stem = attr[: -len(device_type)]
            if any(base.__name__ == stem for base in obj.__mro__[1:]):
                generic = stem
        classes.append(
            {
                "name": attr,
                "classification": member,
                "valid": valid,
                "generic": generic,
                "device_type": device_type if isinstance(device_type, str) else None,
                "file": getattr(sys.modules.get(getattr(obj, "__module__", "")), "__file__", None),
                "tests": len(names),
                "test_names": list(names),
                # Skipped on this machine as imported (`@skipIf(not TEST_CUDA, ...)`,
                # on the test or its class): what a skip in its body says is not seen.
                "skipped": [n for n in names if _skipped(obj, n)],
            }
        )
    return {"classes": classes, "error": None}


def _skipped(cls: type, name: str) -> bool:
    """Whether unittest skips test `name` of `cls` before it runs (a skip decorator's mark)."""
    return bool(
        getattr(cls, "__unittest_skip__", False) or getattr(getattr(cls, name, None), "__unittest_skip__", False)
    )


def _job(root: str, rel: str, out: str, attribute: str, devices: str, source: "str | None") -> None:
    for device in devices.split(","):
        if device and device != "cpu":
            add_collection_only_device(device)
    record = collect(root, rel, attribute, source)
    with open(out, "w", encoding="utf-8") as fh:
        json.dump(record, fh)
    # Skip interpreter teardown: atexit handlers and threads of test helpers
    # (process groups, CUDA) can hang or crash after the work is done.
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def serve(root: str, attribute: str) -> None:
    """`runtime_child.py --serve ROOT ATTRIBUTE`: import torch's test helpers
    once, then collect one module per line of stdin (JSON: rel, out,
    devices, source, timeout, stderr), each in a process forked from this
    one, so that torch's import (seconds) is paid once, not per module.
    Each fork has the state this process had before any module was
    imported; a line on stdout says when it ended (its wait status)."""
    channel = os.fdopen(os.dup(1), "w", buffering=1)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 1)  # what modules print must not reach the channel
    sys.argv = [os.path.abspath(__file__)]  # common_utils parses sys.argv when imported
    for name in ("torch", "torch.testing._internal.common_utils", "torch.testing._internal.common_device_type"):
        try:
            importlib.import_module(name)
        except BaseException:  # the module's own import will say what fails
            break
    channel.write("ready\n")
    for line in sys.stdin:
        job = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                err = os.open(job["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                os.dup2(err, 2)
                faulthandler.enable()
                signal.alarm(max(1, math.ceil(job["timeout"])))  # the default action ends the process
                _job(root, job["rel"], job["out"], attribute, job["devices"], job["source"])
            finally:
                os._exit(1)
        _, status = os.waitpid(pid, 0)
        channel.write(json.dumps({"status": status}) + "\n")


def main() -> None:
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2], sys.argv[3])
        return
    faulthandler.enable()  # a crash says what it was on stderr, which hwlint reports
    root, rel, out, attribute = sys.argv[1:5]
    _job(
        root, rel, out, attribute, sys.argv[5] if len(sys.argv) > 5 else "", sys.argv[6] if len(sys.argv) > 6 else None
    )


if __name__ == "__main__":
    main()
