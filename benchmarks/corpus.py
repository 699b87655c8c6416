"""Deterministic synthetic PyTorch-style test tree, for benchmarks and scale tests.

The shape follows ``corpus-facts.md`` (1,926 real test files, 34.7 MB): file
sizes, test classes per file, test methods per class, device parameters,
``instantiate_device_type_tests`` calls and decorator frequencies. Nothing is
downloaded, so every figure can be reproduced anywhere::

    python benchmarks/corpus.py OUT_DIR [--files 2000] [--seed 0] [--verify]

The tree carries its own ground truth: ``allowlist.txt`` lists every file with
unclassified test classes (budget = their number), ``pyproject.toml`` sets
``baseline`` to that count, and ``.hwlint-corpus.json`` records what was
generated (the deliberate syntax-error and invalid-escape files, class counts
by classification, ...). Classified classes are written the way the rules want
them (ACCELERATOR classes take ``device`` and are instantiated, GENERIC classes
neither take ``device`` nor probe an accelerator, device-specific ``@only*``
decorators sit only on CPU/CUDA or unclassified classes), so on the default
rule set the expected diagnostics are exactly: one HWC000 per syntax-error file
and nothing else (the allowlisted files are at their budget).

Only ``random.Random(seed)`` drives choices, and nothing depends on hash order
or the clock: the same ``files``/``seed`` give a byte-identical tree.
"""

from __future__ import annotations

import argparse
import ast
import bisect
import json
import math
import random
import shutil
import sys
import time
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MARKER = ".hwlint-corpus.json"

# ---------------------------------------------------------------------------
# Targets, from corpus-facts.md (measured on 1,926 files).
# ---------------------------------------------------------------------------

MEASURED_FILES = 1926
MEASURED_METHODS = 30072
TARGETS: dict[str, dict[str, float]] = {
    "size": {"p50": 3721, "p90": 32825, "p99": 239219, "max": 733849},
    "lines": {"p50": 114, "p90": 918, "p99": 6315, "max": 18623},
    "classes_per_file": {"p50": 1, "p90": 2, "p99": 10, "max": 42},
    "methods_per_class": {"p50": 3, "p90": 22, "p99": 139, "max": 625},
}
TARGET_TOTAL_BYTES_PER_FILE = 34.7e6 / MEASURED_FILES
TARGET_CLASSES_PER_FILE = 2714 / MEASURED_FILES
TARGET_NO_CLASS_FRACTION = 163 / MEASURED_FILES
TARGET_DEVICE_METHOD_FRACTION = 0.21
TARGET_INSTANTIATING_FILE_FRACTION = 203 / MEASURED_FILES
TARGET_CALLS_PER_INSTANTIATING_FILE = 424 / 203
TARGET_UNCLASSIFIED_CLASS_FRACTION = 0.40
# Method decorators, counted per method in the real corpus.
DECORATOR_COUNTS: dict[str, int] = {
    "skipIf": 2135,
    "parametrize": 2087,
    "dtypes": 2003,
    "patch": 587,
    "skipIfTorchDynamo": 568,
    "onlyNativeDeviceTypes": 511,
    "ops": 393,
    "onlyCPU": 385,
    "onlyCUDA": 331,
    "onlyPRIVATEUSE1": 199,
    "largeTensorTest": 171,
    "dtypesIfCUDA": 171,
}

# Quantile functions (u in [0, 1] -> value), interpolated in log space between
# the measured percentiles. Sampling them at evenly spaced u (then shuffling)
# hits the measured percentiles by construction instead of by luck, which a
# lognormal cannot do for p50, p90, p99 and max at once (its tail is too fat at
# the max and too thin at p99). The unmeasured inner points (p10, p25, p75,
# p95, p97) were tuned so the totals match: ~18 KB mean file, ~11 methods per
# class, ~1.41 classes per file.
#
# The measured max is the top of a 1,926-file sample, i.e. the quantile at
# U_TOP = 1 - 0.5/1926; positions are drawn at (i + 0.5) / n, so a tree of
# ~2,000 files reaches the measured max and a 50-file tree is not handed a
# 730 KB file with 625 tests (its top is the 0.99 quantile).
U_TOP = 1 - 0.5 / MEASURED_FILES
SIZE_QUANTILES: list[tuple[float, float]] = [
    (0.0, 420),
    (0.10, 1150),
    (0.25, 2000),
    (0.50, 3721),
    (0.75, 11000),
    (0.90, 32825),
    (0.95, 68000),
    (0.99, 239219),
    (U_TOP, 733849),
]
METHOD_QUANTILES: list[tuple[float, float]] = [
    (0.0, 1),
    (0.30, 1),
    (0.50, 3),
    (0.75, 7),
    (0.90, 22),
    (0.97, 52),
    (0.99, 139),
    (U_TOP, 625),
]


def _log_interp(points: Sequence[tuple[float, float]], u: float) -> float:
    for (u0, v0), (u1, v1) in zip(points, points[1:], strict=False):
        if u <= u1:
            t = (u - u0) / (u1 - u0) if u1 > u0 else 0.0
            return math.exp(math.log(v0) + t * (math.log(v1) - math.log(v0)))
    return points[-1][1]


def _classes_for(u: float) -> int:
    # Discrete steps for the bulk (8% none, ~76% one, ~6% two), then a log
    # tail to p99 = 10 and max = 42.
    if u < TARGET_NO_CLASS_FRACTION:
        return 0
    if u < 0.845:
        return 1
    if u < 0.905:
        return 2
    if u < 0.99:
        return round(_log_interp([(0.905, 3), (0.97, 4), (0.99, 10)], u))
    return round(_log_interp([(0.99, 10), (0.998, 18), (U_TOP, 42)], u))


def _spread(n: int) -> list[float]:
    # Stratified positions: percentiles come out exact instead of noisy.
    return [(i + 0.5) / n for i in range(n)]


# ---------------------------------------------------------------------------
# Directory layout: ~30 directories of depth 1..6, weighted after a real
# PyTorch allowlist. (path, weight, has a common_<dir>.py, device-test bias)
# ---------------------------------------------------------------------------

DIRS: list[tuple[str, int, bool, float]] = [
    ("test", 150, False, 2.0),
    ("test/inductor", 170, True, 1.2),
    ("test/dynamo", 130, False, 0.4),
    ("test/jit", 75, True, 0.6),
    ("test/distributed", 60, True, 0.8),
    ("test/distributed/fsdp", 40, True, 0.8),
    ("test/distributed/tensor", 32, False, 1.0),
    ("test/distributed/checkpoint", 28, False, 0.5),
    ("test/distributed/_composable/fsdp", 18, False, 0.8),
    ("test/distributed/elastic/rendezvous", 10, False, 0.1),
    ("test/distributed/elastic/multiprocessing", 6, False, 0.1),
    ("test/functorch", 28, True, 1.5),
    ("test/export", 25, False, 0.5),
    ("test/fx", 22, False, 0.4),
    ("test/onnx", 17, False, 0.6),
    ("test/onnx/exporter", 13, False, 0.4),
    ("test/profiler", 17, False, 0.6),
    ("test/package", 16, False, 0.2),
    ("test/cpp_extensions/open_registration_extension/torch_openreg/tests", 15, False, 2.0),
    ("test/torch_np", 12, False, 0.3),
    ("test/torch_np/numpy_tests/core", 13, False, 0.3),
    ("test/ao/sparsity", 11, False, 0.5),
    ("test/quantization/core", 17, True, 0.8),
    ("test/quantization/eager", 7, False, 0.5),
    ("test/quantization/fx", 5, False, 0.5),
    ("test/higher_order_ops", 7, False, 0.8),
    ("test/nn", 12, True, 2.0),
    ("test/xpu", 30, True, 2.0),
    ("test/npu", 40, True, 2.0),
    ("test/autograd", 6, False, 1.0),
    ("test/optim", 5, True, 1.5),
    ("test/lazy", 6, False, 0.5),
]
# torch.distributed.elastic names its tests foo_test.py.
SUFFIX_TEST_DIRS = ("test/distributed/elastic/",)

OWNERS: dict[str, str] = {
    "inductor": "module: inductor",
    "dynamo": "module: dynamo",
    "jit": "oncall: jit",
    "distributed": "oncall: distributed",
    "functorch": "module: functorch",
    "export": "oncall: export",
    "fx": "module: fx",
    "onnx": "module: onnx",
    "profiler": "oncall: profiler",
    "quantization": "oncall: quantization",
    "nn": "module: nn",
    "xpu": "module: intel",
    "npu": "module: PrivateUse1",
    "optim": "module: optimizer",
    "torch_np": "module: dynamo",
    "ao": "module: unknown",
}

WORDS: list[str] = (
    "add addmm autocast autograd avg backward batch bernoulli bfloat16 binary bmm "
    "broadcast bucketize cat cdist checkpoint chunk clamp clone compile complex conv "
    "conv2d copy cross cumsum deterministic diag dispatch distributions dropout dtype "
    "einsum embedding empty expand fft fill flatten flip float16 fold foreach functional "
    "fuse gather gelu grad graph grid group gru half histc index indexing init inplace "
    "interpolate inverse jacobian kernel layer layout lerp linalg linear logsumexp loss "
    "lstm masked matmul max mean memory meta minmax mode module multinomial mvlgamma "
    "nan narrow native nested norm normal numpy ones optim overlap pad padding permute "
    "pin pool pooling pow prod profiler qr quant random reduction reduce reflection repeat "
    "reshape rnn roll scaled scatter searchsorted select serialization shape shard sigmoid "
    "slice softmax sort sparse split sqrt squeeze stack std storage stride sum svd "
    "tensor topk trace transpose tril triu type unary unfold unique upsample var view "
    "vmap where zeros"
).split()
CLASS_SUFFIXES = ["", "", "", "Ops", "API", "Functional", "Module", "Utils", "Kernels", "Cases"]

# ---------------------------------------------------------------------------
# Plans: the structure of every file, decided before any text is written so
# that global targets (device-method share, decorator counts) can be met.
# ---------------------------------------------------------------------------


@dataclass
class ClassPlan:
    name: str
    tests: int
    device: bool = False  # test methods take `device`; instantiated
    classification: str | None = None  # effective: own, post-class or inherited
    form: str = "none"  # body | annotated | post | inherit | none
    base: str = "TestCase"  # TestCase | NNTestCase | JitTestCase | DistributedTestBase | common | mixin | commonmixin
    wrapper: str | None = None  # None | "if" | "try"
    inst_kwargs: str = ""
    inst_attr: bool = False  # common_device_type.instantiate_device_type_tests(...)
    inst_at_end: bool = False
    docstring: bool = False
    class_decorator: bool = False


@dataclass
class FilePlan:
    index: int
    directory: str
    target_size: int
    classes: list[ClassPlan]
    seed: int
    relpath: str = ""
    state: str = "migrated"  # migrated | unmigrated | partial
    syntax_error: bool = False
    invalid_escape: bool = False

    @property
    def tests(self) -> int:
        return sum(c.tests for c in self.classes)


@dataclass
class Probabilities:
    """Per-method decorator probabilities, solved from the plan so that the
    expected count of each decorator matches the measured count per method."""

    generic: dict[str, float] = field(default_factory=dict)
    device: dict[str, float] = field(default_factory=dict)
    only: dict[str, float] = field(default_factory=dict)  # onlyCPU/onlyCUDA/onlyPRIVATEUSE1


def _unique(taken: set[str], make: Callable[[], str]) -> str:
    for _ in range(50):
        name = make()
        if name not in taken:
            taken.add(name)
            return name
    base = make()
    i = 2
    while f"{base}{i}" in taken:
        i += 1
    taken.add(f"{base}{i}")
    return f"{base}{i}"


def _camel(words: Sequence[str]) -> str:
    return "".join(w[:1].upper() + w[1:] for w in words)


def _dir_stem(directory: str) -> str:
    return directory.rsplit("/", 1)[-1].strip("_")


def _allocate_dirs(n: int, rng: random.Random) -> list[str]:
    # Largest-remainder allocation so each directory's share is exact, then a
    # shuffle so that directory and size are independent.
    total = sum(w for _, w, _, _ in DIRS)
    raw = [n * w / total for _, w, _, _ in DIRS]
    counts = [int(r) for r in raw]
    if n >= len(DIRS):
        counts = [max(1, c) for c in counts]
    order = sorted(range(len(DIRS)), key=lambda i: raw[i] - int(raw[i]), reverse=True)
    i = 0
    while sum(counts) < n:
        counts[order[i % len(order)]] += 1
        i += 1
    while sum(counts) > n:
        j = max(range(len(DIRS)), key=lambda k: counts[k])
        counts[j] -= 1
    slots = [DIRS[k][0] for k, c in enumerate(counts) for _ in range(c)]
    rng.shuffle(slots)
    return slots


def _plan(files: int, seed: int) -> tuple[list[FilePlan], Probabilities]:
    rng = random.Random(seed)
    dir_info = {d: (has_common, bias) for d, _, has_common, bias in DIRS}

    sizes = [round(_log_interp(SIZE_QUANTILES, u)) for u in _spread(files)]
    class_counts = [_classes_for(u) for u in _spread(files)]
    total_classes = sum(class_counts)
    method_counts = [max(1, round(_log_interp(METHOD_QUANTILES, u))) for u in _spread(total_classes)]
    rng.shuffle(class_counts)
    rng.shuffle(method_counts)

    # Group method counts into files, then pair structures with sizes by rank
    # (with noise): big files hold many tests, but not in lockstep.
    structures: list[list[int]] = []
    k = 0
    for n_classes in class_counts:
        structures.append(method_counts[k : k + n_classes])
        k += n_classes
    keyed: list[tuple[float, int, list[int]]] = []
    for s in structures:
        m = sum(s) if s else rng.choice([2, 3, 5, 8])  # pytest-style files still grow
        keyed.append((math.log1p(m) + rng.gauss(0.0, 0.55), len(keyed), s))
    keyed.sort()
    dirs = _allocate_dirs(files, rng)
    plans: list[FilePlan] = []
    for i, (size, (_, _, s)) in enumerate(zip(sorted(sizes), keyed, strict=True)):
        plans.append(
            FilePlan(
                index=i,
                directory="",
                target_size=size,
                classes=[ClassPlan(name="", tests=t) for t in s],
                seed=rng.getrandbits(64),
            )
        )
    rng.shuffle(plans)
    for i, (p, d) in enumerate(zip(plans, dirs, strict=True)):
        p.index = i
        p.directory = d

    # Names.
    taken_paths: set[str] = set()
    for p in plans:
        suffix_style = p.directory.startswith(SUFFIX_TEST_DIRS) or (
            p.directory == "test/distributed" and rng.random() < 0.05
        )

        def make_name(d: str = p.directory, sfx: bool = suffix_style) -> str:
            words = "_".join(rng.sample(WORDS, rng.choice([1, 1, 2, 2, 2, 3])))
            return f"{d}/{words}_test.py" if sfx else f"{d}/test_{words}.py"

        p.relpath = _unique(taken_paths, make_name)
        taken_class: set[str] = set()
        for c in p.classes:
            c.name = _unique(
                taken_class,
                lambda: "Test" + _camel(rng.sample(WORDS, rng.choice([1, 2, 2, 3]))) + rng.choice(CLASS_SUFFIXES),
            )

    # Deliberate defects. Syntax-error files are fully classified so that their
    # only expected diagnostic is HWC000 and they never sit in the allowlist.
    n_syntax = round(files * 0.005)
    n_escape = round(files * 4 / 2000)
    candidates = [p for p in plans if p.classes and p.target_size < 40000]
    rng.shuffle(candidates)
    for p in candidates[:n_syntax]:
        p.syntax_error = True
    for p in candidates[n_syntax : n_syntax + n_escape]:
        p.invalid_escape = True

    device_classes = _choose_device_classes(plans, rng.getrandbits(64), dir_info)

    for p in plans:
        frng = random.Random(p.seed ^ 0x5EED)
        has_common = dir_info[p.directory][0]
        if p.syntax_error:
            p.state = "migrated"
        else:
            r = frng.random()
            p.state = "unmigrated" if r < 0.38 else "partial" if r < 0.46 else "migrated"
        for ci, c in enumerate(p.classes):
            c.device = device_classes.get((p.index, ci), False)
            if p.state == "unmigrated":
                classified = False
            elif p.state == "partial":
                classified = frng.random() < 0.5
            else:
                classified = True
            c.docstring = frng.random() < 0.2
            c.class_decorator = not c.device and frng.random() < 0.02
            if c.device:
                c.inst_attr = frng.random() < 0.15
                c.inst_at_end = frng.random() < 0.4
                if classified:
                    r = frng.random()
                    if r < 0.08:
                        c.classification, c.inst_kwargs = "CUDA", 'only_for="cuda"'
                    elif r < 0.14:
                        c.classification, c.inst_kwargs = "CPU", 'only_for="cpu"'
                    else:
                        c.classification = "ACCELERATOR"
                        c.inst_kwargs = frng.choice(
                            [
                                "",
                                "",
                                "",
                                "",
                                'except_for="cpu"',
                                "allow_mps=True",
                                "allow_xpu=True",
                                "allow_mps=True, allow_xpu=True",
                                'except_for=("cpu", "meta")',
                                "allow_xpu=True",
                            ]
                        )
                    c.form = "annotated" if frng.random() < 0.05 else "body"
                else:
                    c.inst_kwargs = frng.choice(
                        [
                            "",
                            "",
                            "",
                            "",
                            "",
                            'only_for="cuda"',
                            'only_for=("cpu", "cuda")',
                            'except_for="cpu"',
                            "allow_mps=True",
                            "allow_xpu=True",
                            'only_for="privateuse1"',
                        ]
                    )
                continue
            # Plain (GENERIC-shaped) class.
            r = frng.random()
            if has_common and r < 0.10:
                # A base from common_<dir>.py that declares GENERIC: the
                # subclass is classified by inheritance even when unmigrated.
                c.base, c.classification, c.form = "common", "GENERIC", "inherit"
                continue
            if has_common and r < 0.16:
                c.base = "commonmixin"
            elif r < 0.22:
                c.base = "mixin"
            elif p.directory.startswith("test/jit") and r < 0.6:
                c.base = "JitTestCase"
            elif p.directory == "test/nn" and r < 0.6:
                c.base = "NNTestCase"
            elif p.directory.startswith("test/distributed") and r < 0.4:
                c.base = "DistributedTestBase"
            c.wrapper = frng.choice(["if", "try"]) if frng.random() < 0.05 else None
            if classified:
                c.classification = "GENERIC"
                r = frng.random()
                c.form = "post" if r < 0.05 else "annotated" if r < 0.10 else "body"
                if c.form == "post":
                    c.wrapper = None  # the module-level assignment needs the class to exist

    probs = _solve_probabilities(plans)
    return plans, probs


def _choose_device_classes(
    plans: list[FilePlan], seed: int, dir_info: dict[str, tuple[bool, float]]
) -> dict[tuple[int, int], bool]:
    """Pick the device-type test classes: ~10% of files holding ~21% of the
    test methods, ~2.1 instantiated classes per such file.

    Files are drawn by Efraimidis-Spirakis weighted sampling without
    replacement, weight (1 + tests) ** alpha * classes ** beta times a
    per-directory bias (the real device-type suites are the big multi-class
    files in nn/, linalg, backends); in a chosen file the first class and ~80%
    of the others are device classes. One fixed random stream is replayed for
    each (alpha, beta) on a grid and the pair closest to both targets wins, so
    the shares hold for any file count or seed instead of being tuned for one.
    """
    n_device_files = max(1, round(len(plans) * TARGET_INSTANTIATING_FILE_FRACTION))
    total = max(1, sum(p.tests for p in plans))
    best: tuple[float, dict[tuple[int, int], bool]] | None = None
    for alpha, beta in [(a * 0.05, b * 0.25) for a in range(27) for b in range(5)]:
        rng = random.Random(seed)
        weighted = []
        for p in plans:
            u = rng.random()
            if p.classes:
                w = (1 + p.tests) ** alpha * len(p.classes) ** beta * dir_info[p.directory][1]
                weighted.append((u ** (1.0 / w), p.index))
        weighted.sort(reverse=True)
        chosen: dict[tuple[int, int], bool] = {}
        device_tests = 0
        for _, idx in weighted[:n_device_files]:
            for ci, c in enumerate(plans[idx].classes):
                if ci == 0 or rng.random() < 0.8:
                    chosen[(idx, ci)] = True
                    device_tests += c.tests
        error = abs(device_tests / total / TARGET_DEVICE_METHOD_FRACTION - 1) + abs(
            len(chosen) / n_device_files / TARGET_CALLS_PER_INSTANTIATING_FILE - 1
        )
        if best is None or error < best[0]:
            best = (error, chosen)
    assert best is not None
    return best[1]


def _solve_probabilities(plans: list[FilePlan]) -> Probabilities:
    total = sum(p.tests for p in plans)
    device_tests = sum(c.tests for p in plans for c in p.classes if c.device)
    # Device-specific @only* decorators are legal only where the class is not
    # ACCELERATOR (HWC103): unclassified, CPU or CUDA device classes.
    # onlyCPU fits unclassified and CPU classes, onlyCUDA unclassified and
    # CUDA classes, onlyPRIVATEUSE1 only unclassified ones.
    eligible = {"onlyCPU": 0, "onlyCUDA": 0, "onlyPRIVATEUSE1": 0}
    for p in plans:
        for c in p.classes:
            if not c.device or c.classification == "ACCELERATOR":
                continue
            for k in eligible:
                if c.classification is None or k == f"only{c.classification}":
                    eligible[k] += c.tests
    rate = {k: v / MEASURED_METHODS for k, v in DECORATOR_COUNTS.items()}
    probs = Probabilities()
    for k in ("skipIf", "parametrize", "patch", "skipIfTorchDynamo"):
        probs.generic[k] = min(0.9, rate[k])
    for k in ("dtypes", "onlyNativeDeviceTypes", "ops", "largeTensorTest", "dtypesIfCUDA"):
        probs.device[k] = min(0.9, rate[k] * total / max(1, device_tests))
    # dtypesIfCUDA only ever accompanies dtypes: make it conditional on it.
    probs.device["dtypesIfCUDA"] = min(0.9, probs.device["dtypesIfCUDA"] / max(1e-9, probs.device["dtypes"]))
    # ops and dtypes exclude each other on one method; dtypes is drawn only when
    # ops was not, so raise its probability to compensate.
    probs.device["dtypes"] = min(0.9, probs.device["dtypes"] / max(1e-9, 1 - probs.device["ops"]))
    for k in eligible:
        probs.only[k] = min(0.3, rate[k] * total / max(1, eligible[k]))
    return probs


# ---------------------------------------------------------------------------
# Text: statements, methods, classes, files.
# ---------------------------------------------------------------------------

SHAPES = [
    "3, 4",
    "2, 3",
    "4, 4",
    "5",
    "2, 3, 4",
    "8, 16",
    "10, 10",
    "1, 3, 8, 8",
    "16",
    "4, 8, 2",
    "0, 3",
    "32, 32",
    "2, 2, 2",
]
TENSOR_VARS = [
    "x",
    "y",
    "z",
    "a",
    "b",
    "inp",
    "t",
    "weight",
    "src",
    "other",
    "input_tensor",
    "query",
    "key",
    "value",
    "hidden_states",
    "sample_input",
    "grad_output",
    "bias",
    "t_contig",
    "mask",
]
OUT_VARS = [
    "out",
    "result",
    "expected",
    "actual",
    "res",
    "ref",
    "grad_out",
    "y2",
    "ref_out",
    "expected_output",
    "result_with_identity",
    "out_eager",
    "out_compiled",
    "expected_grad",
]
UNARY = [
    "relu",
    "sigmoid",
    "tanh",
    "exp",
    "abs",
    "sin",
    "cos",
    "neg",
    "sign",
    "floor",
    "log1p",
    "erf",
    "rsqrt",
    "square",
]
METHODS = [
    "sum(dim=0)",
    "mean(dim=-1)",
    "amax(dim=1, keepdim=True)",
    "softmax(dim=-1)",
    "transpose(0, 1).contiguous()",
    "view(-1)",
    "reshape(-1, 1)",
    "unsqueeze(0)",
    "flatten()",
    "float()",
    "double()",
    "clone().detach()",
    "abs_()",
    "mul_(2)",
    "add_(1)",
    "cumsum(dim=0)",
    "norm()",
    "t()",
    "flip(0)",
    "std()",
]
FUNCTIONAL = ["gelu", "silu", "relu", "softplus", "layer_norm", "dropout", "log_softmax", "normalize"]
# Generated strings carry no backslashes at all: the invalid escapes are
# injected on purpose into a known number of files and must not appear by
# accident anywhere else.
ERRORS = [
    "must match the size",
    "expected a non-empty list",
    "is not implemented for",
    "Expected all tensors to be on the same device",
    "dimension out of range",
    "only supports floating point",
    "cannot be broadcast",
    "received an invalid combination of arguments",
]
COMMENTS = [
    "# Regression test for https://github.com/pytorch/pytorch/issues/{n}",
    "# TODO: enable once the kernel supports bfloat16",
    "# Make sure the output is contiguous before comparing strides",
    "# The reference implementation runs in float64 to avoid precision loss",
    "# See Note [Sparse tensor invariants]",
    "# Non-contiguous inputs take a different code path",
    "# Check that the in-place variant agrees with the out-of-place one",
    "# Empty tensors must not crash (gh-{n})",
]
# Prose for comments, docstrings and messages (no quotes, no backslashes).
PROSE = [
    "Reducing along an empty slice should return the identity value of the operator",
    "The reference implementation runs in float64 to avoid precision loss",
    "Non-contiguous inputs take a different code path in the kernel",
    "Check that the in-place variant agrees with the out-of-place one",
    "This used to segfault when the input had a zero-sized dimension",
    "Make sure the output is contiguous before comparing strides",
    "Gradients are compared against finite differences computed in double precision",
    "The fused kernel is only selected when all inputs share the same dtype",
    "Keep the tolerance loose here because half precision accumulates rounding error",
    "We cannot use assertEqual directly because the layouts differ",
    "Dynamo should not graph break on this call",
    "Inductor is expected to generate a single kernel for the whole pattern",
    "Broadcasting must follow NumPy semantics, including for zero-sized tensors",
    "Disabled until the backend implements the out= variant",
    "The result must not alias the input, even when the operation is a no-op",
    "Tests that the result has the correct dtype after type promotion",
    "Tests that passing an out-of-bounds dim raises an IndexError",
    "Integer inputs are promoted to the default floating point dtype",
    "Use a fixed seed so that the comparison is deterministic",
    "The meta implementation has to agree with the eager kernel on strides",
    "Verify that the autograd formula matches the numerical gradient",
    "Running the same graph twice must not trigger a recompilation",
    "Channels-last inputs must produce channels-last outputs",
    "This exercises the slow path that handles overlapping memory",
    "Only the first call compiles; later calls hit the cache",
    "A warning is expected here and must be raised exactly once",
    "The sparse layout is converted back to strided before comparing",
    "Large inputs are split into several chunks by the kernel launcher",
]
GENERIC_SKIPS = [
    'IS_WINDOWS, "Windows does not support fork"',
    'IS_MACOS, "Flaky on macOS"',
    'TEST_WITH_ROCM, "Not supported on ROCm"',
    'not TEST_SCIPY, "SciPy not found"',
    'not TEST_NUMPY, "NumPy not found"',
    'sys.version_info >= (3, 13), "Not supported on Python 3.13+"',
]
DEVICE_SKIPS = [
    'not TEST_CUDA, "CUDA not available"',
    'not torch.cuda.is_available(), "requires CUDA"',
    'TEST_WITH_ROCM, "Not supported on ROCm"',
    'IS_WINDOWS, "Windows does not support this"',
]
DTYPES = [
    "torch.float",
    "torch.double",
    "torch.half",
    "torch.bfloat16",
    "torch.cfloat",
    "torch.int32",
    "torch.int64",
    "torch.uint8",
    "torch.bool",
    "torch.float32",
    "torch.float64",
    "torch.float16",
]
PATCHES = [
    '@patch.object(torch._dynamo.config, "cache_size_limit", 8)',
    '@patch.dict(os.environ, {{"TORCH_SHOW_CPP_STACKTRACES": "1"}})',
    '@mock.patch("torch.{w}.is_enabled", return_value=False)',
    '@patch("torch._inductor.config.{w}", True)',
    '@patch.object(torch._inductor.config, "{w}", False)',
]


class Writer:
    """Accumulates the text of one file and the names it needs imported."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.size = 0
        self.used: dict[str, None] = {}  # ordered set: import keys actually used
        self.counts: dict[str, int] = {}
        self.device_tests = 0
        # Plain classes using @parametrize: they need instantiate_parametrized_tests().
        self.parametrized: list[str] = []

    def emit(self, line: str) -> None:
        self.lines.append(line)
        self.size += len(line) + 1

    def use(self, *names: str) -> None:
        for n in names:
            self.used[n] = None

    def count(self, name: str) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1


@dataclass
class Ctx:
    device: bool
    dtype: bool
    cuda_ok: bool  # accelerator probes / .cuda() allowed (never in GENERIC)
    vars: list[str]
    depth: int = 0
    free: bool = False  # module-level pytest-style function: no `self`
    make_tensor: bool = False  # set when the body calls make_tensor (needs an import)


def _var(rng: random.Random, ctx: Ctx) -> str:
    return rng.choice(ctx.vars) if ctx.vars else "x"


def _new(rng: random.Random, ctx: Ctx, pool: list[str]) -> str:
    v = rng.choice(pool)
    if v not in ctx.vars:
        ctx.vars.append(v)
    return v


def _create(rng: random.Random, ctx: Ctx) -> str:
    v = _new(rng, ctx, TENSOR_VARS)
    dev = ", device=device" if ctx.device else ""
    if ctx.dtype and rng.random() < 0.7:
        dt = ", dtype=dtype"
    elif rng.random() < 0.2:
        dt = f", dtype={rng.choice(DTYPES[:4])}"
    else:
        dt = ""
    r = rng.random()
    shape = rng.choice(SHAPES)
    if r < 0.55:
        fn = rng.choice(["randn", "randn", "rand", "zeros", "ones", "empty"])
        return f"{v} = torch.{fn}({shape}{dev}{dt})"
    if r < 0.7 and ctx.device and ctx.dtype:
        ctx.make_tensor = True
        return f"{v} = make_tensor(({shape}), device=device, dtype=dtype, low=-1, high=1)"
    if r < 0.8:
        return f"{v} = torch.arange({rng.randint(2, 64)}{dev}{dt}).reshape(-1, 1)"
    if r < 0.9:
        return f"{v} = torch.full(({shape}), {rng.choice(['0.5', '1.0', '-2', '3.14'])}{dev}{dt})"
    return f"{v} = torch.tensor([{', '.join(str(rng.randint(-9, 9)) for _ in range(rng.randint(2, 6)))}]{dev}{dt})"


def _op(rng: random.Random, ctx: Ctx) -> str:
    a, b = _var(rng, ctx), _var(rng, ctx)
    v = _new(rng, ctx, OUT_VARS)
    r = rng.random()
    if r < 0.2:
        return f"{v} = {a} {rng.choice(['+', '-', '*', '/'])} {b}"
    if r < 0.4:
        return f"{v} = torch.{rng.choice(UNARY)}({a})"
    if r < 0.65:
        return f"{v} = {a}.{rng.choice(METHODS)}"
    if r < 0.75:
        return f"{v} = torch.matmul({a}, {b}.t())"
    if r < 0.83:
        return f"{v} = torch.cat([{a}, {b}], dim={rng.choice([0, 0, 1, -1])})"
    if r < 0.92:
        return f"{v} = torch.nn.functional.{rng.choice(FUNCTIONAL)}({a})"
    return f"{v} = torch.where({a} > 0, {a}, {b})"


def _assert(rng: random.Random, ctx: Ctx) -> str:
    a, b = _var(rng, ctx), _var(rng, ctx)
    r = rng.random()
    if ctx.free:
        if r < 0.5:
            return f"torch.testing.assert_close({a}, {b})"
        if r < 0.8:
            return f"assert {a}.shape == {b}.shape"
        return f"assert not {a}.requires_grad"
    if r < 0.35:
        return f"self.assertEqual({a}, {b})"
    if r < 0.5:
        return f"self.assertEqual({a}.shape, {b}.shape)"
    if r < 0.6:
        atol, rtol = rng.choice(["1e-5", "1e-4", "1e-3"]), rng.choice(["1e-5", "1.3e-6", "1e-3"])
        return f"self.assertEqual({a}, {b}, atol={atol}, rtol={rtol})"
    if r < 0.68:
        return f"self.assertTrue(torch.allclose({a}, {b}, atol=1e-5))"
    if r < 0.74:
        return f"self.assertEqual({a}.dtype, {rng.choice(DTYPES[:4]) if not ctx.dtype else 'dtype'})"
    if r < 0.8 and ctx.device:
        return f"self.assertEqual({a}.device.type, torch.device(device).type)"
    if r < 0.85:
        return f"self.assertFalse({a}.requires_grad)"
    if r < 0.9:
        return f"torch.testing.assert_close({a}, {b}, check_dtype=False)"
    if r < 0.95:
        return f"self.assertNotEqual({a}.data_ptr(), {b}.data_ptr())"
    return f"self.assertTrue({a}.is_contiguous())"


# Statement kinds and their weights. Besides plausible tensor code, the mix
# carries the comments, docstrings and string literals real test files have:
# without them the text is ~1.5x denser in tokens and AST nodes per byte than
# real PyTorch test trees (measured 4.8 bytes/token, 6 bytes/node, ~7% of the
# bytes in comments and ~9% in strings), and parse cost per byte is off.
STATEMENT_WEIGHTS: list[tuple[str, float]] = [
    ("create", 17),
    ("op", 15),
    ("assert", 14),
    ("assert_msg", 2.5),
    ("loop", 6),
    ("helper", 3),
    ("raises", 3),
    ("autograd", 3),
    ("module", 3),
    ("comment", 7.5),
    ("probe", 2),
    ("comprehension", 3),
    ("fstring", 1.5),
    ("kwargs", 2),
    ("short", 8),
    ("nested_class", 1),
    ("expected_inline", 0.8),
    ("if_chain", 3),
    ("call_kwargs", 2.5),
]
_KINDS = [k for k, _ in STATEMENT_WEIGHTS]
_CUM: list[float] = []
_acc = 0.0
for _, _w in STATEMENT_WEIGHTS:
    _acc += _w
    _CUM.append(_acc)

GRAPH_OPS = [
    "sin",
    "cos",
    "relu",
    "add.Tensor",
    "mul.Tensor",
    "mm",
    "view",
    "permute",
    "sum.dim_IntList",
    "clone",
    "expand",
    "sigmoid",
    "neg",
    "exp",
    "div.Tensor",
]


def _prose(rng: random.Random) -> str:
    s = rng.choice(PROSE)
    r = rng.random()
    if r < 0.15:
        s += f" (gh-{rng.randint(10000, 160000)})"
    elif r < 0.25:
        s += f" for {rng.choice(WORDS)} inputs"
    return s


def _docstring(rng: random.Random, ind: str, out: list[str]) -> None:
    if rng.random() < 0.65:
        out.append(f'{ind}"""{_prose(rng)}."""')
        return
    out.append(f'{ind}"""{_prose(rng)}.')
    out.append("")
    for _ in range(rng.randint(1, 4)):
        out.append(f"{ind}{_prose(rng)}.")
    out.append(f'{ind}"""')


def _statement(rng: random.Random, ctx: Ctx, ind: str, out: list[str]) -> None:
    """Append one statement (possibly compound) at indentation `ind`."""
    kind = _KINDS[bisect.bisect(_CUM, rng.random() * _acc)] if ctx.vars else "create"
    if kind == "create":
        out.append(ind + _create(rng, ctx))
    elif kind == "short":
        a = _var(rng, ctx)
        out.append(
            ind
            + rng.choice(
                [
                    f"{a} = {a}.t()",
                    f"{a}.zero_()",
                    f"{a} = {a}.detach()",
                    f"torch.manual_seed({rng.randint(0, 99)})",
                    f"n = {a}.numel()",
                    f"{a} = {a}.float()",
                    f"{a}.add_(1)",
                    f"{a} = {a}.contiguous()",
                    f"{a} = {a}[0]",
                    f"{a} = {a}.mT",
                    f"ndim = {a}.dim()",
                ]
            )
        )
    elif kind == "op":
        out.append(ind + _op(rng, ctx))
    elif kind == "loop" and ctx.depth < 2:
        header = rng.choice(
            [
                "for dtype_ in (torch.float16, torch.float32, torch.float64):",
                "for dim in range({v}.dim()):",
                "for shape in [(2, 3), (4, 5, 6), (0, 3), (1,)]:",
                "for i in range({n}):",
                "for contiguous in (True, False):",
                'for reduction in ("mean", "sum", "none"):',
                "with self.subTest(size={n}):",
                "with torch.no_grad():",
            ]
        ).format(v=_var(rng, ctx), n=rng.randint(2, 8))
        if ctx.free and "self." in header:
            header = "with torch.no_grad():"
        out.append(ind + header)
        ctx.depth += 1
        # Lead with a real statement: a block of only comments does not parse.
        out.append(ind + "    " + _op(rng, ctx))
        for _ in range(rng.randint(0, 3)):
            _statement(rng, ctx, ind + "    ", out)
        ctx.depth -= 1
    elif kind == "helper" and ctx.depth == 0:
        name = rng.choice(["fn", "helper", "check", "ref_impl", "_test_helper", "run", "reference_fn"])
        a, b = _var(rng, ctx), _var(rng, ctx)
        out.append(f"{ind}def {name}(input_tensor, other=None, *, alpha=1.0):")
        if rng.random() < 0.5:
            out.append(f'{ind}    """{_prose(rng)}."""')
        out.append(f"{ind}    if other is None:")
        out.append(f"{ind}        other = torch.ones_like(input_tensor)")
        out.append(f"{ind}    return torch.{rng.choice(UNARY)}(input_tensor) * other + alpha")
        out.append("")
        out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = {name}({a}, {b}, alpha={rng.choice(['0.5', '2.0', '1e-3'])})")
    elif kind == "raises" and not ctx.free:
        out.append(f'{ind}with self.assertRaisesRegex(RuntimeError, "{rng.choice(ERRORS)}"):')
        out.append(f"{ind}    {_op(rng, ctx)}")
    elif kind == "autograd":
        a = _var(rng, ctx)
        out.append(f"{ind}{a}.requires_grad_(True)")
        out.append(f"{ind}loss = ({a} * {rng.randint(2, 5)}).sum()")
        out.append(f"{ind}loss.backward()")
        out.append(f"{ind}assert {a}.grad is not None" if ctx.free else f"{ind}self.assertIsNotNone({a}.grad)")
    elif kind == "module":
        to = ".to(device)" if ctx.device else ""
        if rng.random() < 0.5:
            layer = rng.choice(
                [
                    "Linear(4, 8)",
                    "Conv2d(3, 8, kernel_size=3, padding=1)",
                    "LayerNorm(16)",
                    "Embedding(10, 4)",
                    "GRU(8, 16, batch_first=True)",
                    "MultiheadAttention(embed_dim=16, num_heads=4, batch_first=True)",
                ]
            )
            out.append(f"{ind}model = torch.nn.{layer}{to}")
        else:
            out.append(f"{ind}model = torch.nn.Sequential(")
            out.append(f"{ind}    torch.nn.Linear(in_features=16, out_features=32, bias=True),")
            out.append(f"{ind}    torch.nn.{rng.choice(['ReLU', 'GELU', 'Tanh', 'Dropout'])}(),")
            out.append(f"{ind}    torch.nn.Linear(in_features=32, out_features=4, bias=False),")
            out.append(f"{ind}){to}")
        out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = model({_var(rng, ctx)})")
    elif kind == "comment":
        if rng.random() < 0.1:
            out.append(ind + rng.choice(COMMENTS).format(n=rng.randint(10000, 160000)))
        else:
            for _ in range(rng.choice([1, 1, 2, 2, 3])):
                out.append(f"{ind}# {_prose(rng)}")
        _statement(rng, ctx, ind, out)  # a comment introduces the next statement
    elif kind == "probe" and ctx.cuda_ok:
        a = _var(rng, ctx)
        k = rng.random()
        if k < 0.5:
            out.append(f"{ind}if torch.cuda.is_available():")
            out.append(f"{ind}    {a} = {a}.cuda()")
            out.append(f"{ind}    assert {a}.is_cuda" if ctx.free else f"{ind}    self.assertTrue({a}.is_cuda)")
        elif k < 0.8:
            out.append(f"{ind}if torch.cuda.device_count() < 2:")
            out.append(f"{ind}    return" if ctx.free else f'{ind}    self.skipTest("requires multiple GPUs")')
        else:
            out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = {a}.cuda().float()")
            out.append(f"{ind}torch.cuda.synchronize()")
    elif kind == "comprehension":
        a, b = _var(rng, ctx), _var(rng, ctx)
        if rng.random() < 0.5:
            out.append(f"{ind}sizes = [tensor.numel() for tensor in ({a}, {b}) if tensor.dim() > 0]")
        else:
            out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = torch.stack([{a}[idx] for idx in range({a}.size(0))])")
    elif kind == "fstring":
        a = _var(rng, ctx)
        out.append(f'{ind}msg = f"expected shape {{{a}.shape}} with {{{a}.dim()}} dims, got {{tuple({a}.size())}}"')
    elif kind == "kwargs":
        dim, keepdim = rng.choice([0, 1, -1]), rng.choice(["True", "False"])
        out.append(f'{ind}reduction_kwargs = {{"dim": {dim}, "keepdim": {keepdim}}}')
        out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = {_var(rng, ctx)}.sum(**reduction_kwargs)")
    elif kind == "nested_class" and ctx.depth == 0:
        to = ".to(device)" if ctx.device else ""
        out.append(f"{ind}class MyModule(torch.nn.Module):")
        out.append(f"{ind}    def __init__(self, hidden_size=4):")
        out.append(f"{ind}        super().__init__()")
        out.append(f"{ind}        self.linear = torch.nn.Linear(hidden_size, hidden_size)")
        out.append("")
        out.append(f"{ind}    def forward(self, hidden_states):")
        out.append(f"{ind}        return self.linear(hidden_states).{rng.choice(UNARY)}()")
        out.append("")
        out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = MyModule(){to}({_var(rng, ctx)})")
    elif kind == "expected_inline" and ctx.depth == 0:
        # Dynamo/inductor style: the expected graph as a multi-line literal.
        shape = rng.choice(["3, 4", "8", "2, 16", "4, 4, 4"])
        out.append(f'{ind}expected_graph = """')
        out.append(f'def forward(self, L_x_: "f32[{shape}]"):')
        out.append("    l_x_ = L_x_")
        prev = "l_x_"
        for i in range(rng.randint(2, 10)):
            op = rng.choice(GRAPH_OPS)
            cur = f"{op.split('.')[0]}_{i}"
            out.append(f'    {cur}: "f32[{shape}]" = torch.ops.aten.{op}({prev});  {prev} = None')
            prev = cur
        out.append(f"    return ({prev},)")
        out.append('"""')
        if ctx.free:
            out.append(f"{ind}assert expected_graph.strip()")
        else:
            graph = "normalize_gm(backend.graphs[0].print_readable(print_output=False))"
            out.append(f"{ind}self.assertExpectedInline({graph}, expected_graph)")
    elif kind == "if_chain":
        dt = "dtype" if ctx.dtype else f"{_var(rng, ctx)}.dtype"
        out.append(f"{ind}if {dt} in (torch.float16, torch.bfloat16):")
        out.append(f"{ind}    atol, rtol = 1e-2, 1e-2")
        out.append(f"{ind}elif {dt} == torch.float32:")
        out.append(f"{ind}    atol, rtol = 1e-5, 1.3e-6")
        out.append(f"{ind}else:")
        out.append(f"{ind}    atol, rtol = 1e-7, 1e-7")
    elif kind == "call_kwargs":
        a, b = _var(rng, ctx), _var(rng, ctx)
        v = _new(rng, ctx, OUT_VARS)
        fn = rng.choice(["fn", "model", "torch.sin"])
        backend = rng.choice(["eager", "aot_eager", "inductor"])
        out.append(
            ind
            + rng.choice(
                [
                    f"{v} = torch.nn.functional.scaled_dot_product_attention("
                    f"{a}, {b}, {a}, attn_mask=None, dropout_p=0.0, is_causal=True)",
                    f'{v} = torch.nn.functional.interpolate({a}, scale_factor=2.0, mode="bilinear", align_corners=False)',
                    f'{v} = torch.nn.functional.cross_entropy({a}, {b}.argmax(dim=-1), reduction="mean", label_smoothing=0.1)',
                    f'{v} = torch.compile({fn}, backend="{backend}", fullgraph=True)',
                    f'{v} = torch.nn.functional.conv2d({a}, {b}, bias=None, stride=1, padding="same", dilation=1, groups=1)',
                    f"{v} = torch.testing.make_non_contiguous({a}) if {a}.numel() > 1 else {a}",
                ]
            )
        )
    elif kind == "assert_msg":
        a, b = _var(rng, ctx), _var(rng, ctx)
        if ctx.free:
            out.append(f'{ind}assert {a}.shape == {b}.shape, "{_prose(rng)}"')
        else:
            out.append(f'{ind}self.assertEqual({a}, {b}, msg="{_prose(rng)}")')
    else:
        out.append(ind + _assert(rng, ctx))


def _split_top(text: str, opening: int) -> tuple[int, list[int]] | None:
    """Index of the parenthesis closing text[opening] and the top-level commas
    in between; None when it does not close at the very end. Generated
    strings hold no escapes, so a quote always toggles string state."""
    depth = 0
    quote = ""
    commas: list[int] = []
    for i in range(opening, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return (i, commas) if i == len(text) - 1 else None
        elif ch == "," and depth == 1:
            commas.append(i)
    return None


def _wrap(line: str) -> list[str]:
    ind = line[: len(line) - len(line.lstrip())]
    quote = ""
    opening = -1
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            opening = i
            break
    if opening < 0 or line.lstrip().startswith(("#", "@", "def ", "class ", "for ", "if ", "with ")):
        return [line]
    found = _split_top(line, opening)
    if found is None:
        return [line]
    _, commas = found
    inner = line[opening + 1 : -1].strip()
    if len(ind) + 4 + len(inner) <= 88 or not commas:
        return [line[: opening + 1], f"{ind}    {inner}", f"{ind})"]
    bounds = [opening] + commas + [len(line) - 1]
    args = [line[a + 1 : b].strip() for a, b in zip(bounds, bounds[1:], strict=False)]
    return [line[: opening + 1]] + [f"{ind}    {a}," for a in args] + [f"{ind})"]


def _body(rng: random.Random, ctx: Ctx, ind: str, budget: int) -> list[str]:
    out: list[str] = []
    size = 0
    while True:
        start = len(out)
        _statement(rng, ctx, ind, out)
        # Blank lines between logical steps, as people write them.
        if rng.random() < 0.27:
            out.append("")
        # Long calls are wrapped the way black/ruff format them.
        for i in range(start, len(out)):
            if len(out[i]) > 88:
                out[i : i + 1] = _wrap(out[i])
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
        _docstring(rng, ind + "    ", doc)
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
        name = _unique(taken, lambda: "test_" + "_".join(rng.sample(WORDS, rng.choice([1, 2, 3, 3, 4, 5]))))
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
        name = _unique(taken, lambda: "test_" + "_".join(rng.sample(WORDS, rng.choice([1, 2, 3]))))
        if rng.random() < 0.3:
            name = "_" + name[len("test_") :] + "_helper"
        w.emit(f"def {name}():")
        ctx = Ctx(device=False, dtype=False, cuda_ok=True, vars=[], free=True)
        for line in _body(rng, ctx, "    ", min(int(rng.lognormvariate(6.3, 0.7)), max(40, target - w.size))):
            w.emit(line)
        w.emit("")
        w.emit("")


def _render(p: FilePlan, probs: Probabilities) -> tuple[str, Writer]:
    rng = random.Random(p.seed)
    w = Writer(rng)
    names = dict(_common_names(p.directory), local_mixin=f"_{_camel(rng.sample(WORDS, 2))}Mixin")
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
    stem = _dir_stem(directory)
    camel = _camel(stem.split("_"))
    return {"module": f"common_{stem}", "base": f"{camel}SharedTests", "mixin": f"{camel}Helpers"}


def _common_file(directory: str) -> str:
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


def _pcts(values: Sequence[float]) -> dict[str, float]:
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
    plans, probs = _plan(files, seed)

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
        text, w = _render(p, probs)
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
            (out_dir / d / f"common_{_dir_stem(d)}.py").write_text(_common_file(d), encoding="utf-8", newline="\n")
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
        "common_files": [f"{d}/common_{_dir_stem(d)}.py" for d in common_dirs],
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
        "size": _pcts(sizes),
        "lines_per_file": _pcts(lines_per_file),
        "classes_per_file": _pcts(class_counts),
        "methods_per_class": _pcts(methods),
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


# ---------------------------------------------------------------------------
# Independent verification: re-read the tree with `ast`, without the plan.
# ---------------------------------------------------------------------------

_SCOPES = (ast.If, ast.Try, ast.With, ast.For, ast.While) + ((ast.TryStar,) if hasattr(ast, "TryStar") else ())


def _classes_in(body: list[ast.stmt]) -> list[ast.ClassDef]:
    found: list[ast.ClassDef] = []
    for node in body:
        if isinstance(node, ast.ClassDef):
            found.append(node)
        elif isinstance(node, _SCOPES):
            for part in ("body", "orelse", "finalbody"):
                found += _classes_in(getattr(node, part, []))
            for h in getattr(node, "handlers", []):
                found += _classes_in(h.body)
    return found


def _declares(cls: ast.ClassDef) -> bool:
    for s in cls.body:
        if isinstance(s, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "hw_classification" for t in s.targets
        ):
            return True
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name) and s.target.id == "hw_classification":
            return True
    return False


def _tests_of(cls: ast.ClassDef) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [s for s in cls.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name.startswith("test")]


def census(out_dir: Path) -> dict[str, tuple[int, int]]:
    """(test classes, unclassified test classes) of every test file that
    parses, recounted with `ast` from the files as they are now (after
    `hwlint fix`, say), independently of hwlint and of the generator's plan.

    A class counts when it has test methods of its own or inherits them from
    a base in a common_<dir>.py module; it is classified when it declares
    the attribute in its body, by a module-level assignment after it, or by
    inheriting from a common base that declares it.
    """
    out_dir = Path(out_dir)
    meta = json.loads((out_dir / MARKER).read_text(encoding="utf-8"))
    common_classified: dict[tuple[str, str], bool] = {}
    common_tests: dict[tuple[str, str], bool] = {}
    for rel in meta["common_files"]:
        for c in _classes_in(ast.parse((out_dir / rel).read_bytes()).body):
            common_classified[(rel, c.name)] = _declares(c)
            common_tests[(rel, c.name)] = bool(_tests_of(c))
    found: dict[str, tuple[int, int]] = {}
    for path in sorted((out_dir / "test").rglob("*.py")):
        if not (path.name.startswith("test_") or path.name.endswith("_test.py")):
            continue
        rel = path.relative_to(out_dir).as_posix()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                tree = ast.parse(path.read_bytes(), filename=rel)
            except SyntaxError:
                continue
        folder = path.parent.relative_to(out_dir).as_posix()
        imported = {
            a.asname or a.name: f"{folder}/{node.module}.py"
            for node in tree.body
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("common_")
            for a in node.names
        }
        post = {
            t.value.id
            for node in tree.body
            if isinstance(node, ast.Assign)
            for t in node.targets
            if isinstance(t, ast.Attribute) and t.attr == "hw_classification" and isinstance(t.value, ast.Name)
        }
        classes = unclassified = 0
        for c in _classes_in(tree.body):
            bases = [(imported.get(b.id, ""), b.id) for b in c.bases if isinstance(b, ast.Name)]
            if not _tests_of(c) and not any(common_tests.get(b, False) for b in bases):
                continue
            classes += 1
            if not (_declares(c) or c.name in post or any(common_classified.get(b, False) for b in bases)):
                unclassified += 1
        found[rel] = (classes, unclassified)
    return found


def verify(out_dir: Path) -> dict[str, Any]:
    """Parse every file with `ast` and recount, independently of the plan.

    Checks: only the recorded syntax-error files fail to parse; exactly the
    recorded invalid-escape files warn; the unclassified classes per file equal
    the allowlist budgets.
    """
    out_dir = Path(out_dir)
    meta = json.loads((out_dir / MARKER).read_text(encoding="utf-8"))
    allow = {}
    for line in (out_dir / "allowlist.txt").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            path_, n = line.rsplit(" ", 1)
            allow[path_] = int(n)
    # Classified bases exported by the common_<dir>.py modules.
    common_classified: dict[tuple[str, str], bool] = {}
    common_tests: dict[tuple[str, str], bool] = {}
    for rel in meta["common_files"]:
        tree = ast.parse((out_dir / rel).read_bytes())
        for c in _classes_in(tree.body):
            common_classified[(rel, c.name)] = _declares(c)
            common_tests[(rel, c.name)] = bool(_tests_of(c))

    t0 = time.perf_counter()
    parse_failures: list[str] = []
    warned: list[str] = []
    unclassified: dict[str, int] = {}
    classes_per_file: list[int] = []
    methods_per_class: list[int] = []
    device_methods = 0
    total_methods = 0
    inst_calls = 0
    files = sorted(
        p for p in (out_dir / "test").rglob("*.py") if p.name.startswith("test_") or p.name.endswith("_test.py")
    )
    for path in files:
        rel = path.relative_to(out_dir).as_posix()
        src = path.read_bytes()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                tree = ast.parse(src, filename=rel)
            except SyntaxError:
                parse_failures.append(rel)
                continue
        if any(issubclass(c.category, (SyntaxWarning, DeprecationWarning)) for c in caught):
            warned.append(rel)
        imported: dict[str, str] = {}
        post: set[str] = set()
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("common_"):
                for a in node.names:
                    imported[a.asname or a.name] = f"{path.parent.relative_to(out_dir).as_posix()}/{node.module}.py"
            if isinstance(node, ast.Assign):
                for t in node.targets:
                    if isinstance(t, ast.Attribute) and t.attr == "hw_classification" and isinstance(t.value, ast.Name):
                        post.add(t.value.id)
        # Text count is enough: the name is followed by "(" only in calls.
        inst_calls += src.count(b"instantiate_device_type_tests(")
        n_classes = 0
        for c in _classes_in(tree.body):
            own = _tests_of(c)
            base_names = [b.id for b in c.bases if isinstance(b, ast.Name)]
            inherited_tests = any(common_tests.get((imported.get(b, ""), b), False) for b in base_names)
            if not own and not inherited_tests:
                continue
            n_classes += 1
            methods_per_class.append(len(own))
            total_methods += len(own)
            device_methods += sum(1 for m in own if len(m.args.args) > 1 and m.args.args[1].arg == "device")
            classified = (
                _declares(c)
                or c.name in post
                or any(common_classified.get((imported.get(b, ""), b), False) for b in base_names)
            )
            if not classified:
                unclassified[rel] = unclassified.get(rel, 0) + 1
        classes_per_file.append(n_classes)
    elapsed = time.perf_counter() - t0
    total_bytes = sum(p.stat().st_size for p in files)
    result = {
        "files": len(files),
        "bytes": total_bytes,
        "seconds": round(elapsed, 2),
        "parse_failures_match": sorted(parse_failures) == meta["syntax_error_files"],
        "parse_failures": len(parse_failures),
        "escape_warnings_match": sorted(warned) == meta["invalid_escape_files"],
        "escape_warnings": len(warned),
        "allowlist_matches": unclassified == allow,
        "allowlist_mismatches": sorted(
            f"{k}: allowlist {allow.get(k, 0)}, found {unclassified.get(k, 0)}"
            for k in set(allow) | set(unclassified)
            if allow.get(k, 0) != unclassified.get(k, 0)
        )[:10],
        "classes": sum(classes_per_file),
        "methods": total_methods,
        "device_method_fraction": round(device_methods / max(1, total_methods), 4),
        "instantiate_calls": inst_calls,
        "classes_per_file": _pcts(classes_per_file),
        "methods_per_class": _pcts(methods_per_class),
    }
    return result


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out_dir", type=Path)
    parser.add_argument("--files", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--verify",
        action="store_true",
        help="re-parse the tree with ast and check it against the recorded ground truth",
    )
    args = parser.parse_args(argv)
    if args.files < 1:
        parser.error("--files must be at least 1")
    try:
        summary = generate(args.out_dir, files=args.files, seed=args.seed)
    except FileExistsError as e:
        print(f"corpus.py: {e}", file=sys.stderr)
        return 2
    report: dict[str, Any] = {"summary": summary, "vs_target": compare(summary)}
    if args.verify:
        report["verify"] = verify(args.out_dir)
    json.dump(report, sys.stdout, indent=2)
    sys.stdout.write("\n")
    if args.verify:
        v = report["verify"]
        if not (v["parse_failures_match"] and v["escape_warnings_match"] and v["allowlist_matches"]):
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
