"""HWC201 in distributed tests: one-device backends, backend decorators,
per-rank device strings and device counts; snippets in, exact diagnostics
and rewrites out, through `hwlint check` and `hwlint fix --unsafe --select
HWC201` as a user runs them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlint.core.diagnostics import NotFixable, Rewrite
from hwlint.facts import extract_source
from hwlint.rules.torch_api import DISTRIBUTED
from tests.conftest import lint, run_cli, write_project
from tests.test_rewrite_properties import assert_rewrites_to

IMPORTS = (
    "import torch\n"
    "import torch.distributed as dist\n"
    "from torch.testing._internal.common_distributed import MultiProcessTestCase, requires_nccl\n"
    "from torch.testing._internal.common_utils import HardwareClassification\n"
)
CLASS = "\n\nclass TestDist(MultiProcessTestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
TAIL = "\n\ninstantiate_device_type_tests(TestDist, globals())\n"
SETTINGS = {"select": ["HWC0", "HWC1", "HWC201"], "oldest-torch": "2.9"}


def fix(
    tmp_path: Path, body: str, settings: dict | None = None, imports: str = IMPORTS, tail: str = TAIL
) -> tuple[str, str, Path]:
    """The module after `hwlint fix --unsafe --select HWC201`, what fix printed, the project."""
    root = write_project(
        tmp_path / "proj", {"test/test_d.py": imports + CLASS + body + tail}, {**SETTINGS, **(settings or {})}
    )
    proc = run_cli("fix", "--unsafe", "--select", "HWC201", cwd=root)
    assert "Traceback" not in proc.stderr, proc.stderr
    return (root / "test/test_d.py").read_text(), proc.stderr, root


def body_of(text: str, imports: str = IMPORTS, tail: str = TAIL) -> str:
    start = text.index(CLASS) + len(CLASS)
    assert text.endswith(tail), text
    return text[start : len(text) - len(tail)]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        (
            'dist.init_process_group("nccl", rank=self.rank)',
            "dist.init_process_group(dist.get_default_backend_for_device(device), rank=self.rank)",
        ),
        (
            "dist.init_process_group(backend='xccl', rank=self.rank)",
            "dist.init_process_group(backend=dist.get_default_backend_for_device(device), rank=self.rank)",
        ),
        (
            'pg = dist.new_group([0, 1], backend="hccl")',
            "pg = dist.new_group([0, 1], backend=dist.get_default_backend_for_device(device))",
        ),
        ("torch.cuda.set_device(self.rank)", "torch.accelerator.set_device_index(self.rank)"),
        ("torch.npu.set_device(self.rank)", "torch.accelerator.set_device_index(self.rank)"),
        ("n = torch.cuda.device_count()", "n = torch.accelerator.device_count()"),
        (
            't = torch.ones(2, device=f"cuda:{self.rank}")',
            't = torch.ones(2, device=f"{self.device_type}:{self.rank}")',
        ),
        ("t = torch.ones(2, device=f'xpu:{self.rank}')", "t = torch.ones(2, device=f'{self.device_type}:{self.rank}')"),
        ('d = torch.device("cuda", self.rank)', "d = torch.device(self.device_type, self.rank)"),
        ("x = torch.ones(2).cuda(self.rank)", "x = torch.ones(2).to(torch.device(self.device_type, self.rank))"),
        ("x = torch.ones(2).xpu(local_idx)", "x = torch.ones(2).to(torch.device(self.device_type, local_idx))"),
        # What the device is not part of stays put, comments included.
        (
            'dist.init_process_group("nccl")  # one group',
            "dist.init_process_group(dist.get_default_backend_for_device(device))  # one group",
        ),
    ],
)
def test_in_a_test_of_an_instantiated_class(tmp_path: Path, before: str, after: str) -> None:
    text, _, root = fix(tmp_path, f"    def test_a(self, device):\n        local_idx = 0\n        {before}\n")
    assert body_of(text) == f"    def test_a(self, device):\n        local_idx = 0\n        {after}\n"
    # A second run changes nothing.
    again = run_cli("fix", "--unsafe", "--select", "HWC201", "--diff", cwd=root)
    assert again.stdout == ""


def test_helpers_use_the_class_device_type_and_static_methods_the_accelerator_there_is(tmp_path: Path) -> None:
    text, _, _ = fix(
        tmp_path,
        (
            "    def _init(self):\n"
            '        dist.init_process_group("nccl", rank=self.rank, world_size=2)\n'
            '        return f"cuda:{self.rank}"\n\n'
            "    @staticmethod\n"
            "    def _group(rank):\n"
            '        dist.init_process_group(backend="nccl", rank=rank)\n'
            '        return torch.device("cuda", rank)\n\n'
            "    def test_a(self, device):\n        self._init()\n"
        ),
    )
    assert body_of(text) == (
        "    def _init(self):\n"
        "        dist.init_process_group(dist.get_default_backend_for_device(self.device_type), rank=self.rank, world_size=2)\n"
        '        return f"{self.device_type}:{self.rank}"\n\n'
        "    @staticmethod\n"
        "    def _group(rank):\n"
        "        dist.init_process_group(backend=dist.get_default_backend_for_device(torch.accelerator.current_accelerator()), rank=rank)\n"
        "        return torch.device(torch.accelerator.current_accelerator().type, rank)\n\n"
        "    def test_a(self, device):\n        self._init()\n"
    )


def test_the_file_s_name_for_torch_distributed_is_used(tmp_path: Path) -> None:
    imports = "import torch\nimport torch.distributed as c10d\nfrom torch.testing._internal.common_utils import HardwareClassification\n"
    text, _, _ = fix(
        tmp_path, '    def test_a(self, device):\n        c10d.init_process_group("nccl")\n', imports=imports
    )
    assert (
        body_of(text)
        == "    def test_a(self, device):\n        c10d.init_process_group(c10d.get_default_backend_for_device(device))\n"
    )
    imports = "import torch\nfrom torch.testing._internal.common_utils import HardwareClassification\n"
    text, _, _ = fix(
        tmp_path / "2",
        '    def test_a(self, device):\n        torch.distributed.init_process_group("nccl")\n',
        imports=imports,
    )
    assert body_of(text) == (
        "    def test_a(self, device):\n"
        "        torch.distributed.init_process_group(torch.distributed.get_default_backend_for_device(device))\n"
    )


def test_backend_decorators_become_requires_accelerator_dist_backend_with_its_import(tmp_path: Path) -> None:
    body = (
        "    @requires_nccl()\n    def test_a(self, device):\n        pass\n\n"
        "    @skip_if_no_nccl\n    def test_b(self, device):\n        pass\n"
    )
    text, _, root = fix(tmp_path, body)
    assert text.startswith(
        IMPORTS.replace(
            "MultiProcessTestCase, requires_nccl\n",
            "MultiProcessTestCase, requires_nccl, requires_accelerator_dist_backend\n",
        )
    )
    assert body_of(text) == body.replace("@requires_nccl()", "@requires_accelerator_dist_backend()").replace(
        "@skip_if_no_nccl", "@requires_accelerator_dist_backend()"
    )
    again = run_cli("fix", "--unsafe", "--select", "HWC201", "--diff", cwd=root)
    assert again.stdout == ""
    # No import from common_distributed yet: one is added after the last import.
    imports = "import torch\nfrom torch.testing._internal.common_utils import HardwareClassification\n"
    text, _, _ = fix(
        tmp_path / "2", "    @requires_xccl()\n    def test_a(self, device):\n        pass\n", imports=imports
    )
    assert text.startswith(
        imports + "from torch.testing._internal.common_distributed import requires_accelerator_dist_backend\n"
    )
    assert "    @requires_accelerator_dist_backend()\n    def test_a(self, device):\n" in text


def test_backend_decorators_need_the_release_that_has_the_helper(tmp_path: Path) -> None:
    body = "    @requires_nccl()\n    def test_a(self, device):\n        pass\n"
    text, printed, _ = fix(tmp_path, body, {"oldest-torch": "2.8"})
    assert body_of(text) == body
    assert (
        "test/test_d.py:10: TestDist: torch.testing._internal.common_distributed.requires_accelerator_dist_backend "
        "needs PyTorch 2.9, and the project supports 2.8 (oldest-torch)"
    ) in printed


def test_what_only_one_backend_has_stays_with_the_reason(tmp_path: Path) -> None:
    body = (
        "    @requires_nccl_version((2, 27), 'shrink')\n"
        "    @requires_hccl()\n"
        "    def test_a(self, device):\n"
        '        dist.init_process_group("nccl", pg_options=dist.ProcessGroupNCCL.Options())\n'
        '        torch.device("cuda", 1)\n'
        "        torch.ones(2).cuda(1)\n"
    )
    text, printed, _ = fix(tmp_path, body)
    assert body_of(text) == body
    for reason in [
        ":10: TestDist: @requires_nccl_version: an NCCL version requirement is NCCL-only",
        ':11: TestDist: @requires_hccl: requires_accelerator_dist_backend knows "hccl" as Habana\'s (TEST_HPU)',
        ':13: TestDist: backend "nccl" with pg_options: process-group options are backend-specific',
        ":14: TestDist: not rewritten: torch.device() names a device other than the default one",
        ":15: TestDist: not rewritten: .cuda() names a device other than the default one",
    ]:
        assert reason in printed, printed


def test_exact_diagnostics(tmp_path: Path) -> None:
    body = (
        "    @requires_nccl()\n"
        "    def test_a(self, device):\n"
        '        dist.init_process_group("nccl", rank=self.rank)\n'
        "        torch.cuda.set_device(self.rank)\n"
        "        n = torch.cuda.device_count()\n"
        '        t = torch.ones(2, device=f"cuda:{self.rank}")\n'
    )
    root = write_project(tmp_path / "proj", {"test/test_d.py": IMPORTS + CLASS + body + TAIL}, {**SETTINGS})
    proc = run_cli("check", "--select", "HWC201", "--no-cache", cwd=root)
    head = "HWC201 ACCELERATOR test class TestDist hard-codes a device"
    assert proc.stdout.splitlines()[:5] == [
        f"test/test_d.py:10:6: {head} (@requires_nccl()): use @requires_accelerator_dist_backend() (PyTorch 2.9)",
        f'test/test_d.py:12:33: {head} (backend "nccl"): use torch.distributed.get_default_backend_for_device(device) (PyTorch 2.6)',
        f"test/test_d.py:13:9: {head} (torch.cuda.set_device()): use torch.accelerator.set_device_index() (PyTorch 2.7)",
        f"test/test_d.py:14:13: {head} (torch.cuda.device_count()): use torch.accelerator.device_count() (PyTorch 2.6)",
        f'test/test_d.py:15:34: {head} (f"cuda:{{...}}"): use f"{{self.device_type}}:..."',
    ]
    fixes = [d.fix for d in lint(root, select=("HWC201",)).diagnostics]
    assert fixes == [
        Rewrite(
            "unsafe",
            "decorator",
            "requires_nccl",
            "torch.testing._internal.common_distributed.requires_accelerator_dist_backend",
            "2.9",
        ),
        Rewrite("unsafe", "backend", "nccl", "torch.distributed.get_default_backend_for_device", "2.6"),
        Rewrite("unsafe", "module", "torch.cuda.set_device", "torch.accelerator.set_device_index", "2.7"),
        Rewrite("unsafe", "module", "torch.cuda.device_count", "torch.accelerator.device_count", "2.6"),
        Rewrite("unsafe", "fstring", "cuda", "device"),
    ]


def test_a_generic_class_is_told_it_is_misclassified(tmp_path: Path) -> None:
    text = IMPORTS + (
        "\n\nclass TestDist(MultiProcessTestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        '    def test_a(self):\n        dist.init_process_group("nccl")\n'
    )
    root = write_project(tmp_path / "proj", {"test/test_d.py": text}, SETTINGS)
    (diag,) = lint(root, select=("HWC201",)).diagnostics
    assert diag.message == (
        'GENERIC test class TestDist hard-codes a device (backend "nccl"): it is misclassified '
        "(ACCELERATOR, or the device's member), or the device use must go"
    )
    assert isinstance(diag.fix, NotFixable)


def test_distributed_sites_are_facts_of_their_own() -> None:
    """What hwlint.rules.infer weighs (`devices`) stays what it was: the
    default rules' findings and fixes do not move."""
    source = (
        IMPORTS + CLASS + "    @requires_nccl()\n    def test_a(self):\n"
        '        dist.init_process_group(backend="gloo")\n        dist.init_process_group("nccl")\n'
        '        t = f"cuda:{self.rank}"\n        n = torch.cuda.device_count()\n        s = f"x:{n}"\n'
    )
    (cls,) = extract_source("t.py", source).classes
    assert cls.devices == ()
    assert [(s.line, s.kind, s.name) for s in cls.distributed] == [
        (10, "decorator", "requires_nccl"),
        (13, "backend", "nccl"),
        (14, "fstring", "cuda"),
        (15, "module", "torch.cuda.device_count"),
    ]


README = Path(__file__).resolve().parent.parent / "docs" / "fix.md"


def test_readme_distributed_example_is_what_fix_does(tmp_path: Path) -> None:
    readme = README.read_text()
    blocks = dict(re.findall(r"<!-- distributed-example: (\w+) -->\n```python\n(.*?)```", readme, re.S))
    assert set(blocks) == {"before", "after"}, "docs/fix.md lost its distributed before/after example"
    root = write_project(
        tmp_path / "proj", {"test/distributed/test_allreduce.py": blocks["before"]}, {"oldest-torch": "2.9"}
    )
    proc = run_cli("fix", "--unsafe", "--select", "HWC201", cwd=root)
    assert (root / "test/distributed/test_allreduce.py").read_text() == blocks["after"]
    left = re.search(r"and for the distributed example `fix` says what it left: `(.*?)`\.", readme, re.S)
    assert left and " ".join(left.group(1).split()) in proc.stderr


def test_readme_distributed_rows_are_the_code_s() -> None:
    table = re.split(r"<!-- distributed-table[^>]*-->\n", README.read_text(), maxsplit=1)[1].split("\n\n", 1)[0]
    rows = re.findall(r"^\| `([^`]+)` \| `([\w.]+)` \| ([\d.]+) \|$", table, re.M)
    assert rows == [(key, e.target, e.since) for key, e in DISTRIBUTED.items()]


# Property: over generated distributed test classes, each site becomes what
# its place allows, every other line stays byte for byte, and a second run
# changes nothing. (statement, template; {d} the device, {t} the device type)
DIST_SITES = [
    (
        'dist.init_process_group("nccl", rank=r)',
        "dist.init_process_group(dist.get_default_backend_for_device({d}), rank=r)",
    ),
    (
        "g = dist.new_group([0, 1], backend='xccl')",
        "g = dist.new_group([0, 1], backend=dist.get_default_backend_for_device({d}))",
    ),
    ('t = torch.ones(2, device=f"cuda:{r}")', 't = torch.ones(2, device=f"{{{t}}}:{{r}}")'),
    ('e = torch.device("npu", r)', "e = torch.device({t}, r)"),
    ("y = x.xpu(r)", "y = x.to(torch.device({t}, r))"),
    ("torch.cuda.set_device(r)", "torch.accelerator.set_device_index(r)"),
    ("n = torch.cuda.device_count()", "n = torch.accelerator.device_count()"),
]
DIST_UNCHANGED = [
    'b = "gloo"',
    "dist.init_process_group(backend=b)",
    "y = x.cuda(1)",
    'e = torch.device("cuda", 1)',
    'os.environ["MASTER_PORT"] = "29500"',
    "pass",
]
ACCELERATOR_THERE = "torch.accelerator.current_accelerator()"


@st.composite
def dist_statement(draw: st.DrawFn, where: str) -> tuple[str, str]:
    comment = draw(st.sampled_from(["", "  # rank's device", "  # noqa: E501"]))
    if draw(st.booleans()):
        before, template = draw(st.sampled_from(DIST_SITES))
        device = {"device": "device", "method": "self.device_type", "static": ACCELERATOR_THERE}[where]
        device_type = {
            "device": "self.device_type",
            "method": "self.device_type",
            "static": ACCELERATOR_THERE + ".type",
        }[where]
        after = template.format(d=device, t=device_type)
    else:
        before = after = draw(st.sampled_from(DIST_UNCHANGED))
    return before + comment, after + comment


@st.composite
def dist_modules(draw: st.DrawFn) -> tuple[str, str]:
    head = (
        "import os\nimport torch\nimport torch.distributed as dist\n"
        "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n\n"
        "class TestGen(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n"
    )
    before, after = [head], [head]
    for index in range(draw(st.integers(1, 3))):
        where = draw(st.sampled_from(["device", "method", "static"]))
        signature = {
            "device": f"    def test_{index}(self, device, r=0, x=None):\n",
            "method": f"    def _helper_{index}(self, r, x):\n",
            "static": f"    @staticmethod\n    def _static_{index}(r, x):\n",
        }[where]
        before.append("\n" + signature)
        after.append("\n" + signature)
        for b, a in draw(st.lists(dist_statement(where), min_size=1, max_size=4)):
            before.append(f"        {b}\n")
            after.append(f"        {a}\n")
    tail = "\n    def test_last(self, device):\n        pass\n\n\ninstantiate_device_type_tests(TestGen, globals())\n"
    return "".join(before) + tail, "".join(after) + tail


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(dist_modules())
def test_distributed_rewrites_change_only_their_sites(case: tuple[str, str]) -> None:
    assert_rewrites_to(*case)
