"""Modules judged in the worker that parsed them (hwlint.engine.alone) and
their fixable count counted there (hwlint.fix.fixable): a run through the
pool gives what a run in one process gives, to the byte."""

from __future__ import annotations

from pathlib import Path

from hwlint.core.config import load_config
from hwlint.engine.alone import Alone, judge_alone
from hwlint.engine.check import CheckResult, run_check, run_of_one
from hwlint.facts import ModuleFacts, extract_source
from hwlint.facts.collect import POOL_THRESHOLD
from hwlint.fix.fixable import fixable_count, fixable_in_module
from hwlint.infra.pool import Packed, unpacked
from hwlint.rules import enabled_codes
from hwlint.rules.missing_classification import MissingClassification
from hwlint.rules.parse_error import ParseError

from .conftest import run_cli, write_project

_HEAD = "from torch.testing._internal.common_utils import TestCase\n"
_DEVICE = "from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCUDA\n"

# A base whose safe fix (GENERIC) surfaces a finding in a subclass in another
# file: the fixable count must not take the base's count from its worker.
_BASE = _HEAD + "\n\nclass Base(TestCase):\n    def test_base(self):\n        pass\n"
_SUB = (
    _DEVICE
    + "from common_base import Base\n\n\n"
    + "class TestSub(Base):\n    @onlyCUDA\n    def test_x(self, device):\n        pass\n\n\n"
    + "instantiate_device_type_tests(TestSub, globals())\n"
)


def _files() -> dict[str, str]:
    files = {"test/common_base.py": _BASE, "test/test_sub.py": _SUB}
    for i in range(POOL_THRESHOLD + 4):
        files[f"test/test_plain_{i}.py"] = (
            _HEAD + f"\n\nclass TestPlain{i}(TestCase):\n    def test_a(self):\n        pass\n"
        )
    files["test/test_cuda.py"] = (
        _HEAD + "import torch\n\n\nclass TestCuda(TestCase):\n    def test_a(self):\n        torch.ones(1).cuda()\n"
    )
    files["test/test_ignored.py"] = _HEAD + "\n\nclass TestIgnored(TestCase):\n    def test_a(self):\n        pass\n"
    files["test/test_noqa.py"] = (
        _HEAD + "\n\nclass TestNoqa(TestCase):  # noqa: HWC001\n    def test_a(self):\n        pass\n"
    )
    files["test/test_listed.py"] = (
        _HEAD
        + "\n\nclass TestListedA(TestCase):\n    def test_a(self):\n        pass\n"
        + "\n\nclass TestListedB(TestCase):\n    def test_a(self):\n        pass\n"
    )
    return files


def _project(tmp_path: Path) -> Path:
    settings = {"include": ["test/**/*.py"], "per-file-ignores": {"test/test_ignored.py": ["HWC001"]}}
    # test_listed.py is over its budget of 1: its HWC302 carries a fix.
    return write_project(tmp_path / "proj", _files(), settings, "test/test_listed.py 1\n")


def test_a_pool_run_judges_most_modules_in_its_workers_and_finds_what_one_process_finds(tmp_path: Path) -> None:
    config = load_config(start=_project(tmp_path))
    one = run_check(config, jobs=1, cache=False)
    pooled = run_check(config, jobs=2, cache=False, per_module=fixable_in_module)
    assert one.alone == {}
    # Every module, in its worker; the subclass read its base's file there.
    assert sorted(pooled.alone) == sorted(pooled.paths())
    assert {p: a.needs for p, a in pooled.alone.items() if a.needs} == {"test/test_sub.py": ("test/common_base.py",)}
    assert pooled.diagnostics == one.diagnostics
    assert pooled.allowlist_counts == one.allowlist_counts
    # Only the subclass can inherit from its base's file (fix's trials ask no other module).
    assert [c.path for c in pooled.may_inherit_from({"test/common_base.py"})] == ["test/test_sub.py"]
    assert list(pooled.may_inherit_from({"test/test_plain_0.py"})) == []
    assert pooled.inherited() == {"test/common_base.py"}


def test_the_fixable_count_through_the_workers_is_the_one_process_count(tmp_path: Path) -> None:
    config = load_config(start=_project(tmp_path))
    one = run_check(config, jobs=1, cache=False)
    pooled = run_check(config, jobs=2, cache=False, per_module=fixable_in_module)
    # The 20 plain classes and the one of test_listed.py beyond its budget
    # (planned with the run: its HWC302 carries the fix); not Base (GENERIC
    # would surface HWC101 and HWC102 in TestSub), not TestCuda (unsafe), not
    # the ignored or noqa'd ones.
    assert fixable_count(one) == fixable_count(pooled) == POOL_THRESHOLD + 4 + 1
    # Alone, Base would be fixable: its worker's count is not taken.
    assert pooled.alone["test/common_base.py"].extra == 1


def test_check_text_is_the_same_through_the_pool(tmp_path: Path) -> None:
    root = _project(tmp_path)
    one = run_cli("check", "--no-cache", "-j", "1", cwd=root)
    pooled = run_cli("check", "--no-cache", "-j", "2", cwd=root)
    assert pooled.stdout == one.stdout and pooled.returncode == one.returncode == 1
    assert f"{POOL_THRESHOLD + 4 + 1} fixable with `hwlint fix`." in pooled.stdout


def test_a_worker_reads_the_file_a_base_comes_from_and_judges_as_the_run_does(tmp_path: Path) -> None:
    config = load_config(start=_project(tmp_path))
    judge = judge_alone(config, enabled_codes(tuple(config.select), ()), fixable_in_module, run_of_one)

    def step(path: str, facts: ModuleFacts) -> Alone:
        return Packed.of({path: judge(path, facts)}).unpack()[path]  # as it travels back from the worker

    sub = step("test/test_sub.py", extract_source("test/test_sub.py", _SUB))
    assert sub.needs == ("test/common_base.py",)
    # TestSub inherits nothing (Base declares nothing): its HWC001, and its
    # GENERIC-or-ACCELERATOR fix is not safe (@onlyCUDA), so none counted.
    assert [(d.code, d.class_name) for d in sub.diagnostics] == [(MissingClassification.code, "TestSub")]
    assert sub.extra == 0
    alone = step("test/common_base.py", extract_source("test/common_base.py", _BASE))
    assert not alone.broken and alone.extra == 1
    assert [(d.code, d.class_name) for d in alone.diagnostics] == [(MissingClassification.code, "Base")]
    broken = step("test/test_bad.py", extract_source("test/test_bad.py", "class (:\n"))
    assert broken.broken and [d.code for d in broken.diagnostics] == [ParseError.code]


def test_a_base_file_outside_the_tests_read_by_a_worker_is_an_input_of_the_cached_run(tmp_path: Path) -> None:
    from hwlint.engine.cached import store_for

    files = {f"test/test_plain_{i}.py": _HEAD + f"\n\nclass TestPlain{i}(TestCase):\n    pass\n" for i in range(20)}
    files["test/test_sub.py"] = (
        "from helpers import Base\n\n\nclass TestSub(Base):\n    def test_x(self):\n        pass\n"
    )
    files["test/helpers.py"] = _BASE.replace(
        "class Base(TestCase):", "class Base(TestCase):\n    hw_classification = 1"
    )
    root = write_project(tmp_path / "proj", files, {"include": ["test/test_*.py"]})
    config = load_config(start=root)

    def sub_codes() -> tuple[list[str], CheckResult]:
        result = run_check(config, jobs=2, cache=store_for(config, tmp_path / "cache"))
        return sorted(d.code for d in result.diagnostics if d.path == "test/test_sub.py"), result

    # Base's declaration is invalid: TestSub inherits nothing. A cold run:
    # the worker judged TestSub, reading the file that is no test file.
    invalid, cold = sub_codes()
    assert invalid == [MissingClassification.code] and "test/helpers.py" not in cold.paths()
    assert cold.alone["test/test_sub.py"].needs == ("test/helpers.py",)
    again, warm = sub_codes()
    assert again == invalid and warm.alone == {}  # the whole-tree memo
    base = _BASE.replace("(TestCase):", "(TestCase):\n    hw_classification = HardwareClassification.GENERIC")
    (root / "test/helpers.py").write_text(base)
    assert sub_codes()[0] == []  # the memo does not hide the new base: the worker's read was recorded


def _count_fails(result: CheckResult) -> int:
    raise RuntimeError("a consumer's per-module step that fails")


def test_a_failing_per_module_step_leaves_the_count_to_the_main_process(tmp_path: Path) -> None:
    config = load_config(start=_project(tmp_path))
    one = run_check(config, jobs=1, cache=False)
    pooled = run_check(config, jobs=2, cache=False, per_module=_count_fails)
    assert pooled.diagnostics == one.diagnostics
    assert all(a.extra is None for a in pooled.alone.values())
    assert fixable_count(pooled) == fixable_count(one) == POOL_THRESHOLD + 4 + 1


def test_a_tasks_values_travel_in_one_pack_and_unpack_together() -> None:
    import pickle

    pack = Packed.of({"a.py": [1, "x"], "b.py": None})
    values: dict[str, object] = {"a.py": pack, "b.py": pack, "c.py": 3}
    # One task's result pickles its pack once, however many files share it.
    sent = pickle.loads(pickle.dumps(values))
    assert sent["a.py"] is sent["b.py"] and isinstance(sent["a.py"], Packed)
    assert unpacked(sent, "b.py") is None and sent["a.py"] == [1, "x"]
    assert unpacked(sent, "c.py") == 3 and unpacked(sent, "d.py") is None
