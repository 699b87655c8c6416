"""What PyTorch offers in place of one device's module, and since which release.

HWC201's rewrites turn `torch.cuda.synchronize()` into
`torch.accelerator.synchronize()`: the table below says, for each function of
a one-device module (`torch.cuda`, `torch.xpu`, `torch.npu`, `torch.mps`, or
a backend's `extend-accelerator-modules`), what the device-generic call is
and the first PyTorch release that has it, so that a project whose
`oldest-torch` is older gets no rewrite it cannot run. Versions are those of
PyTorch's documentation (docs.pytorch.org/docs/<version>/accelerator.html);
the names were checked against an installed torch 2.14.1.

Calls with no device-generic equivalent get no rewrite, and the reason names
the API, so that a human sees the test is really device-specific.
"""

from __future__ import annotations

from typing import NamedTuple

from hwlint.core.config import torch_version
from hwlint.facts.devices import BACKENDS as DEVICE_BACKENDS


class Equivalent(NamedTuple):
    """A device-generic call that does what one device's function does."""

    target: str  # dotted name of the replacement callable
    since: str  # first PyTorch release that has it
    # The shape of call the replacement accepts: most torch.accelerator
    # functions take their one argument positionally only (`device=None, /`).
    max_positional: int = 1
    keywords: tuple[str, ...] = ()  # keyword arguments the replacement accepts too


_TORCH_2_6 = "2.6"  # torch.accelerator: device_count, is_available, current_stream, set_stream, synchronize
_TORCH_2_7 = "2.7"  # current_device_index, set_device_index (2.6 had *_idx, deprecated since)
_TORCH_2_8 = "2.8"  # device_index (context manager)
_TORCH_2_9 = "2.9"  # torch.accelerator memory statistics
_TORCH_2_10 = "2.10"  # get_memory_info (not in 2.9's documentation)

# Keyed by the function's name under the one-device module.
EQUIVALENTS: dict[str, Equivalent] = {
    "synchronize": Equivalent("torch.accelerator.synchronize", _TORCH_2_6),
    "current_stream": Equivalent("torch.accelerator.current_stream", _TORCH_2_6),
    "set_stream": Equivalent("torch.accelerator.set_stream", _TORCH_2_6),
    "device_count": Equivalent("torch.accelerator.device_count", _TORCH_2_6, 0),
    "is_available": Equivalent("torch.accelerator.is_available", _TORCH_2_6, 0),
    "current_device": Equivalent("torch.accelerator.current_device_index", _TORCH_2_7, 0),
    "set_device": Equivalent("torch.accelerator.set_device_index", _TORCH_2_7),
    "device": Equivalent("torch.accelerator.device_index", _TORCH_2_8),
    "empty_cache": Equivalent("torch.accelerator.empty_cache", _TORCH_2_9, 0),
    "memory_allocated": Equivalent("torch.accelerator.memory_allocated", _TORCH_2_9),
    "max_memory_allocated": Equivalent("torch.accelerator.max_memory_allocated", _TORCH_2_9),
    "memory_reserved": Equivalent("torch.accelerator.memory_reserved", _TORCH_2_9),
    "max_memory_reserved": Equivalent("torch.accelerator.max_memory_reserved", _TORCH_2_9),
    "memory_stats": Equivalent("torch.accelerator.memory_stats", _TORCH_2_9),
    "reset_peak_memory_stats": Equivalent("torch.accelerator.reset_peak_memory_stats", _TORCH_2_9),
    "reset_accumulated_memory_stats": Equivalent("torch.accelerator.reset_accumulated_memory_stats", _TORCH_2_9),
    "mem_get_info": Equivalent("torch.accelerator.get_memory_info", _TORCH_2_10),
    # The generic classes take the device first and everything else by
    # keyword; without a device they use the current accelerator. (The
    # device-generic torch.Stream/torch.Event predate torch.accelerator;
    # 2.6 is the release where both exist with `device=None` meaning it.)
    "Stream": Equivalent("torch.Stream", _TORCH_2_6, 1, ("device", "priority")),
    "Event": Equivalent("torch.Event", _TORCH_2_6, 0, ("enable_timing", "blocking", "interprocess")),
}

# Distributed tests (HWC201 in test/distributed): what stands for one device
# family's collective backend, keyed by the hard-coded thing (Site.kind:
# "backend" strings, "decorator" names). get_default_backend_for_device came
# with PR pytorch/pytorch#140536 (merged for 2.6; documented in
# distributed.html since). requires_accelerator_dist_backend and
# ACCELERATOR_DIST_BACKENDS are test helpers of
# torch.testing._internal.common_distributed, present in torch 2.14 and
# used by the XPU ports of PyTorch's distributed tests in 2025; no release
# note pins their first release down, so hwlint asks for 2.9, the first
# release after those ports, rather than guess an older one.
_TORCH_2_9_TEST_HELPERS = _TORCH_2_9
GET_DEFAULT_BACKEND = "torch.distributed.get_default_backend_for_device"
REQUIRES_BACKEND_MODULE = "torch.testing._internal.common_distributed"
REQUIRES_BACKEND = "requires_accelerator_dist_backend"
DISTRIBUTED: dict[str, Equivalent] = {
    '"nccl"': Equivalent(GET_DEFAULT_BACKEND, _TORCH_2_6),
    '"xccl"': Equivalent(GET_DEFAULT_BACKEND, _TORCH_2_6),
    '"hccl"': Equivalent(GET_DEFAULT_BACKEND, _TORCH_2_6),
    "requires_nccl": Equivalent(f"{REQUIRES_BACKEND_MODULE}.{REQUIRES_BACKEND}", _TORCH_2_9_TEST_HELPERS),
    "requires_xccl": Equivalent(f"{REQUIRES_BACKEND_MODULE}.{REQUIRES_BACKEND}", _TORCH_2_9_TEST_HELPERS),
    "skip_if_no_nccl": Equivalent(f"{REQUIRES_BACKEND_MODULE}.{REQUIRES_BACKEND}", _TORCH_2_9_TEST_HELPERS),
}
# The collective backends of one device family, and that family.
BACKENDS = DEVICE_BACKENDS

# Backend-specific test helpers with no device-generic form, and why.
DISTRIBUTED_SPECIFIC: dict[str, str] = {
    "requires_nccl_version": "an NCCL version requirement is NCCL-only",
    "requires_hccl": (
        'requires_accelerator_dist_backend knows "hccl" as Habana\'s (TEST_HPU); '
        "Ascend's HCCL is a PrivateUse1 backend it does not see"
    ),
    "skip_if_no_hccl": (
        'requires_accelerator_dist_backend knows "hccl" as Habana\'s (TEST_HPU); '
        "Ascend's HCCL is a PrivateUse1 backend it does not see"
    ),
    "pg_options": "process-group options are backend-specific (ProcessGroupNCCL.Options and the like)",
}

BY_TARGET: dict[str, Equivalent] = {e.target: e for e in EQUIVALENTS.values()}

# Functions with no device-generic equivalent, and why (matched on the name
# under the device module, or its first component: `tunable.enable`).
DEVICE_SPECIFIC: dict[str, str] = {
    "tunable": "TunableOp is a CUDA/ROCm feature",
    "get_device_capability": "the compute capability is specific to one device's architecture",
    "get_device_properties": "device properties differ per backend",
    "get_device_name": "torch.accelerator has no get_device_name",
    "graph": "device graphs (CUDA graphs) have no device-generic API in the supported PyTorch",
    "graphs": "device graphs (CUDA graphs) have no device-generic API in the supported PyTorch",
    "CUDAGraph": "CUDA graphs have no device-generic API in the supported PyTorch",
    "XPUGraph": "XPU graphs have no device-generic API in the supported PyTorch",
    "NPUGraph": "NPU graphs have no device-generic API in the supported PyTorch",
    "stream": "torch.accelerator has no stream context manager; use `with torch.Stream(...)` by hand",
    "default_stream": "torch.accelerator has no default_stream",
    "manual_seed": "torch.accelerator has no manual_seed (torch.manual_seed also seeds the CPU)",
    "manual_seed_all": "torch.accelerator has no manual_seed_all (torch.manual_seed also seeds the CPU)",
    "get_rng_state": "torch.accelerator has no public get_rng_state",
    "set_rng_state": "torch.accelerator has no public set_rng_state",
    "initial_seed": "torch.accelerator has no public initial_seed",
    "amp": "device autocast: use torch.autocast(self.device_type, ...) by hand",
    "nvtx": "NVTX ranges are CUDA-only",
    "jiterator": "the jiterator is CUDA-only",
    "profiler": "the device profiler is backend-specific",
    "is_tf32_supported": "TF32 support is specific to one device",
    "reset_max_memory_allocated": "torch.accelerator has only reset_peak_memory_stats, which resets every peak",
}

# Legacy typed tensors (torch.cuda.FloatTensor): there is nothing device-generic.
_TENSOR_TYPES = frozenset(
    {
        "FloatTensor",
        "DoubleTensor",
        "HalfTensor",
        "BFloat16Tensor",
        "LongTensor",
        "IntTensor",
        "ShortTensor",
        "CharTensor",
        "ByteTensor",
        "BoolTensor",
    }
)


class NoEquivalent(NamedTuple):
    """Why a one-device call or backend has no device-generic replacement."""

    reason: str


def equivalent(dotted: str, module: str, oldest_torch: str) -> Equivalent | NoEquivalent:
    """What replaces a call of `dotted` (a function under the one-device
    `module`) in a project that supports PyTorch `oldest_torch` and later."""
    name = dotted[len(module) + 1 :]
    found = EQUIVALENTS.get(name)
    if found is not None:
        if torch_version(found.since) > torch_version(oldest_torch):
            return NoEquivalent(
                f"{found.target} needs PyTorch {found.since}, and the project supports {oldest_torch} (oldest-torch)"
            )
        return found
    head = name.split(".", 1)[0]
    if head in DEVICE_SPECIFIC:
        return NoEquivalent(f"{dotted}: {DEVICE_SPECIFIC[head]}")
    if head in _TENSOR_TYPES:
        return NoEquivalent(
            f"{dotted}: legacy typed tensors have no device-generic form; use torch.tensor(..., device=device)"
        )
    return NoEquivalent(f"{dotted} has no known device-generic equivalent")


def why_none(kind: str, name: str) -> str:
    """Why a site has no device-generic equivalent at all, in a few words
    that do not name it (`hwlint fix` shows them after the site's code), or
    "" when the API is not known to have none: `kind` is the site's
    (hwlint.facts.Site), `name` the function under its one-device module
    (`get_device_properties`, `tunable.enable`), the backend or the decorator."""
    if kind == "module":
        head = name.split(".", 1)[0]
        if head in DEVICE_SPECIFIC:
            return DEVICE_SPECIFIC[head]
        if head in _TENSOR_TYPES:
            return "legacy typed tensors have no device-generic form; use torch.tensor(..., device=device)"
        return ""
    if kind == "backend-options":
        return DISTRIBUTED_SPECIFIC["pg_options"]
    return DISTRIBUTED_SPECIFIC.get(name, "")


def distributed_equivalent(kind: str, name: str, oldest_torch: str) -> Equivalent | NoEquivalent:
    """What replaces a one-device backend string (kind "backend", name
    "nccl") or backend decorator (kind "decorator", name "requires_nccl")
    in a project that supports PyTorch `oldest_torch` and later."""
    key = f'"{name}"' if kind == "backend" else name
    if kind == "backend-options":
        return NoEquivalent(f'backend "{name}" with pg_options: {DISTRIBUTED_SPECIFIC["pg_options"]}')
    if key in DISTRIBUTED_SPECIFIC:
        return NoEquivalent(f"@{name}: {DISTRIBUTED_SPECIFIC[key]}")
    found = DISTRIBUTED.get(key)
    if found is None:
        return NoEquivalent(f"{key} has no known device-generic equivalent")
    if torch_version(found.since) > torch_version(oldest_torch):
        return NoEquivalent(
            f"{found.target} needs PyTorch {found.since}, and the project supports {oldest_torch} (oldest-torch)"
        )
    return found
