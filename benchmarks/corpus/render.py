"""A planned file rendered: methods, classes, the import header, and the
shared `common` modules."""

from __future__ import annotations

import random

from .shape import OWNERS, WORDS, ClassPlan, FilePlan, Probabilities, camel_case, dir_stem, unique_name
from .text import DEVICE_SKIPS, DTYPES, GENERIC_SKIPS, PATCHES, Ctx, Writer, wrap_line, write_docstring, write_statement


def _body(rng: random.Random, ctx: Ctx, ind: str, budget: int) -> list[str]:
    out: list[str] = []
    size = 0
    while True:
        start = len(out)
        write_statement(rng, ctx, ind, out)
        # Blank lines between logical steps, as people write them.
        if rng.random() < 0.27:
            out.append("")
        # Long calls are wrapped the way black/ruff format them.
        for i in range(start, len(out)):
            if len(out[i]) > 88:
                out[i : i + 1] = wrap_line(out[i])
        size += sum(len(s) + 1 for s in out[start:])
        if size >= budget:
            while out and out[-1] == "":
                out.pop()
            return out


def _method(w: Writer, cls: ClassPlan, name: str, budget: int, probs: Probabilities, escape: bool) -> None:
    rng = w.rng
    decorators: list[str] = []
    params = ["self"]
    dtype = False
    device = cls.device
    if device:
        params.append("device")
        w.device_tests += 1
        only = None
        if cls.classification != "ACCELERATOR":
            r = rng.random()
            if cls.classification == "CPU":
                only = "onlyCPU" if r < probs.only["onlyCPU"] else None
            elif cls.classification == "CUDA":
                only = "onlyCUDA" if r < probs.only["onlyCUDA"] else None
            else:  # unclassified: any of them, exclusively
                acc = 0.0
                for k, p in probs.only.items():
                    acc += p
                    if r < acc:
                        only = k
                        break
        if only:
            decorators.append(f"@{only}")
            w.use(only)
            w.count(only)
        # A migrated ACCELERATOR class does not use it (HWC103, as
        # TEST_LINTER): only the others do. The draw is made either way, so
        # that the rest of a seed's tree stays as it was.
        if rng.random() < probs.device["onlyNativeDeviceTypes"] and cls.classification != "ACCELERATOR":
            decorators.append("@onlyNativeDeviceTypes")
            w.use("onlyNativeDeviceTypes")
            w.count("onlyNativeDeviceTypes")
        if rng.random() < probs.device["largeTensorTest"]:
            decorators.append(f'@largeTensorTest("{rng.choice(["4GB", "8GB", "12GB", "24GB"])}")')
            w.use("largeTensorTest")
            w.count("largeTensorTest")
        if rng.random() < probs.device["ops"]:
            decorators.append(
                rng.choice(
                    [
                        "@ops(op_db, dtypes=OpDTypes.supported)",
                        "@ops([op for op in op_db if op.supports_autograd], allowed_dtypes=(torch.float, torch.double))",
                        "@ops(unary_ufuncs)",
                    ]
                )
            )
            params += ["dtype", "op"]
            dtype = True
            w.use("ops", "op_db")
            w.count("ops")
        elif rng.random() < probs.device["dtypes"]:
            decorators.append(f"@dtypes({', '.join(rng.sample(DTYPES, rng.randint(1, 4)))})")
            w.use("dtypes")
            w.count("dtypes")
            if rng.random() < probs.device["dtypesIfCUDA"]:
                decorators.append(f"@dtypesIfCUDA({', '.join(rng.sample(DTYPES, rng.randint(1, 4)))})")
                w.use("dtypesIfCUDA")
                w.count("dtypesIfCUDA")
            params.append("dtype")
            dtype = True
    if rng.random() < probs.generic["skipIf"]:
        cond = rng.choice(DEVICE_SKIPS if (device or cls.classification is None) else GENERIC_SKIPS)
        decorators.insert(0, f"@unittest.skipIf({cond})")
        w.use("unittest")
        for flag in ("TEST_CUDA", "IS_WINDOWS", "IS_MACOS", "TEST_WITH_ROCM", "TEST_SCIPY", "TEST_NUMPY"):
            if flag in cond:
                w.use(flag)
        if "sys." in cond:
            w.use("sys")
        w.count("skipIf")
    if rng.random() < probs.generic["skipIfTorchDynamo"]:
        reason = rng.choice(
            [
                "Not a suitable test for TorchDynamo",
                "Fails under dynamo",
                f"https://github.com/pytorch/pytorch/issues/{rng.randint(90000, 160000)}",
            ]
        )
        decorators.insert(0, f'@skipIfTorchDynamo("{reason}")')
        w.use("skipIfTorchDynamo")
        w.count("skipIfTorchDynamo")
    if rng.random() < probs.generic["patch"]:
        deco = rng.choice(PATCHES).format(w=rng.choice(WORDS))
        decorators.insert(0, deco)
        w.use("mock" if "mock." in deco else "patch")
        if "os.environ" in deco:
            w.use("os")
        if "return_value" in deco and "mock." in deco:
            pass  # mock.patch with a new value passes no extra argument
        w.count("patch")
    if rng.random() < probs.generic["parametrize"]:
        pname = rng.choice(["n", "size", "inplace", "use_bias", "reduction", "dim", "batch_first"])
        values = {
            "n": "[1, 2, 4]",
            "size": "[0, 1, 16, 1023]",
            "inplace": "[True, False]",
            "use_bias": "[True, False]",
            "reduction": '["mean", "sum", "none"]',
            "dim": "[0, 1, -1]",
            "batch_first": "[True, False]",
        }[pname]
        decorators.append(f'@parametrize("{pname}", {values})')
        params.append(pname)
        w.use("parametrize")
        w.count("parametrize")
        if not device and cls.name not in w.parametrized:
            w.parametrized.append(cls.name)
    ind = "        " if cls.wrapper else "    "
    for d in decorators:
        w.emit(ind + d)
    w.emit(f"{ind}def {name}({', '.join(params)}):")
    if rng.random() < 0.2:
        doc: list[str] = []
        write_docstring(rng, ind + "    ", doc)
        for line in doc:
            w.emit(line)
    ctx = Ctx(device=device, dtype=dtype, cuda_ok=cls.classification != "GENERIC", vars=[])
    body = _body(rng, ctx, ind + "    ", max(1, budget))
    if escape:
        # The deliberate invalid escape: a plain string with "\d" (a
        # DeprecationWarning in 3.11, SyntaxWarning from 3.12).
        var = ctx.vars[0] if ctx.vars else "x"
        body.insert(0, f'{ind}    self.assertRegex(str({var}.shape), "torch.Size\\(\\[\\d+")')
    for line in body:
        w.emit(line)
    w.emit("")
    if ctx.make_tensor:
        w.use("make_tensor")


def _helpers(w: Writer, cls: ClassPlan, ind: str) -> None:
    rng = w.rng
    if rng.random() < 0.15:
        w.emit(f"{ind}def setUp(self):")
        w.emit(f"{ind}    super().setUp()")
        w.emit(f"{ind}    torch.manual_seed({rng.randint(0, 9999)})")
        if rng.random() < 0.5:
            w.emit(f"{ind}    self.tmp_state = {{}}")
        w.emit("")
    if rng.random() < 0.1:
        ctx = Ctx(device=False, dtype=False, cuda_ok=cls.classification != "GENERIC", vars=[])
        w.emit(f"{ind}def _check_{rng.choice(WORDS)}(self, x, y, **kwargs):")
        for line in _body(rng, ctx, ind + "    ", rng.randint(100, 500)):
            w.emit(line)
        w.emit("")


def _classification_line(cls: ClassPlan) -> str:
    if cls.form == "annotated":
        return f"hw_classification: HardwareClassification = HardwareClassification.{cls.classification}"
    return f"hw_classification = HardwareClassification.{cls.classification}"


def _instantiate(cls: ClassPlan) -> str:
    fn = "common_device_type.instantiate_device_type_tests" if cls.inst_attr else "instantiate_device_type_tests"
    kw = f", {cls.inst_kwargs}" if cls.inst_kwargs else ""
    return f"{fn}({cls.name}, globals(){kw})"


def _class(
    w: Writer,
    p: FilePlan,
    cls: ClassPlan,
    budget_end: int,
    tests_left: int,
    probs: Probabilities,
    names: dict[str, str],
    escape_at: int,
) -> int:
    """Write one class; returns the number of test methods written."""
    rng = w.rng
    base = {
        "common": names["base"],
        "commonmixin": f"{names['mixin']}, TestCase",
        "mixin": f"{names['local_mixin']}, TestCase",
    }.get(cls.base, cls.base)
    if cls.base == "common":
        w.use("common_base")
    elif cls.base == "commonmixin":
        w.use("common_mixin", "TestCase")
    elif cls.base == "mixin":
        w.use("TestCase")
    else:
        w.use(cls.base)
    ind = "    "
    if cls.wrapper == "if":
        w.emit(rng.choice(["if not IS_WINDOWS:", "if TEST_NUMPY:", 'if sys.platform != "win32":']))
        w.use("IS_WINDOWS" if "WINDOWS" in w.lines[-1] else "TEST_NUMPY" if "NUMPY" in w.lines[-1] else "sys")
        ind = "        "
    elif cls.wrapper == "try":
        w.emit("try:")
        w.emit("    import numpy as np  # noqa: F401")
        w.emit("")
        ind = "        "
    outer = ind[:-4]
    if cls.class_decorator:
        w.emit(f'{outer}@skipIfTorchDynamo("Class is too slow under dynamo")')
        w.use("skipIfTorchDynamo")
    w.emit(f"{outer}class {cls.name}({base}):")
    if cls.docstring:
        topic = rng.choice(["kernels", "semantics", "edge cases", "the Python API", "autograd formulas"])
        w.emit(f'{ind}"""Tests for {rng.choice(WORDS)} {topic}."""')
        w.emit("")
    extra_attr = rng.random() < 0.08
    if cls.form in ("body", "annotated") and cls.classification:
        if extra_attr and rng.random() < 0.5:
            w.emit(f"{ind}_do_cuda_memory_leak_check = True" if cls.device else f"{ind}maxDiff = None")
        w.emit(ind + _classification_line(cls))
        w.use("HardwareClassification")
        w.emit("")
    elif extra_attr:
        w.emit(f"{ind}maxDiff = None")
        w.emit("")
    _helpers(w, cls, ind)
    taken: set[str] = set()
    for i in range(cls.tests):
        name = unique_name(taken, lambda: "test_" + "_".join(rng.sample(WORDS, rng.choice([1, 2, 3, 3, 4, 5]))))
        remaining = max(1, budget_end - w.size)
        per = remaining / max(1, tests_left - i)
        # Per-method jitter: real classes mix one-liners with long tests.
        budget = int(per * min(3.0, rng.lognormvariate(-0.18, 0.6)))
        _method(w, cls, name, budget, probs, escape=(i == escape_at))
    if w.lines[-1] == "":
        w.lines.pop()
        w.size -= 1
    if cls.wrapper == "try":
        w.emit("except ImportError:")
        w.emit("    pass")
    w.emit("")
    w.emit("")
    if cls.form == "post":
        w.emit(f"{cls.name}.{_classification_line(cls)}")
        w.use("HardwareClassification")
        w.emit("")
        w.emit("")
    return cls.tests


# Import lines, in the order files list them. Each key in Writer.used maps to
# the module it comes from; only used names are imported, as in real code.
COMMON_UTILS = [
    "TestCase",
    "run_tests",
    "HardwareClassification",
    "parametrize",
    "instantiate_parametrized_tests",
    "skipIfTorchDynamo",
    "TEST_CUDA",
    "IS_WINDOWS",
    "IS_MACOS",
    "TEST_WITH_ROCM",
    "TEST_SCIPY",
    "TEST_NUMPY",
]
COMMON_DEVICE_TYPE = [
    "instantiate_device_type_tests",
    "onlyCUDA",
    "onlyCPU",
    "dtypes",
    "dtypesIfCUDA",
    "onlyNativeDeviceTypes",
    "ops",
    "onlyPRIVATEUSE1",
    "largeTensorTest",
]


def _from_import(module: str, names: list[str]) -> list[str]:
    line = f"from {module} import {', '.join(names)}"
    if len(line) <= 120:
        return [line]
    return [f"from {module} import ("] + [f"    {n}," for n in names] + [")"]


def _header(p: FilePlan, used: dict[str, None], names: dict[str, str], owner: str) -> list[str]:
    out = [f'# Owner(s): ["{owner}"]', ""]
    stdlib = [m for m in ("os", "sys", "unittest") if m in used]
    out += [f"import {m}" for m in stdlib]
    if "mock" in used:
        out.append("from unittest import mock")
    if "patch" in used:
        out.append("from unittest.mock import patch")
    if out[-1] != "":
        out.append("")
    out.append("import torch")
    if "make_tensor" in used:
        out.append("from torch.testing import make_tensor")
    if "common_device_type_module" in used:
        out.append("from torch.testing._internal import common_device_type")
    cdt = [n for n in COMMON_DEVICE_TYPE if n in used]
    if cdt:
        out += _from_import("torch.testing._internal.common_device_type", cdt)
    if "op_db" in used:
        out.append("from torch.testing._internal.common_methods_invocations import op_db, OpDTypes, unary_ufuncs")
    if "DistributedTestBase" in used:
        out.append("from torch.testing._internal.common_distributed import DistributedTestBase")
    if "NNTestCase" in used:
        out.append("from torch.testing._internal.common_nn import NNTestCase")
    cu = [n for n in COMMON_UTILS if n in used or n == "run_tests"]
    out += _from_import("torch.testing._internal.common_utils", cu)
    if "JitTestCase" in used:
        out.append("from torch.testing._internal.jit_utils import JitTestCase")
    common = [names[k] for k, n in (("base", "common_base"), ("mixin", "common_mixin")) if n in used]
    if common:
        out.append("")
        out.append(f"from {names['module']} import {', '.join(common)}")
    out.append("")
    return out


def _local_mixin(w: Writer, name: str) -> None:
    w.emit(f"class {name}:")
    w.emit('    """Shared helpers; no tests of its own."""')
    w.emit("")
    w.emit("    def _make_inputs(self, *shape, requires_grad=False):")
    w.emit("        x = torch.randn(*shape, requires_grad=requires_grad)")
    w.emit("        return x, x.detach().clone()")
    w.emit("")
    w.emit("    def _assert_same(self, a, b, **kwargs):")
    w.emit("        self.assertEqual(a.shape, b.shape)")
    w.emit("        self.assertEqual(a, b, **kwargs)")
    w.emit("")
    w.emit("")


def _module_tests(w: Writer, target: int) -> None:
    # Files without test classes: pytest-style functions and helpers.
    rng = w.rng
    taken: set[str] = set()
    while w.size < target - 60:
        name = unique_name(taken, lambda: "test_" + "_".join(rng.sample(WORDS, rng.choice([1, 2, 3]))))
        if rng.random() < 0.3:
            name = "_" + name[len("test_") :] + "_helper"
        w.emit(f"def {name}():")
        ctx = Ctx(device=False, dtype=False, cuda_ok=True, vars=[], free=True)
        for line in _body(rng, ctx, "    ", min(int(rng.lognormvariate(6.3, 0.7)), max(40, target - w.size))):
            w.emit(line)
        w.emit("")
        w.emit("")


def render_file(p: FilePlan, probs: Probabilities) -> tuple[str, Writer]:
    rng = random.Random(p.seed)
    w = Writer(rng)
    names = dict(_common_names(p.directory), local_mixin=f"_{camel_case(rng.sample(WORDS, 2))}Mixin")
    owner = OWNERS.get(p.directory.split("/")[1] if "/" in p.directory else "", "module: tests")
    header_estimate = 520
    body_target = p.target_size - header_estimate
    if rng.random() < 0.25 and p.classes:
        w.emit(f"{rng.choice(['S', 'M', 'BATCH', 'N'])} = {rng.randint(3, 64)}")
        # Module level, so not a probe in any class body (HWC105).
        if any(c.device or c.classification is None for c in p.classes) and rng.random() < 0.4:
            w.emit("TEST_MULTIGPU = TEST_CUDA and torch.cuda.device_count() >= 2")
            w.use("TEST_CUDA")
        w.emit("")
        w.emit("")
    if any(c.base == "mixin" for c in p.classes):
        _local_mixin(w, names["local_mixin"])
    if not p.classes:
        _module_tests(w, body_target)
    tests_total = p.tests
    tests_done = 0
    trailer_estimate = 60 + 70 * sum(1 for c in p.classes if c.device)
    escape_cls = rng.randrange(len(p.classes)) if p.invalid_escape and p.classes else -1
    pending_inst: list[str] = []
    for ci, cls in enumerate(p.classes):
        # Give each class its share of the remaining bytes, in proportion to
        # its tests, so one huge class does not starve the ones after it.
        remaining_bytes = body_target - trailer_estimate - w.size
        share = remaining_bytes * cls.tests / max(1, tests_total - tests_done)
        end = w.size + int(share)
        tests_done += _class(w, p, cls, end, cls.tests, probs, names, escape_at=0 if ci == escape_cls else -1)
        if cls.device:
            w.use("common_device_type_module" if cls.inst_attr else "instantiate_device_type_tests")
            if cls.inst_at_end:
                pending_inst.append(_instantiate(cls))
            else:
                w.emit(_instantiate(cls))
                w.emit("")
                w.emit("")
        elif cls.name in w.parametrized and not cls.wrapper:
            pending_inst.append(f"instantiate_parametrized_tests({cls.name})")
            w.use("instantiate_parametrized_tests")
    for line in pending_inst:
        w.emit(line)
    if pending_inst:
        w.emit("")
        w.emit("")
    w.emit('if __name__ == "__main__":')
    w.emit("    run_tests()")
    header = _header(p, w.used, names, owner)
    lines = header + [""] + w.lines if w.lines and w.lines[0] != "" else header + w.lines
    if p.syntax_error:
        lines = _break(rng, lines)
    return "\n".join(lines) + "\n", w


def _break(rng: random.Random, lines: list[str]) -> list[str]:
    # Real-world breakage: a lost colon, a Python 2 print, an unclosed call.
    defs = [i for i, s in enumerate(lines) if s.lstrip().startswith("def test_")]
    i = rng.choice(defs)
    kind = rng.randrange(3)
    lines = list(lines)
    if kind == 0:
        lines[i] = lines[i].rstrip(":")
    elif kind == 1:
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        lines.insert(i + 1, f'{indent}    print "checking {rng.choice(WORDS)}"')
    else:
        indent = lines[i][: len(lines[i]) - len(lines[i].lstrip())]
        lines.insert(i + 1, f"{indent}    x = torch.randn(3, 4")
    return lines


def _common_names(directory: str) -> dict[str, str]:
    # Distinct from every torch base name (a sibling "DistributedTestBase"
    # would shadow torch's and silently classify its subclasses).
    stem = dir_stem(directory)
    camel = camel_case(stem.split("_"))
    return {"module": f"common_{stem}", "base": f"{camel}SharedTests", "mixin": f"{camel}Helpers"}


def common_file(directory: str) -> str:
    names = _common_names(directory)
    base, mixin = names["base"], names["mixin"]
    return f'''# Owner(s): ["{OWNERS.get(directory.split("/")[1] if "/" in directory else "", "module: tests")}"]
"""Shared bases for the tests in {directory}/ (not a test file itself)."""

import torch
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class {mixin}:
    """Helpers only: no tests, no classification."""

    def _reference(self, fn, *args):
        return fn(*[a.double() for a in args]).float()

    def _assert_close_to_reference(self, fn, *args, atol=1e-5):
        self.assertEqual(fn(*args), self._reference(fn, *args), atol=atol, rtol=0)


class {base}({mixin}, TestCase):
    """Subclasses inherit the GENERIC classification and the shared tests."""

    hw_classification = HardwareClassification.GENERIC

    def setUp(self):
        super().setUp()
        torch.manual_seed(0)

    def test_common_smoke(self):
        x = torch.randn(3, 4)
        self.assertEqual(x + 0, x)

    def test_common_dtype_roundtrip(self):
        x = torch.randn(5, dtype=torch.float64)
        self.assertEqual(x.float().double(), x, atol=1e-6, rtol=1e-6)
'''
