"""Which decorators of a class may stay when the class is instantiated
per device (generalized, instantiated for its device, made ACCELERATOR
from GPU_TYPE): those that only mark the class skipped. The framework's
device classes subclass the class (`type("TestFooCUDA", (CUDATestBase,
TestFoo), {})`), so they inherit its `__unittest_skip__`; a decorator that
replaces the class, or wraps it, does something to it hwlint cannot say.
"""

from __future__ import annotations

from hwlint.core.config import Config, torch_version

# unittest's skips, and common_utils' skips that have marked a class
# skipped (rather than wrapped it) for as long as oldest-torch reaches;
# pytest's marks (`@pytest.mark.skipif(...)`: a `pytestmark` attribute), and
# common_utils' `markDynamoStrictTest`, which sets `dynamo_strict` on the
# class and returns it: attributes the device classes get too.
KEPT = frozenset(
    {"skip", "skipIf", "skipUnless", "skipIfTorchDynamo", "skipIfTorchInductor", "skipif", "markDynamoStrictTest"}
)
# common_utils' skips that mark a class skipped (its `__unittest_skip__`)
# rather than replace it with a function since pytorch/pytorch#182295
# (`lazy_skip_if`, May 2026): the release after it is the first sure to have it.
CLASS_SAFE_SKIPS = frozenset(
    {
        "skipIfCrossRef",
        "skipIfRocm",
        "skipIfXpu",
        "skipIfHpu",
        "skipIfWindows",
        "skipIfNoXNNPACK",
        "skipIfNoLapack",
        "skipIfNoSciPy",
        "skipIfNoXPU",
    }
)
CLASS_SAFE_SKIPS_SINCE = "2.13"


def refused_decorator(name: str, config: Config, *, requires: bool = False) -> str | None:
    """Why the class decorator `name` (its last component) keeps the class
    from being instantiated per device, or None when it may stay; with
    `requires`, a `@requires_*()` stays too (the any-gpu migration: its
    GPU_TYPE is checked apart; a class instantiated for its device alone:
    its requirement of that device is still right there)."""
    if name in KEPT or (requires and name.startswith("requires_")):
        return None
    if name in CLASS_SAFE_SKIPS:
        if torch_version(config.oldest_torch) >= torch_version(CLASS_SAFE_SKIPS_SINCE):
            return None
        return (
            f"marks a class skipped only since torch {CLASS_SAFE_SKIPS_SINCE} "
            f"(oldest-torch {config.oldest_torch}): migrate by hand"
        )
    return "decorates the class: generalize by hand"
