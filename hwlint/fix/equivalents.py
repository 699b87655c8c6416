"""What HWC201's rewriter writes in place of a one-device call, backend or
decorator in a given file: a Rewrite's target (hwlint.rules.torch_api)
under the names the file's imports give, or why nothing can be written
there (a NoEquivalent, as torch_api says it). `fix` plans its rewrites
with it (hwlint.fix.plan), and `--unsafe` generalizes a class only when
each of its sites has one (hwlint.fix.migrate).
"""

from __future__ import annotations

from hwlint.core.diagnostics import Rewrite
from hwlint.facts import Import
from hwlint.rules.torch_api import BY_TARGET, GET_DEFAULT_BACKEND, REQUIRES_BACKEND, Equivalent, NoEquivalent


def rewrite_equivalent(fix: Rewrite, imports: tuple[Import, ...]) -> Equivalent | NoEquivalent | None:
    """What the rewriter writes for `fix` in a file with `imports` (None:
    the device itself, `device=device`), or why nothing can be written there."""
    if fix.target == GET_DEFAULT_BACKEND:
        alias = distributed_alias(imports)
        if alias is None:
            return NoEquivalent(
                f"{GET_DEFAULT_BACKEND} needs torch.distributed imported (`import torch.distributed as dist`)"
            )
        return Equivalent(f"{alias}.get_default_backend_for_device", fix.since or "")
    if fix.target.endswith("." + REQUIRES_BACKEND):
        return Equivalent(REQUIRES_BACKEND, fix.since or "")
    return BY_TARGET.get(fix.target)


def distributed_alias(imports: tuple[Import, ...]) -> str | None:
    """The name a module binds torch.distributed (or its distributed_c10d,
    which has get_default_backend_for_device too) to: `dist` for `import
    torch.distributed as dist`, `torch.distributed` after `import torch`."""
    for imp in imports:
        if imp.level:
            continue
        if imp.name is None and imp.module in ("torch.distributed", "torch.distributed.distributed_c10d"):
            return imp.asname
        if (imp.module, imp.name) in (("torch", "distributed"), ("torch.distributed", "distributed_c10d")):
            return imp.asname
    if any(imp.asname == "torch" and imp.level == 0 for imp in imports):
        return "torch.distributed"
    return None
