"""The tree's shape: the targets measured in corpus-facts.md, and the plan of
files, classes and methods drawn to meet them (before any text is written)."""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

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


def unique_name(taken: set[str], make: Callable[[], str]) -> str:
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


def camel_case(words: Sequence[str]) -> str:
    return "".join(w[:1].upper() + w[1:] for w in words)


def dir_stem(directory: str) -> str:
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


def plan_tree(files: int, seed: int) -> tuple[list[FilePlan], Probabilities]:
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

        p.relpath = unique_name(taken_paths, make_name)
        taken_class: set[str] = set()
        for c in p.classes:
            c.name = unique_name(
                taken_class,
                lambda: "Test" + camel_case(rng.sample(WORDS, rng.choice([1, 2, 2, 3]))) + rng.choice(CLASS_SUFFIXES),
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
