"""HWC201's device-agnostic rewrites: snippets in, exact code out, through
`hwlint fix --unsafe --select HWC201` as a user runs it (and the API where a
test needs the report)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from hwlint.core.config import load_config, torch_version
from hwlint.core.diagnostics import NotFixable, Rewrite
from hwlint.fix.apply import apply_fixes
from hwlint.rules.torch_api import BY_TARGET, EQUIVALENTS
from tests.conftest import lint, run_cli, write_project

HEAD = (
    "import torch\n"
    "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n\n"
    "class TestA(TestCase):\n"
    "    hw_classification = HardwareClassification.ACCELERATOR\n\n"
)
TAIL = "\n\ninstantiate_device_type_tests(TestA, globals())\n"
SETTINGS = {"select": ["HWC0", "HWC1", "HWC201"]}


def rewrite(tmp_path: Path, body: str, settings: dict | None = None, tail: str = TAIL) -> tuple[str, str]:
    """The class body after `hwlint fix --unsafe --select HWC201`, and what fix printed."""
    root = write_project(tmp_path / "proj", {"test/test_a.py": HEAD + body + tail}, {**SETTINGS, **(settings or {})})
    proc = run_cli("fix", "--unsafe", "--select", "HWC201", cwd=root)
    assert "Traceback" not in proc.stderr, proc.stderr
    text = (root / "test/test_a.py").read_text()
    assert text.startswith(HEAD) and text.endswith(tail), text
    return text[len(HEAD) : len(text) - len(tail)], proc.stderr


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("x = torch.ones(2, device='cuda')", "x = torch.ones(2, device=device)"),
        ('x = torch.ones(2, device="cuda:0")', "x = torch.ones(2, device=device)"),
        ('x = torch.ones(2, device="xpu")', "x = torch.ones(2, device=device)"),
        ("y = x.cuda()", "y = x.to(device)"),
        ("y = x.xpu()", "y = x.to(device)"),
        ("y = x.cuda(0)", "y = x.to(device)"),
        ("y = x.cuda(non_blocking=True)", "y = x.to(device, non_blocking=True)"),
        ("y = x.cuda(device)", "y = x.to(device)"),
        ('y = x.to("cuda")', "y = x.to(device)"),
        ('y = x.to("cuda", torch.half)', "y = x.to(device, torch.half)"),
        ('d = torch.device("cuda")', "d = torch.device(device)"),
        ('d = torch.device("cuda", 0)', "d = torch.device(device)"),
        ("torch.cuda.synchronize()", "torch.accelerator.synchronize()"),
        ("torch.xpu.synchronize(device)", "torch.accelerator.synchronize(device)"),
        # torch.accelerator takes the device positionally only.
        ("torch.cuda.synchronize(device=device)", "torch.accelerator.synchronize(device)"),
        ("s = torch.cuda.current_stream()", "s = torch.accelerator.current_stream()"),
        ("i = torch.cuda.current_device()", "i = torch.accelerator.current_device_index()"),
        ("torch.cuda.set_device(0)", "torch.accelerator.set_device_index(0)"),
        ("s = torch.cuda.Stream(priority=-1)", "s = torch.Stream(priority=-1)"),
        ("e = torch.cuda.Event(enable_timing=True)", "e = torch.Event(enable_timing=True)"),
        # What the device is not part of stays put, comments included.
        ("y = x.cuda()  # to the GPU", "y = x.to(device)  # to the GPU"),
        ("f = lambda t: t.cuda()", "f = lambda t: t.to(device)"),
        # A call chained on the rewritten one goes with it (PyTorch's SDPA tests).
        ("torch.cuda.current_stream().wait_stream(s)", "torch.accelerator.current_stream().wait_stream(s)"),
        # The use starts a line above its `.cuda()` (PyTorch's sparse tests).
        (
            "a = torch.tensor([1,\n                      2]).cuda()",
            "a = torch.tensor([1,\n                      2]).to(device)",
        ),
    ],
)
def test_in_a_test_method_the_device_argument_is_used(tmp_path: Path, before: str, after: str) -> None:
    body, _ = rewrite(tmp_path, f"    def test_a(self, device):\n        x = torch.ones(2)\n        {before}\n")
    assert body == f"    def test_a(self, device):\n        x = torch.ones(2)\n        {after}\n"


def test_other_methods_of_an_instantiated_class_use_self_device_type(tmp_path: Path) -> None:
    body, _ = rewrite(
        tmp_path,
        (
            "    def setUp(self):\n        super().setUp()\n        self.x = torch.ones(2).cuda()\n\n"
            "    def _make(self, n):\n        return torch.zeros(n, device='cuda')\n\n"
            "    @classmethod\n    def setUpClass(cls):\n        cls.d = torch.device('cuda')\n\n"
            "    def test_a(self, device):\n        self._make(2)\n"
        ),
    )
    assert body == (
        "    def setUp(self):\n        super().setUp()\n        self.x = torch.ones(2).to(self.device_type)\n\n"
        "    def _make(self, n):\n        return torch.zeros(n, device=self.device_type)\n\n"
        "    @classmethod\n    def setUpClass(cls):\n        cls.d = torch.device(cls.device_type)\n\n"
        "    def test_a(self, device):\n        self._make(2)\n"
    )


def test_what_cannot_be_rewritten_stays_with_the_reason(tmp_path: Path) -> None:
    source = (
        "    x = torch.ones(2).cuda()\n\n"
        "    @staticmethod\n    def make():\n        return torch.ones(2).cuda()\n\n"
        "    def test_a(self, device):\n"
        "        y = torch.ones(2).cuda(1)\n"
        "        torch.cuda.current_device(device)\n"
        "        torch.cuda.get_device_capability()\n"
        "        torch.cuda.tunable.enable()\n"
        "        torch.cuda.memory_allocated()\n"
        "        z = torch.ones(2, device='cuda:1')\n\n"
        "    def test_b(self, devices):\n        torch.ones(2).cuda()\n"
    )
    body, printed = rewrite(tmp_path, source)
    assert body == source
    assert "13 findings need a human" not in printed
    for reason in [
        ":8: TestA: not rewritten: in the body of class TestA, which runs before a device is chosen",
        ":12: TestA: not rewritten: make is a static method",
        ":15: TestA: not rewritten: .cuda() names a device other than the default one",
        ":16: TestA: not rewritten: torch.accelerator.current_device_index does not take the arguments torch.cuda.current_device() is given here",
        ":17: TestA: torch.cuda.get_device_capability: the compute capability is specific to one device's architecture",
        ":18: TestA: torch.cuda.tunable.enable: TunableOp is a CUDA/ROCm feature",
        ":19: TestA: torch.accelerator.memory_allocated needs PyTorch 2.9, and the project supports 2.7 (oldest-torch)",
        ':20: TestA: "cuda:1" names a second device',
        ":23: TestA: not rewritten: test_b takes `devices` (several devices): choose one by hand",
    ]:
        assert reason in printed, printed


def test_oldest_torch_allows_newer_apis(tmp_path: Path) -> None:
    body, _ = rewrite(
        tmp_path,
        "    def test_a(self, device):\n        torch.cuda.memory_allocated(device)\n",
        {"oldest-torch": "2.9"},
    )
    assert body == "    def test_a(self, device):\n        torch.accelerator.memory_allocated(device)\n"


def test_a_class_not_instantiated_has_no_device_type(tmp_path: Path) -> None:
    source = (
        "    def setUp(self):\n        self.x = torch.ones(2).cuda()\n\n    def test_a(self, device):\n        pass\n"
    )
    body, printed = rewrite(tmp_path, source, tail="\n")
    assert body == source
    assert "TestA is not passed to instantiate_device_type_tests, so it has no `device_type`" in printed


def test_generic_class_gets_no_rewrite_the_message_says_it_is_misclassified(tmp_path: Path) -> None:
    source = (
        "import torch\n\n\nclass TestG(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_g(self):\n        torch.ones(2).cuda()\n"
    )
    root = write_project(tmp_path / "proj", {"test/test_g.py": source}, SETTINGS)
    result = lint(root)
    (diag,) = [d for d in result.diagnostics if d.code == "HWC201"]
    assert diag.message == (
        "GENERIC test class TestG hard-codes a device (.cuda()): it is misclassified (ACCELERATOR, "
        "or the device's member), or the device use must go"
    )
    assert isinstance(diag.fix, NotFixable)
    proc = run_cli("fix", "--unsafe", "--select", "HWC201", cwd=root)
    assert proc.returncode == 1
    assert (root / "test/test_g.py").read_text() == source
    assert "TestG is GENERIC but uses a device: it is misclassified" in proc.stderr


def test_rewrites_need_unsafe_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    files = {"test/test_a.py": HEAD + "    def test_a(self, device):\n        torch.ones(2).cuda()\n" + TAIL}
    root = write_project(tmp_path / "proj", files, SETTINGS)
    safe = run_cli("fix", "--select", "HWC201", cwd=root)
    assert safe.returncode == 1
    assert (root / "test/test_a.py").read_text() == files["test/test_a.py"]
    assert "unsafe rewrite of cuda" in safe.stderr and "apply with --unsafe" in safe.stderr
    first = run_cli("fix", "--unsafe", "--select", "HWC201", cwd=root)
    assert first.returncode == 0, first.stderr
    assert "Rewrote 1 hard-coded device in 1 file." in first.stderr
    fixed = (root / "test/test_a.py").read_bytes()
    second = run_cli("fix", "--unsafe", "--select", "HWC201", cwd=root)
    assert second.returncode == 0 and (root / "test/test_a.py").read_bytes() == fixed
    assert run_cli("check", "--select", "HWC201", cwd=root).returncode == 0


def test_default_fix_leaves_hwc201_alone_unless_the_project_selects_it(tmp_path: Path) -> None:
    text = HEAD + "    def test_a(self, device):\n        torch.ones(2).cuda()\n" + TAIL
    root = write_project(tmp_path / "proj", {"test/test_a.py": text})
    assert run_cli("fix", "--unsafe", cwd=root).returncode == 0
    assert (root / "test/test_a.py").read_text() == text
    root = write_project(tmp_path / "opted-in", {"test/test_a.py": text}, SETTINGS)
    assert run_cli("fix", "--unsafe", cwd=root).returncode == 0
    assert "torch.ones(2).to(device)" in (root / "test/test_a.py").read_text()


def test_diff_shows_the_rewrite_and_writes_nothing(tmp_path: Path) -> None:
    text = HEAD + "    def test_a(self, device):\n        torch.cuda.synchronize()\n" + TAIL
    root = write_project(tmp_path / "proj", {"test/test_a.py": text}, SETTINGS)
    proc = run_cli("fix", "--unsafe", "--select", "HWC201", "--diff", cwd=root)
    assert proc.returncode == 1
    assert "-        torch.cuda.synchronize()\n+        torch.accelerator.synchronize()\n" in proc.stdout
    assert "Would rewrite 1 hard-coded device in 1 file." in proc.stderr
    assert (root / "test/test_a.py").read_text() == text


def test_json_fix_field_and_summary_counts(tmp_path: Path) -> None:
    text = HEAD + "    def test_a(self, device):\n        torch.cuda.synchronize()\n        torch.cuda.graph()\n" + TAIL
    root = write_project(tmp_path / "proj", {"test/test_a.py": text}, SETTINGS)
    proc = run_cli("check", "--select", "HWC201", "--format", "json", cwd=root)
    found = json.loads(proc.stdout)
    assert [d["fix"] for d in found] == [
        {
            "applicability": "unsafe",
            "rewrite": "torch.cuda.synchronize",
            "with": "torch.accelerator.synchronize",
            "since": "2.6",
            "evidence": "a device-agnostic rewrite changes what the test runs on",
        },
        None,
    ]
    assert "no device-generic rewrite: torch.cuda.graph: device graphs" in found[1]["message"]
    report = apply_fixes(load_config(start=root), lint(root, select=("HWC201",)), unsafe=True, write=False, jobs=1)
    assert report.rewritten == 1 and [u.line for u in report.unfixed] == [10]


def test_oldest_torch_is_validated(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", {}, {"oldest-torch": "two"})
    proc = run_cli("check", cwd=root)
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith(
        "[tool.hwlint] oldest-torch must be a PyTorch release such as \"2.7\", got 'two'"
    )
    assert torch_version("2.9.0+cu128") == (2, 9) and torch_version("2.10") > torch_version("2.9")


def test_every_mapping_names_an_api_of_torch_2_14() -> None:
    """The table's targets, as they exist in torch 2.14.1 (checked there once:
    `python -c "import torch.accelerator as a; print(a.__all__)"`)."""
    accelerator_all = {
        "current_device_index",
        "current_stream",
        "device_count",
        "device_index",
        "empty_cache",
        "get_memory_info",
        "is_available",
        "max_memory_allocated",
        "max_memory_reserved",
        "memory_allocated",
        "memory_reserved",
        "memory_stats",
        "reset_accumulated_memory_stats",
        "reset_peak_memory_stats",
        "set_device_index",
        "set_stream",
        "synchronize",
    }
    for equivalent in EQUIVALENTS.values():
        module, _, name = equivalent.target.rpartition(".")
        assert (module == "torch.accelerator" and name in accelerator_all) or equivalent.target in (
            "torch.Stream",
            "torch.Event",
        )
        assert torch_version(equivalent.since) >= (2, 6)
    assert BY_TARGET["torch.accelerator.synchronize"].since == "2.6"


def test_lintrunner_replacement_carries_the_rewrite(tmp_path: Path) -> None:
    text = HEAD + "    def test_a(self, device):\n        torch.ones(2).cuda()\n" + TAIL
    root = write_project(tmp_path / "proj", {"test/test_a.py": text}, SETTINGS)
    proc = run_cli("lintrunner", str(root / "test/test_a.py"), cwd=root)
    (message,) = [json.loads(line) for line in proc.stdout.splitlines()]
    assert message["name"] == "HWC201 hardcoded-device"
    assert message["original"] == text
    assert message["replacement"] == text.replace("torch.ones(2).cuda()", "torch.ones(2).to(device)")


def test_rule_plans_typed_rewrites(tmp_path: Path) -> None:
    text = (
        HEAD
        + "    def test_a(self, device):\n        torch.ones(2, device='cuda')\n        torch.cuda.synchronize()\n"
        + TAIL
    )
    root = write_project(tmp_path / "proj", {"test/test_a.py": text}, SETTINGS)
    fixes = [d.fix for d in lint(root, select=("HWC201",)).diagnostics]
    assert fixes == [
        Rewrite("unsafe", "keyword", "cuda", "device"),
        Rewrite("unsafe", "module", "torch.cuda.synchronize", "torch.accelerator.synchronize", "2.6"),
    ]


README = Path(__file__).resolve().parent.parent / "docs" / "fix.md"


def test_readme_before_and_after_example_is_what_fix_does(tmp_path: Path) -> None:
    readme = README.read_text()
    blocks = dict(re.findall(r"<!-- rewrite-example: (\w+) -->\n```python\n(.*?)```", readme, re.S))
    assert set(blocks) == {"before", "after"}, "docs/fix.md lost its before/after example"
    root = write_project(tmp_path / "proj", {"test/test_matmul.py": blocks["before"]})
    proc = run_cli("fix", "--unsafe", "--select", "HWC201", cwd=root)
    assert (root / "test/test_matmul.py").read_text() == blocks["after"]
    left = re.search(r"and `fix` says what it left: `(.*?)`\.", readme, re.S)
    assert left and " ".join(left.group(1).split()) in proc.stderr


def test_readme_mapping_table_is_the_code_s() -> None:
    table = re.split(r"<!-- mapping-table[^>]*-->\n", README.read_text(), maxsplit=1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `(\w+)` \| `([\w.]+)` \| ([\d.]+) \|$", table, re.M)
    assert rows == [(name, e.target, e.since) for name, e in EQUIVALENTS.items()]


def test_rewrites_survive_the_plain_form_the_cache_keeps() -> None:
    from hwlint.core.diagnostics import Fix, fix_from_plain, fix_to_plain

    for fix in (
        Rewrite("unsafe", "module", "torch.cuda.synchronize", "torch.accelerator.synchronize", "2.6"),
        Rewrite("unsafe", "keyword", "cuda", "device"),
        NotFixable("why"),
        Fix("safe", "GENERIC", "evidence"),
    ):
        assert type(fix_from_plain(fix_to_plain(fix))) is type(fix) and fix_from_plain(fix_to_plain(fix)) == fix
