"""Devices found in the code (hwlint.facts.devices): every evidence form of
a device nobody configured, what each command says of it (HWC003, check's
summary, `hwlint devices`, allowlist init, fix), its lines written into the
configuration, PyTorch's own GPU_TYPE idiom, and the one home of device names."""

from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from hwlint.core.config import Config
from hwlint.core.diagnostics import Configure, Fix, NotFixable
from hwlint.facts import FoundDevice, extract_source, from_tuple, to_tuple
from hwlint.facts.devices import DEVICES, coverage, discover, note
from tests.conftest import lint, run_cli, write_project

HEADER = "import torch\nfrom torch.testing._internal.common_utils import TestCase\n\n"


def fix_of(tmp_path: Path, source: str, settings: dict[str, Any] | None = None) -> Any:
    root = write_project(tmp_path / "p", {"test/test_x.py": HEADER + source}, settings)
    found = [d for d in lint(root).diagnostics if d.code == "HWC001"]
    assert len(found) == 1, found
    return found[0].fix


# -- discovery: each form ----------------------------------------------------


@pytest.mark.parametrize(
    ("source", "name", "text"),
    [
        ('x.to("mlu")\n', "mlu", '.to("mlu")'),
        ("x.to('mlu:1')\n", "mlu", ".to('mlu:1')"),
        ('torch.ones(2, device="musa:0")\n', "musa", 'device="musa:0"'),
        ('torch.device("gcu")\n', "gcu", 'torch.device("gcu")'),
        ('torch.device("gcu", 1)\n', "gcu", 'torch.device("gcu")'),
        ('x.to(f"dipu:{rank}")\n', "dipu", '.to(f"dipu:{rank}")'),
        ('torch.autocast(device_type="mlu")\n', "mlu", 'device_type="mlu"'),
        ('torch.load(f, map_location="mlu")\n', "mlu", 'map_location="mlu"'),
        ('device = "musa"\n', "musa", 'device = "musa"'),
        ("torch.musa.current_device()\n", "musa", "torch.musa.current_device()"),
        ("torch.mlu.synchronize()\n", "mlu", "torch.mlu.synchronize()"),
        ("import torch_mlu\nt.mlu()\n", "mlu", "import torch_mlu"),
        ("from torch_musa import testing\ntorch.musa.foo.bar()\n", "musa", "from torch_musa"),
        # DeepLink's DIPU tests: the package, and its name as a device string or its device module.
        ('import torch_dipu\nx = check(t, "dipu")\n', "dipu", "import torch_dipu"),
        ("import torch_dipu\nd = torch.device(torch_dipu.dipu.diputype)\n", "dipu", "import torch_dipu"),
    ],
)
def test_each_form_finds_the_device(source: str, name: str, text: str) -> None:
    (found,) = discover(source, ())
    assert (found.name, found.line, found.text) == (name, 1, text)


@pytest.mark.parametrize(
    "source",
    [
        'x.to("cpu")\n',
        'torch.ones(2, device="meta")\n',
        'torch.device("lazy")\n',
        'x.to("cuda:0")\n',  # known
        'model(device_map="auto")\nx = dict(device="auto")\n',  # transformers' placement, no device
        "import torch_geometric\n",  # a package named torch_*, never used as a device
        "import torch_geometric\nconv = torch_geometric.nn.GCNConv(2, 2)\n",  # used, but as no device
        "torch.distributed.is_available()\ntorch.backends.cudnn.is_available()\n",  # torch submodules
        'torch.device("vulkan")\n',  # c10 has it, no runner runs it
        "self.assertRaises(RuntimeError, lambda: torch.device('other'))\n",
        "with self.assertRaisesRegex(RuntimeError, 'x'):\n    torch.device('other')\n",
        'torch.utils.rename_privateuse1_backend("foo")\n',  # registered, never used
        # a backend the module makes itself: PyTorch's tests of PrivateUse1, on the CPU
        'torch.utils.rename_privateuse1_backend("foo")\nx = t.to("foo")\ntorch.foo.synchronize()\n',
        "# when it lands: torch.cusparselt.is_available()\n",  # a comment
    ],
)
def test_what_is_no_device_to_configure(source: str) -> None:
    assert discover(source, DEVICES) == ()


def test_each_device_is_found_once_where_first_used() -> None:
    found = discover('a = 1\nx.to("mlu")\ny = torch.ones(1, device="mlu:0")\nz = torch.device("musa")\n', ("cuda",))
    assert found == (FoundDevice("mlu", 2, 2, '.to("mlu")'), FoundDevice("musa", 4, 5, 'torch.device("musa")'))
    assert discover('x.to("mlu")\n', ("mlu",)) == ()


def test_facts_keep_the_devices_found_through_the_codec() -> None:
    facts = extract_source(
        "test/test_x.py", HEADER + 'class TestA(TestCase):\n    def test_a(self):\n        torch.ones(2).to("mlu")\n'
    )
    assert facts.devices_found == (FoundDevice("mlu", 6, 22, '.to("mlu")'),)
    assert from_tuple(to_tuple(facts)) == facts
    (site,) = facts.classes[0].devices
    assert (site.kind, site.name) == ("to", "mlu")


# -- inference: a device found is accelerator use -----------------------------


@pytest.mark.parametrize(
    "body",
    [
        'x = torch.abs(torch.ones(2).to("mlu"))',
        "torch.mlu.synchronize()",
        'x = torch.ones(2, device="mlu:0")',
        'device = "mlu"\n        x = torch.ones(2, device=device)',
        'x = torch.ones(2).to(torch.device("mlu", 0))',
    ],
)
def test_a_class_using_a_device_found_gets_no_safe_generic(tmp_path: Path, body: str) -> None:
    source = f"class TestA(TestCase):\n    def test_a(self):\n        {body}\n"
    assert fix_of(tmp_path, source) == NotFixable(
        "`hw_classification = HardwareClassification.<MEMBER>`; every accelerator use in the class is MLU, but MLU "
        "is not a configured classification: add it to `classifications`, or make the tests device-generic "
        "(ACCELERATOR)",
        "not-configured",
        "MLU",
    )


@pytest.mark.parametrize(
    "settings",
    [None, {"classifications": ["GENERIC", "ACCELERATOR", "DIPU"], "extend-devices": ["dipu"]}],
    ids=["found", "configured"],
)
def test_a_class_calling_its_backends_package_is_that_devices(tmp_path: Path, settings: dict | None) -> None:
    # DeepLink's tests: `torch_dipu.<op>(...)` runs on DIPU, as `torch.dipu.<op>(...)` would;
    # the device is named elsewhere in the module ("dipu"), or configured.
    source = (
        'import torch_dipu\n\nDEVICE = "dipu"\n\n\n'
        "class TestA(TestCase):\n    def test_a(self):\n        torch_dipu.native_memory_format_cast(x, 2)\n"
    )
    fix = fix_of(tmp_path, source, settings)
    if settings is None:
        assert isinstance(fix, NotFixable) and (fix.kind, fix.device) == ("not-configured", "DIPU"), fix
    else:
        assert fix == Fix("unsafe", "DIPU", "every accelerator use in the class is DIPU", kind="one-device")
    # A package of that prefix that is no backend is no device.
    other = source.replace("dipu", "geometric").replace("native_memory_format_cast(x, 2)", "nn.GCNConv(2, 2)")
    fix = fix_of(tmp_path / "other", other.replace('DEVICE = "geometric"', "DEVICE = None"))
    assert isinstance(fix, Fix) and (fix.classification, fix.applicability) == ("GENERIC", "safe"), fix


def test_what_the_module_binds_from_a_backend_package_is_its_call(tmp_path: Path) -> None:
    # torch_musa's tests: `from torch_musa import testing`, then `testing.OpTest(...)`
    # compares MUSA with the CPU: configured, the class is MUSA's (the call shown as its path).
    settings = {"classifications": ["GENERIC", "ACCELERATOR", "MUSA"], "extend-devices": ["musa"]}
    for binding, call in (("from torch_musa import testing", "testing"), ("import torch_musa.testing as mt", "mt")):
        source = f"{binding}\n\n\nclass TestPad(TestCase):\n    def test_a(self):\n        {call}.OpTest(f, x)\n"
        fix = fix_of(tmp_path / call, source, settings)
        assert fix == Fix("unsafe", "MUSA", "every accelerator use in the class is MUSA", kind="one-device"), fix
    # Another package's name is no backend's.
    source = (
        "from torch_geometric import nn\n\n\nclass TestA(TestCase):\n    def test_a(self):\n        nn.GCNConv(2, 2)\n"
    )
    fix = fix_of(tmp_path / "other", source, settings)
    assert isinstance(fix, Fix) and (fix.classification, fix.applicability) == ("GENERIC", "safe"), fix


def test_a_skip_unless_the_device_found_needs_it(tmp_path: Path) -> None:
    source = (
        "TEST_MLU = torch.mlu.is_available()\n\n"
        "class TestA(TestCase):\n    @unittest.skipIf(not TEST_MLU, 'no mlu')\n    def test_a(self):\n"
        "        pass\n"
    )
    fix = fix_of(tmp_path, "import unittest\n" + source)
    assert isinstance(fix, NotFixable) and fix.device == "MLU", fix


def test_with_the_lines_applied_the_class_is_an_unsafe_one_device_fix(tmp_path: Path) -> None:
    source = 'class TestA(TestCase):\n    def test_a(self):\n        x = torch.ones(2).to("mlu")\n'
    config = Config(root=tmp_path)
    settings = coverage(("mlu",), config).settings()
    assert fix_of(tmp_path, source, settings) == Fix(
        "unsafe", "MLU", "every accelerator use in the class is MLU", kind="one-device"
    )


# -- GPU_TYPE: PyTorch's own "whichever GPU" ----------------------------------

GPU_TYPE = "from torch.testing._internal.inductor_utils import GPU_TYPE\n\n"
ANY_GPU = (
    "`hw_classification = HardwareClassification.<MEMBER>`; its tests run on whichever GPU the machine has "
    "(GPU_TYPE, line {line}): make it ACCELERATOR, its tests taking `device` in place of GPU_TYPE, "
    'instantiated with except_for="cpu", allow_xpu=True'
)


@pytest.mark.parametrize(
    ("body", "line"),
    [
        ("    def test_a(self):\n        x = torch.ones(2, device=GPU_TYPE)\n", 8),
        ("    def test_a(self):\n        x = torch.ones(2).to(GPU_TYPE)\n", 8),
        ("    device = GPU_TYPE\n\n    def test_a(self):\n        x = torch.ones(2, device=self.device)\n", 7),
        ('    def test_a(self):\n        x = torch.ones(2, device=f"{GPU_TYPE}:0")\n', 8),
    ],
)
def test_gpu_type_is_accelerator_evidence(tmp_path: Path, body: str, line: int) -> None:
    fix = fix_of(tmp_path, GPU_TYPE + "class TestA(TestCase):\n" + body)
    assert fix == NotFixable(ANY_GPU.format(line=line), "any-gpu")


def test_gpu_type_is_not_a_hard_coded_device(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        {
            "test/test_x.py": HEADER
            + GPU_TYPE
            + (
                "class TestA(TestCase):\n    hw_classification = HardwareClassification.ACCELERATOR\n\n"
                "    def test_a(self, device):\n        x = torch.ones(2, device=GPU_TYPE)\n\n"
                "instantiate_device_type_tests(TestA, globals())\n"
            )
        },
        {"select": ["HWC201"]},
    )
    assert [d.code for d in lint(root).diagnostics] == []


@pytest.mark.parametrize(
    "decorator",
    [
        "@requires_gpu()",
        "@requires_cuda_and_triton",
        "@unittest.skipIf(not HAS_GPU, 'no gpu')",
        "@unittest.skipUnless(HAS_CUDA_AND_TRITON, 'x')",
    ],
)
def test_pytorch_gpu_guards_need_an_accelerator(tmp_path: Path, decorator: str) -> None:
    fix = fix_of(
        tmp_path, f"import unittest\n\nclass TestA(TestCase):\n    {decorator}\n    def test_a(self):\n        pass\n"
    )
    # requires_cuda_and_triton needs CUDA itself: an unsafe CUDA; the others any accelerator.
    assert not (isinstance(fix, Fix) and fix.applicability == "safe"), fix


# -- what the commands say ----------------------------------------------------

MLU = (
    "import torch\nimport torch_mlu\n\n\nclass TestA:\n    def test_a(self):\n"
    '        assert torch.ones(2).to("mlu").mlu().sum() == 2\n'
)
LINES = (
    '[tool.hwlint]\nclassifications = ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU", "MLU"]\n'
    'extend-devices = ["mlu"]\nextend-accelerator-modules = ["torch.mlu"]\n'
    'extend-accelerator-flags = ["TEST_MLU"]\n'
)


def mlu_project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "p", {"test/test_a.py": MLU, "test/test_b.py": MLU, "test/test_c.py": "x = 1\n"})


def test_check_reports_hwc003_once_per_file_and_names_the_lines(tmp_path: Path) -> None:
    root = mlu_project(tmp_path)
    done = run_cli("check", "--no-cache", cwd=root)
    assert done.returncode == 1
    hwc003 = [line for line in done.stdout.splitlines() if " HWC003 " in line]
    assert hwc003 == [
        f'test/{name}.py:2:1: HWC003 uses device "mlu" (`import torch_mlu`), which the configuration does not '
        "name: hwlint takes it for an accelerator; `hwlint devices --write` adds the [tool.hwlint] lines that "
        'cover it (extend-devices = ["mlu"], a member MLU, its module and flag)'
        for name in ("test_a", "test_b")
    ]
    assert done.stdout.endswith(
        "Found a device the configuration does not name: mlu (2 files). hwlint takes it for an accelerator; these "
        "lines cover it (`hwlint devices --write` adds them to pyproject.toml):\n" + LINES
    )


def test_json_carries_the_settings_as_the_fix(tmp_path: Path) -> None:
    done = run_cli("check", "--no-cache", "--format", "json", cwd=mlu_project(tmp_path))
    found = [d for d in json.loads(done.stdout) if d["code"] == "HWC003"]
    assert found[0]["fix"] == {
        "applicability": "safe",
        "device": "mlu",
        "settings": {
            "classifications": ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU", "MLU"],
            "extend-devices": ["mlu"],
            "extend-accelerator-modules": ["torch.mlu"],
            "extend-accelerator-flags": ["TEST_MLU"],
        },
    }


def test_hwc003_is_not_counted_against_a_budget(tmp_path: Path) -> None:
    root = mlu_project(tmp_path)
    done = run_cli("allowlist", "init", "--no-cache", cwd=root)
    assert done.returncode == 0, done.stderr
    assert "test/test_a.py 1\n" in (root / "allowlist.txt").read_text()  # HWC001 only
    assert "Found a device the configuration does not name: mlu (2 files)." in done.stdout
    assert "hwlint devices --write" in done.stdout


def test_devices_formats(tmp_path: Path) -> None:
    root = mlu_project(tmp_path)
    assert run_cli("devices", "--no-cache", "--format", "toml", cwd=root).stdout == LINES
    data = json.loads(run_cli("devices", "--no-cache", "--format", "json", cwd=root).stdout)
    assert data["devices"] == [{"name": "mlu", "files": 2, "first": {"path": "test/test_a.py", "line": 2, "column": 1}}]
    assert data["toml"] == LINES and data["settings"]["extend-devices"] == ["mlu"]
    clean = write_project(tmp_path / "clean", {"test/test_c.py": "x = 1\n"})
    done = run_cli("devices", "--no-cache", cwd=clean)
    assert (done.returncode, done.stdout) == (
        0,
        "No device found that the configuration does not name (1 files checked).\n",
    )


def test_devices_write_keeps_the_file_and_then_check_agrees_with_a_hand_written_one(tmp_path: Path) -> None:
    root = mlu_project(tmp_path)
    (root / "pyproject.toml").write_text('# ours\n[project]\nname = "x"  # keep\n\n[tool.hwlint]\nexclude = []\n')
    done = run_cli("devices", "--no-cache", "--write", cwd=root)
    assert done.returncode == 0, done.stderr
    text = (root / "pyproject.toml").read_text()
    assert text.startswith('# ours\n[project]\nname = "x"  # keep\n\n[tool.hwlint]\nexclude = []\n')
    assert 'extend-devices = ["mlu"]' in text
    written = run_cli("check", "--no-cache", "--format", "json", cwd=root).stdout
    hand = write_project(
        tmp_path / "hand",
        {"test/test_a.py": MLU, "test/test_b.py": MLU, "test/test_c.py": "x = 1\n"},
        {
            "classifications": ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU", "MLU"],
            "extend-devices": ["mlu"],
            "extend-accelerator-modules": ["torch.mlu"],
        },
    )
    assert json.loads(written) == json.loads(run_cli("check", "--no-cache", "--format", "json", cwd=hand).stdout)
    assert "HWC003" not in written and "HardwareClassification.MLU" in written


def test_devices_write_refuses_a_broken_file_and_leaves_it(tmp_path: Path) -> None:
    from hwlint.core.diagnostics import UserError
    from hwlint.infra.settings_write import write_settings

    broken = tmp_path / "hwlint.toml"
    broken.write_text("exclude = [\n")
    with pytest.raises(UserError) as caught:
        write_settings(broken, {"extend-devices": ["mlu"]})
    assert str(caught.value).startswith(f"{broken}: invalid TOML: ")
    assert broken.read_text() == "exclude = [\n"


def test_note_wording_for_several_devices(tmp_path: Path) -> None:
    text = note((("mlu", 3), ("musa", 1)), Config(root=tmp_path))
    assert text.startswith(
        "Found 2 devices the configuration does not name: mlu (3 files), musa (1 file). hwlint "
        "takes them for accelerators; these lines cover them"
    )
    assert 'extend-devices = ["mlu", "musa"]\n' in text
    assert note((), Config(root=tmp_path)) == ""


def test_the_check_configure_fix_round_trips() -> None:
    from hwlint.core.diagnostics import fix_from_plain, fix_to_plain

    fix = Configure("mlu", (("extend-devices", ("mlu",)),))
    assert fix_from_plain(fix_to_plain(fix)) == fix


# -- one home -----------------------------------------------------------------


def test_device_name_sets_are_defined_only_in_the_devices_module() -> None:
    """No module but hwlint/facts/devices.py spells out a set of two or more
    device names (a tuple, list, set or frozenset literal of them)."""
    names = {"cuda", "xpu", "mps", "npu", "hpu", "privateuse1", "mtia", "xla"}
    package = Path(__file__).resolve().parent.parent / "hwlint"
    offenders = []
    for path in package.rglob("*.py"):
        if path.name == "devices.py" and path.parent.name == "facts":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
                values = {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
                if len(values & names) >= 2:
                    offenders.append(f"{path.relative_to(package)}:{node.lineno}")
    assert offenders == []


def test_report_names_the_devices_and_their_settings(tmp_path: Path) -> None:
    root = mlu_project(tmp_path)
    data = json.loads(run_cli("report", "--no-cache", "--format", "json", cwd=root).stdout)
    assert data["unconfigured_devices"] == [{"name": "mlu", "files": 2}]
    assert data["unconfigured_device_settings"]["extend-devices"] == ["mlu"]
    text = run_cli("report", "--no-cache", cwd=root).stdout
    assert "Devices the configuration does not name\n  device  files\n  mlu         2\n" in text
    assert 'extend-devices              ["mlu"]' in text
    markdown = run_cli("report", "--no-cache", "--format", "markdown", cwd=root).stdout
    assert "## Devices the configuration does not name" in markdown
    clean = write_project(tmp_path / "clean", {"test/test_c.py": "x = 1\n"})
    data = json.loads(run_cli("report", "--no-cache", "--format", "json", cwd=clean).stdout)
    assert (data["unconfigured_devices"], data["unconfigured_device_settings"]) == ([], {})
    assert "Devices the configuration" not in run_cli("report", "--no-cache", cwd=clean).stdout


def test_devices_write_into_hwlint_toml_and_into_a_new_pyproject(tmp_path: Path) -> None:
    root = mlu_project(tmp_path)
    pyproject = (root / "pyproject.toml").read_text() if (root / "pyproject.toml").exists() else None
    (root / "hwlint.toml").write_text("# ours\nexclude = []\n")  # found first: the configuration
    assert run_cli("devices", "--no-cache", "--write", cwd=root).returncode == 0
    assert (root / "hwlint.toml").read_text() == "# ours\nexclude = []\n" + LINES.split("\n", 1)[1]
    assert ((root / "pyproject.toml").read_text() if (root / "pyproject.toml").exists() else None) == pyproject
    bare = tmp_path / "bare"
    (bare / "test").mkdir(parents=True)
    (bare / ".git").mkdir()
    (bare / "test" / "test_a.py").write_text(MLU)
    done = run_cli("devices", "--no-cache", "--write", cwd=bare)
    assert done.returncode == 0 and "wrote the settings for mlu" in done.stderr
    assert (bare / "pyproject.toml").read_text() == LINES
    assert "HWC003" not in run_cli("check", "--no-cache", cwd=bare).stdout


def test_devices_write_that_cannot_write_is_one_line_and_leaves_the_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hwlint.infra.atomic as atomic
    from hwlint.core.diagnostics import UserError
    from hwlint.infra.settings_write import write_settings

    target = tmp_path / "pyproject.toml"
    target.write_text("[tool.hwlint]\n")

    def refuse(path: Path, data: bytes, *, durable: bool = True) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(atomic, "write_bytes_atomic", refuse)
    with pytest.raises(UserError) as caught:
        write_settings(target, {"extend-devices": ["mlu"]})
    assert str(caught.value) == f"{target}: cannot write: Permission denied: the file is left as it was"
    assert target.read_text() == "[tool.hwlint]\n"


@pytest.mark.parametrize(
    ("source", "device"),
    [
        # Cambricon's tests: the MLU backend's settings, which only torch_mlu makes.
        (
            "import torch_mlu\n\n\nclass TestA(TestCase):\n    def test_a(self):\n"
            "        torch.backends.mlu.matmul.allow_tf32 = True\n        x = torch.backends.mlu.custom.allow_tf32\n",
            "MLU",
        ),
        ("class TestA(TestCase):\n    def test_a(self):\n        torch.backends.npu.matmul.allow_hf32 = True\n", "NPU"),
    ],
)
def test_an_out_of_tree_backends_settings_are_its_devices(tmp_path: Path, source: str, device: str) -> None:
    fix = fix_of(tmp_path, source)
    assert isinstance(fix, NotFixable) and (fix.kind, fix.device) == ("not-configured", device), fix


def test_pytorchs_own_backends_settings_are_no_device(tmp_path: Path) -> None:
    source = "class TestA(TestCase):\n    def test_a(self):\n        torch.backends.cuda.matmul.allow_tf32 = True\n"
    fix = fix_of(tmp_path, source)
    assert isinstance(fix, Fix) and (fix.classification, fix.applicability) == ("GENERIC", "safe"), fix


REGISTERS = (
    "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests\n\n\n"
    "class TestBackend(TestCase):\n    def test_rename(self):\n"
    '        torch.utils.rename_privateuse1_backend("openreg")\n\n'
    '    def test_tensor(self):\n        x = torch.empty(2).openreg(torch.device("openreg"))\n'
)


@pytest.mark.parametrize("with_backend_suite", [True, False])
def test_a_name_the_module_registers_is_the_projects_device_when_its_other_modules_use_it(
    tmp_path: Path, with_backend_suite: bool
) -> None:
    # A module that registers the backend's name itself is, alone, a test of the
    # mechanism (PyTorch's own register a "foo" that runs on the CPU): GENERIC.
    # Where the project's other modules use that name as their device (OpenReg's
    # suite: `import torch_openreg`, `device="openreg"`), fix declares no GENERIC.
    files = {"test/test_misc.py": REGISTERS}
    if with_backend_suite:
        files["test/test_ops.py"] = (
            "import torch\nimport torch_openreg\nfrom torch.testing._internal.common_utils import TestCase\n\n\n"
            'class TestOps(TestCase):\n    def test_add(self):\n        torch.ones(2, device="openreg")\n'
        )
    root = write_project(tmp_path / "p", files)
    data = json.loads(run_cli("fix", "--no-cache", "--diff", "--format", "json", cwd=root).stdout)
    fixed = {(f["path"], f["class_name"]): f["classification"] for f in data["fixed"]}
    left = {(u["path"], u["class_name"]): (u["kind"], u["reason"]) for u in data["unfixed"]}
    if not with_backend_suite:
        assert fixed == {("test/test_misc.py", "TestBackend"): "GENERIC"}
        return
    assert ("test/test_misc.py", "TestBackend") not in fixed
    assert left[("test/test_misc.py", "TestBackend")] == (
        "not-configured",
        'names "openreg", a device other modules of the project use and the configuration does not name: '
        "GENERIC is not known; configure it (`hwlint devices --write`), then fix",
    )
