"""Configuration: where the project root is, what each key does, and how a
bad value is reported (one line, exit 2, naming the file and the key)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hwlint.core.config import DEFAULT_CLASSIFICATIONS
from hwlint.core.diagnostics import UserError
from hwlint.engine.project import load_project as load_config
from tests.conftest import lint, run_cli, write_project

HEADER = "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n\n\n"
UNCLASSIFIED = HEADER + "class TestA(TestCase):\n    def test_a(self):\n        pass\n"  # HWC001 at 4:1


def codes(proc_stdout: str) -> list[tuple[str, int, int, str]]:
    return [(d["path"], d["line"], d["column"], d["code"]) for d in json.loads(proc_stdout)]


def check_json(cwd: Path, *args: str) -> list[tuple[str, int, int, str]]:
    proc = run_cli("check", "--format", "json", *args, cwd=cwd)
    assert proc.returncode in (0, 1), proc.stderr
    return codes(proc.stdout)


def ancestors_are_neutral(path: Path) -> bool:
    """No configuration or .git above tmp_path that would take part in the walk up."""
    return not any(
        (d / name).exists() for d in path.resolve().parents for name in (".git", "hwlint.toml", "pyproject.toml")
    )


# -- the project root ---------------------------------------------------------


def test_root_is_found_walking_up_from_a_subfolder(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", {"test/sub/deeper/test_a.py": UNCLASSIFIED})
    start = root / "test" / "sub" / "deeper"
    config = load_config(start=start)
    assert config.root == root.resolve()
    assert config.source == (root / "pyproject.toml").resolve()
    # From the subfolder the whole project is linted, with root-relative paths.
    assert check_json(start) == [("test/sub/deeper/test_a.py", 4, 1, "HWC001")]


def test_pyproject_without_the_table_is_skipped(tmp_path: Path) -> None:
    root = write_project(tmp_path / "proj", {"test/test_a.py": UNCLASSIFIED, "test/inner/test_b.py": UNCLASSIFIED})
    (root / "test" / "inner" / "pyproject.toml").write_text(
        '[project]\nname = "inner"\n\n[tool.black]\nline-length = 99\n'
    )
    config = load_config(start=root / "test" / "inner")
    assert config.root == root.resolve()
    assert check_json(root / "test" / "inner") == [
        ("test/inner/test_b.py", 4, 1, "HWC001"),
        ("test/test_a.py", 4, 1, "HWC001"),
    ]


def test_nearest_configuration_wins(tmp_path: Path) -> None:
    outer = write_project(tmp_path / "outer", {}, {"include": ["nothing/*.py"]})
    inner = outer / "inner"
    inner.mkdir()
    (inner / "hwlint.toml").write_text('include = ["checks/*.py"]\n')
    config = load_config(start=inner)
    assert (config.root, config.include) == (inner.resolve(), ("checks/*.py",))


def test_hwlint_toml_with_top_level_keys(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "suite").mkdir(parents=True)
    (root / "hwlint.toml").write_text('include = ["suite/check_*.py"]\nbaseline = 7\ninheritance = "explicit"\n')
    (root / "suite" / "check_a.py").write_text(UNCLASSIFIED)
    (root / "suite" / "test_b.py").write_text(UNCLASSIFIED)
    config = load_config(start=root / "suite")
    assert (config.root, config.source) == (root.resolve(), (root / "hwlint.toml").resolve())
    assert (config.include, config.baseline, config.inheritance) == (("suite/check_*.py",), 7, "explicit")
    assert check_json(root) == [("suite/check_a.py", 4, 1, "HWC001")]


def test_hwlint_toml_also_accepts_a_tool_table(tmp_path: Path) -> None:
    (tmp_path / "hwlint.toml").write_text("[tool.hwlint]\nbaseline = 5\n")
    assert load_config(start=tmp_path).baseline == 5


def test_fallback_is_the_git_root(tmp_path: Path) -> None:
    if not ancestors_are_neutral(tmp_path):
        pytest.skip("a folder above tmp_path holds a configuration or .git")
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    (repo / "test").mkdir()
    (repo / "test" / "test_a.py").write_text(UNCLASSIFIED)
    (repo / "a" / "b").mkdir(parents=True)
    config = load_config(start=repo / "a" / "b")
    assert (config.root, config.source) == (repo.resolve(), None)
    assert config.include == ("test/**/test_*.py", "test/**/*_test.py")  # defaults apply
    assert check_json(repo / "a" / "b") == [("test/test_a.py", 4, 1, "HWC001")]
    # A worktree or submodule has a .git file, not a folder: the same.
    sub = tmp_path / "sub"
    (sub / "deep").mkdir(parents=True)
    (sub / ".git").write_text("gitdir: ../repo/.git/worktrees/sub\n")
    assert load_config(start=sub / "deep").root == sub.resolve()
    # Neither: the start folder.
    lone = tmp_path / "lone"
    lone.mkdir()
    assert load_config(start=lone).root == lone.resolve()


def test_config_option_sets_the_root(tmp_path: Path) -> None:
    project = write_project(tmp_path / "cfg", {"test/test_a.py": UNCLASSIFIED}, {"baseline": 3})
    elsewhere = tmp_path / "elsewhere"
    write_project(elsewhere, {"test/test_other.py": UNCLASSIFIED})
    config = load_config(config_file=project / "pyproject.toml")
    assert (config.root, config.baseline) == (project.resolve(), 3)
    # Run from another project: --config wins over the walk up, paths are relative to its folder.
    assert check_json(elsewhere, "--config", "../cfg/pyproject.toml") == [("test/test_a.py", 4, 1, "HWC001")]
    # A pyproject.toml without the table, named by --config: defaults, root is its folder.
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "pyproject.toml").write_text('[project]\nname = "x"\n')
    config = load_config(config_file=bare / "pyproject.toml")
    assert (config.root, config.baseline, config.classifications) == (bare.resolve(), None, DEFAULT_CLASSIFICATIONS)


def test_config_option_missing_file(tmp_path: Path) -> None:
    proc = run_cli("check", "--config", "nope.toml", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == [
        f"hwlint: error: {(tmp_path / 'nope.toml').resolve()}: configuration file not found"
    ]


# -- validation ---------------------------------------------------------------

BAD_SETTINGS = [
    pytest.param("bogus = 1", ["unknown key 'bogus'"], id="unknown-key"),
    pytest.param("per_file_ignores = {}", ["unknown key 'per_file_ignores'"], id="underscore-spelling"),
    pytest.param('include = "test/*.py"', ["include must be a list of strings"], id="include-str"),
    pytest.param("include = [1]", ["include must be a list of strings"], id="include-int-item"),
    pytest.param("exclude = 3", ["exclude must be a list of strings"], id="exclude-int"),
    pytest.param("allowlist = 3", ["allowlist must be a non-empty string"], id="allowlist-int"),
    pytest.param('allowlist = ""', ["allowlist must be a non-empty string"], id="allowlist-empty"),
    pytest.param(
        'allowlist = "../outside.txt"', ["allowlist must be a path inside the project root"], id="allowlist-dotdot"
    ),
    pytest.param(
        'allowlist = "/abs/allowlist.txt"',
        ["allowlist must be a path inside the project root"],
        id="allowlist-absolute",
    ),
    pytest.param(
        'classifications = "GENERIC"', ["classifications must be a list of strings"], id="classifications-str"
    ),
    pytest.param("classifications = []", ["classifications must not be empty"], id="classifications-empty"),
    pytest.param(
        'classifications = ["NOT-AN-ID"]',
        ["classifications", "'NOT-AN-ID' is not a Python identifier"],
        id="classifications-ident",
    ),
    pytest.param('aliases = ["DEVICE_GENERIC"]', ["aliases must be a table of strings"], id="aliases-list"),
    pytest.param("aliases = { DEVICE_GENERIC = 1 }", ["aliases must be a table of strings"], id="aliases-int"),
    pytest.param(
        'aliases = { DEVICE_GENERIC = "NOPE" }',
        ["aliases: DEVICE_GENERIC = 'NOPE' is not one of classifications"],
        id="alias-target",
    ),
    pytest.param(
        'aliases = { GENERIC = "CPU" }',
        ["aliases: GENERIC is already one of classifications"],
        id="alias-shadows-member",
    ),
    pytest.param(
        'aliases = { "not an id" = "CPU" }', ["aliases", "'not an id' is not a Python identifier"], id="alias-ident"
    ),
    pytest.param("enum = 3", ["enum must be a non-empty string"], id="enum-int"),
    pytest.param('enum = "a.b"', ["enum", "'a.b' is not a Python identifier"], id="enum-dotted"),
    pytest.param('attribute = ""', ["attribute must be a non-empty string"], id="attribute-empty"),
    pytest.param("import-from = 1", ["import-from must be a non-empty string"], id="import-from-int"),
    pytest.param(
        'import-from = "not a module"',
        ["import-from must be a dotted module name, got 'not a module'"],
        id="import-from-not-dotted",
    ),
    pytest.param(
        'import-from = "my.class"',
        ["import-from must be a dotted module name, got 'my.class'"],
        id="import-from-keyword",
    ),
    pytest.param('enum = "class"', ["enum", "'class' is not a Python identifier"], id="enum-keyword"),
    pytest.param(
        'classifications = ["None"]',
        ["classifications", "'None' is not a Python identifier"],
        id="classifications-keyword",
    ),
    pytest.param(
        'classifications = ["CPU", "GENERIC", "CPU"]',
        ["classifications: CPU listed twice"],
        id="classifications-repeated",
    ),
    pytest.param(
        'inheritance = "implicit"',
        ['inheritance must be "inherit" or "explicit"', "'implicit'"],
        id="inheritance-value",
    ),
    pytest.param("inheritance = true", ['inheritance must be "inherit" or "explicit"'], id="inheritance-bool"),
    pytest.param('select = "HWC1"', ["select must be a list of strings"], id="select-str"),
    pytest.param('select = ["HWC9"]', ["select: unknown rule code or prefix 'HWC9'"], id="select-unknown"),
    pytest.param('ignore = ["XYZ"]', ["ignore: unknown rule code or prefix 'XYZ'"], id="ignore-unknown"),
    pytest.param("ignore = [1]", ["ignore must be a list of strings"], id="ignore-int"),
    pytest.param('per-file-ignores = ["HWC001"]', ["per-file-ignores must be a table"], id="pfi-list"),
    pytest.param(
        'per-file-ignores = { "test/x.py" = "HWC001" }', ["per-file-ignores must be a list of strings"], id="pfi-str"
    ),
    pytest.param(
        'per-file-ignores = { "test/x.py" = ["HWC9"] }',
        ["per-file-ignores.test/x.py: unknown rule code or prefix 'HWC9'"],
        id="pfi-unknown",
    ),
    pytest.param("baseline = -1", ["baseline must be a non-negative integer"], id="baseline-negative"),
    pytest.param('baseline = "3"', ["baseline must be a non-negative integer"], id="baseline-str"),
    pytest.param("baseline = true", ["baseline must be a non-negative integer"], id="baseline-bool"),
    pytest.param("baseline = 1.5", ["baseline must be a non-negative integer"], id="baseline-float"),
    pytest.param("lintrunner-code = 5", ["lintrunner-code must be a non-empty string"], id="lintrunner-code-int"),
    pytest.param(
        'extend-accelerator-modules = "torch_npu.npu"',
        ["extend-accelerator-modules must be a list of strings"],
        id="modules-str",
    ),
    pytest.param(
        'extend-accelerator-modules = ["torch_npu..npu"]',
        ["extend-accelerator-modules: 'torch_npu..npu' is not a dotted module name"],
        id="modules-dotted",
    ),
    pytest.param(
        'extend-accelerator-flags = ["TEST-NPU"]',
        ["extend-accelerator-flags: 'TEST-NPU' is not an identifier"],
        id="flags-ident",
    ),
    pytest.param(
        'extend-devices = ["open reg"]', ["extend-devices: 'open reg' is not an identifier"], id="devices-ident"
    ),
    pytest.param("extend-devices = [1]", ["extend-devices must be a list of strings"], id="devices-int"),
    pytest.param(
        'allowed-only-decorators = ["NativeDeviceTypes"]',
        ["allowed-only-decorators: 'NativeDeviceTypes' is not the name of an @only* decorator"],
        id="only-name",
    ),
    pytest.param(
        'allowed-only-decorators = "onlyNativeDeviceTypes"',
        ["allowed-only-decorators must be a list of strings"],
        id="only-str",
    ),
]


def assert_one_error_line(proc, config_file: Path, *fragments: str) -> None:  # type: ignore[no-untyped-def]
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"hwlint: error: {config_file.resolve()}: "), lines[0]
    for fragment in fragments:
        assert fragment in lines[0]
    assert proc.stdout == ""


@pytest.mark.parametrize(("setting", "fragments"), BAD_SETTINGS)
def test_bad_setting_in_pyproject(tmp_path: Path, setting: str, fragments: list[str]) -> None:
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "test_a.py").write_text(UNCLASSIFIED)
    (tmp_path / "pyproject.toml").write_text(f"[tool.hwlint]\n{setting}\n")
    with pytest.raises(UserError) as caught:
        load_config(start=tmp_path)
    for fragment in fragments:
        assert fragment in str(caught.value)
    assert_one_error_line(run_cli("check", cwd=tmp_path), tmp_path / "pyproject.toml", *fragments)


@pytest.mark.parametrize(("setting", "fragments"), BAD_SETTINGS[:4] + BAD_SETTINGS[14:16])
def test_bad_setting_in_hwlint_toml(tmp_path: Path, setting: str, fragments: list[str]) -> None:
    (tmp_path / "hwlint.toml").write_text(setting + "\n")
    (tmp_path / "sub").mkdir()
    assert_one_error_line(run_cli("check", cwd=tmp_path / "sub"), tmp_path / "hwlint.toml", *fragments)


def test_unknown_key_message_lists_the_known_keys(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.hwlint]\nincludes = []\n")
    with pytest.raises(UserError) as caught:
        load_config(start=tmp_path)
    assert "'includes'" in str(caught.value)
    assert (
        "known keys: aliases, allowed-only-decorators, allowlist, attribute, baseline, classifications, enum, exclude, "
        "extend-accelerator-flags, extend-accelerator-modules, extend-devices, generators, ignore, "
        "import-from, include, inheritance, lintrunner-code, oldest-torch, per-file-ignores, phases, runners, select"
        in str(caught.value)
    )


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        pytest.param(b"[tool.hwlint\nx = 1\n", "invalid TOML", id="syntax"),
        pytest.param(b"[tool.hwlint]\ninclude = [\n", "invalid TOML", id="unterminated"),
        pytest.param(b"[tool.hwlint]\nbaseline = 1\nbaseline = 2\n", "invalid TOML", id="duplicate-key"),
        pytest.param(b"[tool]\nhwlint = 3\n", "[tool.hwlint] must be a table", id="not-a-table"),
        pytest.param(b"\xff\xfe[\x00t\x00", "invalid TOML: not UTF-8", id="utf16"),
        pytest.param(b'[tool.hwlint]\nenum = "\xe9"\n', "invalid TOML: not UTF-8", id="latin1"),
    ],
)
def test_bad_toml(tmp_path: Path, content: bytes, fragment: str) -> None:
    (tmp_path / "pyproject.toml").write_bytes(content)
    assert_one_error_line(run_cli("check", cwd=tmp_path), tmp_path / "pyproject.toml", fragment)
    # And through --config.
    assert_one_error_line(
        run_cli("check", "--config", "pyproject.toml", cwd=tmp_path), tmp_path / "pyproject.toml", fragment
    )


# -- what the keys do ------------------------------------------------------------


def test_per_file_ignores(tmp_path: Path) -> None:
    both = HEADER + (
        "class TestA(TestCase):\n    def test_a(self):\n        pass\n\n\n"  # HWC001 at 4:1
        "class TestB(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_b(self, device):\n        pass\n"  # HWC102 at 12:5
    )
    files = {"test/test_a.py": both, "test/test_b.py": both, "test/sub/test_c.py": both}
    root = write_project(
        tmp_path / "p", files, {"per-file-ignores": {"test/test_a.py": ["HWC001"], "test/sub/**": ["HWC1"]}}
    )
    found = [(d.path, d.line, d.column, d.code) for d in lint(root).diagnostics]
    assert found == [
        ("test/sub/test_c.py", 4, 1, "HWC001"),
        ("test/test_a.py", 12, 5, "HWC102"),
        ("test/test_b.py", 4, 1, "HWC001"),
        ("test/test_b.py", 12, 5, "HWC102"),
    ]


ACCELERATOR_BY_OLD_NAME = HEADER + (
    "class TestOld(TestCase):\n"
    "    hw_classification = HardwareClassification.DEVICE_GENERIC\n\n"
    "    def test_x(self):\n"  # line 7: no device parameter
    "        pass\n\n\n"
    "instantiate_device_type_tests(TestOld, globals())\n"
)


def test_alias_is_valid_and_counts_as_its_target(tmp_path: Path) -> None:
    plain = write_project(tmp_path / "plain", {"test/test_a.py": ACCELERATOR_BY_OLD_NAME})
    assert [(d.line, d.column, d.code) for d in lint(plain).diagnostics] == [(5, 5, "HWC002")]
    aliased = write_project(
        tmp_path / "aliased",
        {"test/test_a.py": ACCELERATOR_BY_OLD_NAME},
        {"aliases": {"DEVICE_GENERIC": "ACCELERATOR"}},
    )
    # Valid (no HWC002), and ACCELERATOR: its test must take `device` (HWC102),
    # and being instantiated is right for it (no HWC101).
    assert [(d.line, d.column, d.code) for d in lint(aliased).diagnostics] == [(7, 5, "HWC102")]
    # Aliased to GENERIC instead, the same class is a GENERIC class wrongly instantiated.
    generic = write_project(
        tmp_path / "generic", {"test/test_a.py": ACCELERATOR_BY_OLD_NAME}, {"aliases": {"DEVICE_GENERIC": "GENERIC"}}
    )
    assert [(d.line, d.column, d.code) for d in lint(generic).diagnostics] == [(11, 1, "HWC101")]


def test_classifications_can_add_members(tmp_path: Path) -> None:
    # A configured member other than GENERIC and ACCELERATOR is a device's:
    # its class is instantiated only_for that device and its tests take it.
    source = HEADER + (
        "class TestNpu(TestCase):\n    hw_classification = HardwareClassification.NPU\n\n"
        "    def test_y(self, device):\n        pass\n\n\n"
        "instantiate_device_type_tests(TestNpu, globals(), only_for='npu')\n"
    )
    default = write_project(tmp_path / "default", {"test/test_a.py": source})
    assert [(d.line, d.column, d.code) for d in lint(default).diagnostics] == [(5, 5, "HWC002")]
    extended = write_project(
        tmp_path / "npu", {"test/test_a.py": source}, {"classifications": [*DEFAULT_CLASSIFICATIONS, "NPU"]}
    )
    assert lint(extended).diagnostics == []
    written_for_one_run = source.replace("self, device", "self").replace(", only_for='npu'", "")
    extended = write_project(
        tmp_path / "npu-bare",
        {"test/test_a.py": written_for_one_run},
        {"classifications": [*DEFAULT_CLASSIFICATIONS, "NPU"]},
    )
    assert [(d.line, d.column, d.code) for d in lint(extended).diagnostics] == [(7, 5, "HWC102"), (11, 1, "HWC111")]
    # Listing the members replaces them: without CUDA, CUDA is unknown.
    cuda = source.replace("NPU", "CUDA")
    narrowed = write_project(
        tmp_path / "narrow", {"test/test_a.py": cuda}, {"classifications": ["GENERIC", "ACCELERATOR"]}
    )
    assert [(d.line, d.column, d.code) for d in lint(narrowed).diagnostics] == [(5, 5, "HWC002")]


def test_inheritance_explicit(tmp_path: Path) -> None:
    source = HEADER + (
        "class Base(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n\n"
        "class TestChild(Base):\n    def test_c(self):\n        pass\n"
    )
    inherit = write_project(tmp_path / "inherit", {"test/test_a.py": source})
    assert lint(inherit).diagnostics == []
    explicit = write_project(tmp_path / "explicit", {"test/test_a.py": source}, {"inheritance": "explicit"})
    assert [(d.line, d.column, d.code) for d in lint(explicit).diagnostics] == [(8, 1, "HWC001")]


def test_enum_and_attribute_names(tmp_path: Path) -> None:
    source = "class TestA(TestCase):\n    hw = HW.GENERIC\n\n    def test_c(self):\n        pass\n"
    default = write_project(tmp_path / "default", {"test/test_a.py": source})
    assert [(d.line, d.code) for d in lint(default).diagnostics] == [(1, "HWC001")]
    custom = write_project(tmp_path / "custom", {"test/test_a.py": source}, {"enum": "HW", "attribute": "hw"})
    assert lint(custom).diagnostics == []


# -- select / ignore ---------------------------------------------------------------

MANY = HEADER.replace(
    "from torch",
    "import torch\nfrom torch.testing._internal.common_device_type import instantiate_device_type_tests\nfrom torch",
) + (
    "class TestGen(TestCase):\n"
    "    hw_classification = HardwareClassification.GENERIC\n\n"
    "    def test_a(self, device):\n"  # 9:5 HWC102
    "        torch.cuda.synchronize()\n\n\n"  # 10:9 HWC105, HWC201
    "instantiate_device_type_tests(TestGen, globals())\n\n\n"  # 13:1 HWC101
    "class TestCuda(TestCase):\n"
    "    hw_classification = HardwareClassification.CUDA\n\n"
    "    def test_b(self, device):\n"
    "        pass\n\n\n"
    "instantiate_device_type_tests(TestCuda, globals())\n\n\n"  # 23:1 HWC111 (no only_for)
    "class TestMissing(TestCase):\n"  # 26:1 HWC001
    "    def test_c(self):\n"
    "        pass\n"
)
DEFAULT_FOUND = [(9, 5, "HWC102"), (10, 9, "HWC105"), (13, 1, "HWC101"), (23, 1, "HWC111"), (26, 1, "HWC001")]


@pytest.fixture(scope="module")
def many(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_project(tmp_path_factory.mktemp("select"), {"test/test_a.py": MANY})


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        pytest.param((), DEFAULT_FOUND, id="default-has-no-HWC201"),
        pytest.param(("--extend-select", "HWC201"), sorted(DEFAULT_FOUND + [(10, 9, "HWC201")]), id="extend-select"),
        pytest.param(("--select", "HWC2"), [(10, 9, "HWC201")], id="select-prefix-of-off-rules"),
        pytest.param(
            ("--select", "HWC1"), [(9, 5, "HWC102"), (10, 9, "HWC105"), (13, 1, "HWC101"), (23, 1, "HWC111")], id="HWC1"
        ),
        pytest.param(("--select", "HWC11"), [(23, 1, "HWC111")], id="select-HWC11"),
        pytest.param(("--select", "ALL"), sorted(DEFAULT_FOUND + [(10, 9, "HWC201")]), id="ALL"),
        pytest.param(("--ignore", "HWC1"), [(26, 1, "HWC001")], id="ignore-prefix"),
        pytest.param(("--select", "HWC101", "--ignore", "HWC1"), [(13, 1, "HWC101")], id="more-specific-select-wins"),
        pytest.param(
            ("--select", "HWC1", "--ignore", "HWC102"),
            [(10, 9, "HWC105"), (13, 1, "HWC101"), (23, 1, "HWC111")],
            id="more-specific-ignore-wins",
        ),
        pytest.param(("--select", "hwc0,HWC201"), [(10, 9, "HWC201"), (26, 1, "HWC001")], id="comma-list-any-case"),
    ],
)
def test_select_and_ignore_on_the_command_line(
    many: Path, args: tuple[str, ...], expected: list[tuple[int, int, str]]
) -> None:
    assert [(line, col, code) for _, line, col, code in check_json(many, *args)] == expected


def test_select_and_ignore_in_the_configuration(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"test/test_a.py": MANY}, {"select": ["HWC1", "HWC201"], "ignore": ["HWC105"]})
    assert [(d.line, d.column, d.code) for d in lint(root).diagnostics] == [
        (9, 5, "HWC102"),
        (10, 9, "HWC201"),
        (13, 1, "HWC101"),
        (23, 1, "HWC111"),
    ]
    # The command line replaces the configured lists.
    assert [(line, col, code) for _, line, col, code in check_json(root, "--select", "HWC0")] == [(26, 1, "HWC001")]


def test_enabled_codes_of_the_defaults(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {})
    assert sorted(lint(root).enabled) == [
        "HWC000",
        "HWC001",
        "HWC002",
        "HWC003",
        "HWC101",
        "HWC102",
        "HWC103",
        "HWC104",
        "HWC105",
        "HWC106",
        "HWC111",
        "HWC301",
        "HWC302",
        "HWC303",
        "HWC304",
        "HWC305",
    ]
    assert sorted(lint(root, ignore=("HWC1",)).enabled) == [
        "HWC000",
        "HWC001",
        "HWC002",
        "HWC003",
        "HWC301",
        "HWC302",
        "HWC303",
        "HWC304",
        "HWC305",
    ]
    assert sorted(lint(root, select=("HWC101",), ignore=("HWC1",)).enabled) == ["HWC101"]


def test_a_backend_extends_what_counts_as_accelerator_use(tmp_path: Path) -> None:
    """An out-of-tree backend's module is unknown until configured (its
    device is found in the code all the same: hwlint.facts.devices);
    configured, HWC105 sees the module too."""
    source = (
        HEADER + "class TestA(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        "    def test_a(self):\n"
        "        if not torch_npu.npu.is_available():\n"  # 8:16 HWC105
        "            return\n"
        "        x = torch.ones(2, device='openreg')\n"  # 10:34 HWC201
        "        x.openreg()\n"  # 11:11 HWC201
    )
    write_project(tmp_path, {"test/test_a.py": source}, {"select": ["HWC1", "HWC2"]})
    unconfigured = run_cli("check", "--format", "json", cwd=tmp_path)
    assert [(d["line"], d["column"], d["code"]) for d in json.loads(unconfigured.stdout)] == [
        (10, 34, "HWC201"),
        (11, 11, "HWC201"),
    ]
    write_project(
        tmp_path,
        {},
        {"select": ["HWC1", "HWC2"], "extend-accelerator-modules": ["torch_npu.npu"], "extend-devices": ["openreg"]},
    )
    result = run_cli("check", "--format", "json", cwd=tmp_path)
    assert [(d["line"], d["column"], d["code"]) for d in json.loads(result.stdout)] == [
        (8, 16, "HWC105"),
        (10, 34, "HWC201"),
        (11, 11, "HWC201"),
    ]


@pytest.mark.parametrize(
    ("files", "settings", "oldest"),
    [
        # PyTorch's own tree: its tests run on the release it builds.
        ({"torch/__init__.py": "", "version.txt": "2.12.0a0\n"}, "", "2.12"),
        ({"torch/__init__.py": "", "version.txt": "2.12.0a0\n"}, '[tool.hwlint]\ninclude = ["test/**/*.py"]\n', "2.12"),
        # What the project says wins.
        ({"torch/__init__.py": "", "version.txt": "2.12.0a0\n"}, '[tool.hwlint]\noldest-torch = "2.8"\n', "2.8"),
        # Any other tree: a version.txt of its own says nothing of torch.
        ({"version.txt": "3.1.0\n"}, "", "2.7"),
        ({"torch/__init__.py": "", "version.txt": "unknown\n"}, "", "2.7"),
    ],
)
def test_oldest_torch_is_the_release_pytorchs_own_tree_builds(
    tmp_path: Path, files: dict[str, str], settings: str, oldest: str
) -> None:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    for name, text in {**files, **({"pyproject.toml": settings} if settings else {})}.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    assert load_config(start=root).oldest_torch == oldest
