"""Coverage-guided fuzzing of hwlint's pipeline with atheris, for long runs
outside CI (CI runs the hypothesis version in tests/test_robustness.py):

    pip install atheris && python fuzz/fuzz_pipeline.py -max_total_time=600

Each input is written as a test file of a small project and checked (read →
facts → resolve → rules → allowlist → every output format), then fixed in
memory. Any exception is a bug: atheris stops and saves the input.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import atheris

with atheris.instrument_imports():
    from hwlint.core.config import load_config
    from hwlint.engine.check import run_check
    from hwlint.fix.apply import fix_file, plan_fixes
    from hwlint.output import NAMES, renderer

_ROOT = Path(tempfile.mkdtemp(prefix="hwlint-fuzz-"))
(_ROOT / "pyproject.toml").write_text('[tool.hwlint]\nselect = ["ALL"]\n')
(_ROOT / "test").mkdir()
(_ROOT / "allowlist.txt").write_text("test/test_listed.py 1\n")
_CONFIG = load_config(start=_ROOT)


def one_input(data: bytes) -> None:
    half = len(data) // 2
    (_ROOT / "test" / "test_fuzz.py").write_bytes(data[:half])
    (_ROOT / "test" / "test_listed.py").write_bytes(data[half:])
    result = run_check(_CONFIG, jobs=1)
    for fmt in NAMES:
        renderer(fmt)(result, fmt=fmt)
    plans, _ = plan_fixes(result, unsafe=True)
    facts = {ctx.path: ctx.facts for ctx in result.contexts}
    for plan in plans:
        fix_file(_ROOT, plan, facts[plan.path], _CONFIG)


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
