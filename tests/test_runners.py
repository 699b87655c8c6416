"""CI runners ([[tool.hwlint.runners]]): the configuration's validation,
`select --runner`, `select --matrix` (every node id in exactly one shard,
shards that add up to the runner's selection, balance by test count and by
JUnit times), HWC401 and the report's Runner coverage section, on trees
written here (the example project keeps no runners: its golden files stay
as they are)."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path
from typing import Any

import pytest

from hwlint.core.config import Runner
from hwlint.select.matrix import Unit, balance
from tests.conftest import run_cli

IMPORTS = (
    "from torch.testing._internal.common_utils import HardwareClassification, TestCase\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests\n\n"
)

RUNNERS = """
[[tool.hwlint.runners]]
name = "linux-cpu"
members = ["GENERIC", "CPU"]
device = "cpu"
shards = 3

[[tool.hwlint.runners]]
name = "linux-cuda"
members = ["ACCELERATOR", "CUDA"]
device = "cuda"
shards = 2

[[tool.hwlint.runners]]
name = "linux-xpu"
members = ["accelerator", "xpu"]
device = "xpu"
"""


def klass(name: str, member: str, methods: int, device_param: bool = False) -> str:
    param = ", device" if device_param else ""
    body = "".join(f"    def test_{i}(self{param}): pass\n" for i in range(methods))
    return f"class {name}(TestCase):\n    hw_classification = HardwareClassification.{member}\n{body}\n"


def project(root: Path, files: dict[str, str], settings: str = RUNNERS) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("[tool.hwlint]\n" + settings)
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return root


def generated_tree(root: Path, seed: int = 7) -> tuple[Path, dict[str, int]]:
    """40 files of GENERIC, CPU, CUDA, XPU and instantiated ACCELERATOR
    classes with 1-12 test methods each; gives the tree and each node id's
    number of tests, for every device."""
    rng = random.Random(seed)
    files: dict[str, str] = {}
    counts: dict[str, int] = {}
    for f in range(40):
        path = f"test/area{f % 4}/test_gen{f}.py"
        source = IMPORTS
        for c, member in enumerate(("GENERIC", "CPU", "CUDA", "XPU", "ACCELERATOR")):
            n = rng.randint(1, 12)
            name = f"Test{member.title()}{f}x{c}"
            source += klass(name, member, n, device_param=member == "ACCELERATOR")
            if member == "ACCELERATOR":
                source += f"instantiate_device_type_tests({name}, globals(), allow_xpu=True)\n\n"
                for device in ("CUDA", "XPU"):
                    counts[f"{path}::{name}{device}"] = n
            else:
                counts[f"{path}::{name}"] = n
        files[path] = source
    return project(root, files), counts


def matrix(root: Path, *args: str) -> list[dict[str, Any]]:
    result = run_cli("select", "--matrix", *args, cwd=root)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    assert list(document) == ["include"]
    entries: list[dict[str, Any]] = document["include"]
    return entries


def pytest_ids(root: Path, *args: str) -> list[str]:
    result = run_cli("select", *args, "--format", "pytest", cwd=root)
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


# -- configuration ---------------------------------------------------------


@pytest.mark.parametrize(
    ("table", "error"),
    [
        (
            'name = "linux-cuda"\nmembers = ["CUDA"]\ndevice = "cuda"\nshards = 0\n',
            "[[tool.hwlint.runners]] #2 (linux-cuda): shards must be an integer >= 1, got 0",
        ),
        (
            'name = "linux-cuda"\nmembers = ["CUDA"]\ndevice = "cuda"\nshards = true\n',
            "[[tool.hwlint.runners]] #2 (linux-cuda): shards must be an integer >= 1, got True",
        ),
        (
            'name = "linux-cuda"\nmembers = ["CUDA"]\ndevice = "cuda"\nshards = "2"\n',
            "[[tool.hwlint.runners]] #2 (linux-cuda): shards must be an integer >= 1, got '2'",
        ),
        (
            'name = ""\nmembers = ["CUDA"]\ndevice = "cuda"\n',
            "[[tool.hwlint.runners]] #2: name must be a non-empty string, got ''",
        ),
        (
            'name = "linux-cpu"\nmembers = ["CUDA"]\ndevice = "cuda"\n',
            "[[tool.hwlint.runners]] #2 (linux-cpu): another runner is named 'linux-cpu': runner names must be unique",
        ),
        (
            'name = "linux-cuda"\nmembers = ["CUDA"]\ndevice = "cuda"\nlabels = ["gpu"]\n',
            "[[tool.hwlint.runners]] #2 (linux-cuda): unknown key 'labels' (known keys: device, members, name, shards)",
        ),
        ('name = "linux-cuda"\ndevice = "cuda"\n', "[[tool.hwlint.runners]] #2 (linux-cuda): members is required"),
        (
            'name = "linux-cuda"\nmembers = []\ndevice = "cuda"\n',
            "[[tool.hwlint.runners]] #2 (linux-cuda): members must be a non-empty list of classifications, got []",
        ),
        (
            'name = "linux-cuda"\nmembers = ["NPU"]\ndevice = "cuda"\n',
            "[[tool.hwlint.runners]] #2 (linux-cuda): members: 'NPU' is not a configured classification: expected one "
            "of GENERIC, ACCELERATOR, CPU, CUDA, MPS, XPU",
        ),
        ('name = "linux-cuda"\nmembers = ["CUDA"]\n', "[[tool.hwlint.runners]] #2 (linux-cuda): device is required"),
        (
            'name = "linux-cuda"\nmembers = ["CUDA"]\ndevice = "cuda:0"\n',
            "[[tool.hwlint.runners]] #2 (linux-cuda): device must be a device type such as cpu, cuda or xpu, got 'cuda:0'",
        ),
    ],
)
def test_a_bad_runner_is_one_line_naming_the_runner_and_the_key(tmp_path: Path, table: str, error: str) -> None:
    root = project(
        tmp_path,
        {},
        '[[tool.hwlint.runners]]\nname = "linux-cpu"\nmembers = ["CPU"]\ndevice = "cpu"\n\n'
        "[[tool.hwlint.runners]]\n" + table,
    )
    result = run_cli("check", cwd=root)
    assert result.returncode == 2
    assert result.stderr == f"hwlint: error: {root / 'pyproject.toml'}: {error}\n"


def test_runners_must_be_an_array_of_tables(tmp_path: Path) -> None:
    root = project(tmp_path, {}, 'runners = "linux-cpu"\n')
    result = run_cli("check", cwd=root)
    assert result.returncode == 2
    assert result.stderr == (
        f"hwlint: error: {root / 'pyproject.toml'}: [tool.hwlint] runners must be an array of "
        "tables ([[tool.hwlint.runners]]), got 'linux-cpu'\n"
    )


def test_members_are_canonical_aliases_resolved(tmp_path: Path) -> None:
    from hwlint.core.config import load_config

    root = project(
        tmp_path,
        {},
        'aliases = { DEVICE_GENERIC = "ACCELERATOR" }\n[[tool.hwlint.runners]]\n'
        'name = "gpu"\nmembers = ["device_generic", "cuda", "CUDA"]\ndevice = "CUDA"\n',
    )
    config = load_config(start=root)
    assert config.runners == (Runner("gpu", ("ACCELERATOR", "CUDA"), "cuda", 1),)
    # HWC401 joins the default rules once there are runners; an explicit select is the user's.
    assert config.select == ("HWC0", "HWC1", "HWC3", "HWC4")
    (root / "pyproject.toml").write_text(
        '[tool.hwlint]\nselect = ["HWC0"]\n[[tool.hwlint.runners]]\nname = "gpu"\nmembers = ["CUDA"]\ndevice = "cuda"\n'
    )
    assert load_config(start=root).select == ("HWC0",)


# -- select --runner -------------------------------------------------------


def test_runner_selects_its_members_and_device(tmp_path: Path) -> None:
    root, _ = generated_tree(tmp_path)
    for runner, members in (
        ("linux-cpu", ("GENERIC", "CPU")),
        ("linux-cuda", ("ACCELERATOR", "CUDA")),
        ("linux-xpu", ("ACCELERATOR", "XPU")),
    ):
        device = runner.split("-")[1]
        ids = pytest_ids(root, "--runner", runner)
        assert ids == pytest_ids(root, *members, "--device", device)
        assert len(ids) == {"cpu": 80, "cuda": 80, "xpu": 80}[device]
    assert pytest_ids(root, "--runner", "linux-xpu")[0] == "test/area0/test_gen0.py::TestXpu0x3"


def test_an_unknown_runner_lists_the_configured_ones(tmp_path: Path) -> None:
    root = project(tmp_path, {})
    result = run_cli("select", "--runner", "linux-mps", cwd=root)
    assert (result.returncode, result.stdout) == (2, "")
    assert (
        result.stderr
        == "hwlint: error: --runner 'linux-mps': no such runner (configured: linux-cpu, linux-cuda, linux-xpu)\n"
    )


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (
            ("CPU", "--runner", "linux-cpu"),
            "--runner linux-cpu sets the members and the device: give no MEMBERS or --device with it",
        ),
        (
            ("--runner", "linux-cpu", "--device", "cpu"),
            "--runner linux-cpu sets the members and the device: give no MEMBERS or --device with it",
        ),
        (
            ("--matrix", "--runner", "linux-cpu"),
            "--matrix selects for every configured runner: give no MEMBERS, --runner or --device",
        ),
        (("--durations", "x.xml", "CPU"), "--durations balances the shards of --matrix: give --matrix too"),
        ((), "name the classifications to select (e.g. `hwlint select GENERIC CPU`), or --runner NAME, or --matrix"),
    ],
)
def test_conflicting_options_are_one_error(tmp_path: Path, args: tuple[str, ...], error: str) -> None:
    root = project(tmp_path, {})
    result = run_cli("select", *args, cwd=root)
    assert (result.returncode, result.stderr) == (2, f"hwlint: error: {error}\n")


def test_matrix_without_runners_says_where_to_add_them(tmp_path: Path) -> None:
    root = project(tmp_path, {}, "")
    result = run_cli("select", "--matrix", cwd=root)
    assert result.returncode == 2
    assert result.stderr == (
        f"hwlint: error: --matrix: no runners are configured: add [[tool.hwlint.runners]] to "
        f"{root / 'pyproject.toml'}\n"
    )


# -- select --matrix -------------------------------------------------------


def check_partition(root: Path, entries: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Every runner's shards: numbered 1..n, each node id in exactly one,
    together exactly `select --runner NAME --format pytest`."""
    by_runner: dict[str, list[dict[str, Any]]] = {}
    for entry in entries:
        by_runner.setdefault(entry["runner"], []).append(entry)
    for name, shards in by_runner.items():
        assert [s["shard"] for s in shards] == list(range(1, shards[0]["shards"] + 1))
        ids = [test for shard in shards for test in shard["tests"]]
        assert len(ids) == len(set(ids)), f"{name}: a node id is in two shards"
        assert sorted(ids) == sorted(pytest_ids(root, "--runner", name))
        for shard in shards:
            assert shard["files"] == sorted({test.split("::")[0] for test in shard["tests"]})
    return by_runner


def test_matrix_entries_partition_each_runner_and_balance_by_test_count(tmp_path: Path) -> None:
    root, counts = generated_tree(tmp_path)
    entries = matrix(root)
    assert [(e["runner"], e["shard"], e["shards"], e["device"], e["members"]) for e in entries] == [
        ("linux-cpu", 1, 3, "cpu", ["GENERIC", "CPU"]),
        ("linux-cpu", 2, 3, "cpu", ["GENERIC", "CPU"]),
        ("linux-cpu", 3, 3, "cpu", ["GENERIC", "CPU"]),
        ("linux-cuda", 1, 2, "cuda", ["ACCELERATOR", "CUDA"]),
        ("linux-cuda", 2, 2, "cuda", ["ACCELERATOR", "CUDA"]),
        ("linux-xpu", 1, 1, "xpu", ["ACCELERATOR", "XPU"]),
    ]
    for name, shards in check_partition(root, entries).items():
        loads = [sum(counts[test] for test in shard["tests"]) for shard in shards]
        ideal = sum(loads) / len(loads)
        assert max(loads) <= 1.10 * ideal, (name, loads)
        assert min(loads) >= 0.90 * ideal, (name, loads)
    # The same tree gives the same matrix, whatever the processes.
    assert matrix(root, "--jobs", "1") == matrix(root, "--jobs", "2") == entries


def junit(cases: list[tuple[str, str, float]]) -> str:
    body = "".join(f'    <testcase classname="{c}" name="{n}" time="{t}"/>\n' for c, n, t in cases)
    return f'<?xml version="1.0"?>\n<testsuites>\n  <testsuite name="pytest">\n{body}  </testsuite>\n</testsuites>\n'


def test_matrix_balances_by_junit_durations(tmp_path: Path) -> None:
    """Two hot classes take most of the time: balanced by count they would
    share a shard; by time each gets its own."""
    files = {
        "test/test_hot.py": IMPORTS + klass("TestHot", "GENERIC", 2) + klass("TestWarm", "GENERIC", 2),
        "test/test_cold.py": IMPORTS + "".join(klass(f"TestCold{i}", "CPU", 8) for i in range(6)),
        "test/test_new.py": IMPORTS + klass("TestNew", "GENERIC", 3),
    }
    root = project(
        tmp_path,
        files,
        '[[tool.hwlint.runners]]\nname = "cpu"\nmembers = ["GENERIC", "CPU"]\ndevice = "cpu"\nshards = 2\n',
    )
    cases = [
        ("test.test_hot.TestHot", "test_0", 50.0),
        ("test.test_hot.TestHot", "test_1", 50.0),
        ("test_hot.TestWarm", "test_0", 45.0),
        ("TestWarm", "test_1", 45.0),
    ]  # other rootdirs, or none
    cases += [(f"test.test_cold.TestCold{i}", f"test_{j}", 1.0) for i in range(6) for j in range(8)]
    (root / "last.xml").write_text(junit(cases))
    result = run_cli("select", "--matrix", "--durations", "last.xml", cwd=root)
    assert result.returncode == 0, result.stderr
    # TestNew is not in the report: 3 tests at the median test time (1.0 s).
    assert (
        result.stderr
        == "hwlint: warning: cpu: 1 of 9 selected node ids are not in last.xml: each of their tests counts the median time\n"
    )
    entries = json.loads(result.stdout)["include"]
    check_partition(root, entries)
    seconds = {
        "test/test_hot.py::TestHot": 100.0,
        "test/test_hot.py::TestWarm": 90.0,
        "test/test_new.py::TestNew": 3.0,
        **{f"test/test_cold.py::TestCold{i}": 8.0 for i in range(6)},
    }
    loads = [sum(seconds[t] for t in e["tests"]) for e in entries]
    assert max(loads) <= 1.10 * sum(loads) / 2, loads
    assert [e["tests"] for e in entries] == [
        [
            "test/test_cold.py::TestCold2",
            "test/test_cold.py::TestCold4",
            "test/test_hot.py::TestHot",
            "test/test_new.py::TestNew",
        ],
        [
            "test/test_cold.py::TestCold0",
            "test/test_cold.py::TestCold1",
            "test/test_cold.py::TestCold3",
            "test/test_cold.py::TestCold5",
            "test/test_hot.py::TestWarm",
        ],
    ]
    assert loads == [119.0, 122.0]
    # By count, the two hot classes (2 tests each) are the lightest units.
    by_count = matrix(root)
    assert "test/test_hot.py::TestHot" in by_count[1]["tests"] and "test/test_hot.py::TestWarm" in by_count[1]["tests"]


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("<testsuites", "not a JUnit XML report: unclosed token: line 1, column 0"),
        ("<testsuites/>", "no <testcase> with classname, name and time: not a JUnit XML report of a run"),
        (
            '<testsuite><testcase classname="A" name="b" time="soon"/></testsuite>',
            "testcase A.b: time 'soon' is not a number",
        ),
    ],
)
def test_a_bad_durations_file_is_one_error(tmp_path: Path, text: str, error: str) -> None:
    root = project(tmp_path, {"test/test_a.py": IMPORTS + klass("TestA", "CPU", 1)})
    (root / "last.xml").write_text(text)
    result = run_cli("select", "--matrix", "--durations", "last.xml", cwd=root)
    assert (result.returncode, result.stderr) == (2, f"hwlint: error: last.xml: {error}\n")


def test_an_uncertain_file_is_one_unit_named_whole(tmp_path: Path) -> None:
    files = {
        "test/test_made.py": IMPORTS + klass("TestBase", "GENERIC", 4) + "globals().update(generate_tests(TestBase))\n",
        "test/test_plain.py": IMPORTS + klass("TestPlain", "CPU", 1),
    }
    root = project(
        tmp_path,
        files,
        '[[tool.hwlint.runners]]\nname = "cpu"\nmembers = ["CPU"]\ndevice = "cpu"\n'
        'shards = 2\n[[tool.hwlint.runners]]\nname = "cuda"\nmembers = ["CUDA"]\n'
        'device = "cuda"\n',
    )
    entries = matrix(root)
    check_partition(root, entries)
    # Heaviest first: the uncertain file (4 tests) gets shard 1; every runner has it.
    assert [(e["runner"], e["tests"]) for e in entries] == [
        ("cpu", ["test/test_made.py"]),
        ("cpu", ["test/test_plain.py::TestPlain"]),
        ("cuda", ["test/test_made.py"]),
    ]


def test_an_empty_shard_is_listed_with_no_tests(tmp_path: Path) -> None:
    root = project(
        tmp_path,
        {"test/test_a.py": IMPORTS + klass("TestA", "CPU", 1)},
        '[[tool.hwlint.runners]]\nname = "cpu"\nmembers = ["CPU"]\ndevice = "cpu"\nshards = 2\n',
    )
    assert [(e["shard"], e["tests"], e["files"]) for e in matrix(root)] == [
        (1, ["test/test_a.py::TestA"], ["test/test_a.py"]),
        (2, [], []),
    ]


def test_inherited_test_methods_count_once_each(tmp_path: Path) -> None:
    from hwlint.rules.no_runner import test_methods
    from tests.conftest import lint

    source = (
        IMPORTS
        + klass("TestBase", "GENERIC", 3)
        + ("class TestMore(TestBase):\n    def test_0(self): pass\n    def test_extra(self): pass\n")
    )
    root = project(tmp_path, {"test/test_a.py": source})
    classes = {info.facts.name: test_methods(info) for info in lint(root).contexts[0].classes}
    assert classes == {"TestBase": 3, "TestMore": 4}


def test_balance_is_longest_first_with_ties_by_node_id() -> None:
    units = [Unit(f"t.py::T{c}", "t.py", f"T{c}", w) for c, w in zip("abcdef", (3.0, 3.0, 2.0, 2.0, 2.0, 2.0))]
    shards = balance(Runner("r", ("CPU",), "cpu", 3), units)
    assert [[u.node_id for u in s.units] for s in shards] == [
        ["t.py::Ta", "t.py::Te"],
        ["t.py::Tb", "t.py::Tf"],
        ["t.py::Tc", "t.py::Td"],
    ]
    assert [s.weight for s in shards] == [5.0, 5.0, 4.0]


# -- HWC401 and the report -------------------------------------------------


def orphan_tree(root: Path) -> Path:
    files = {
        "test/test_a.py": IMPORTS
        + klass("TestCpu", "CPU", 2)
        + klass("TestMetal", "MPS", 3)
        + klass("TestXpu", "XPU", 1),
        "test/test_b.py": IMPORTS
        + klass("TestOps", "ACCELERATOR", 2, device_param=True)
        + "instantiate_device_type_tests(TestOps, globals())\n",
    }
    return project(
        root,
        files,
        '[[tool.hwlint.runners]]\nname = "linux-cpu"\nmembers = ["GENERIC", "CPU"]\n'
        'device = "cpu"\nshards = 2\n[[tool.hwlint.runners]]\nname = "linux-cuda"\n'
        'members = ["ACCELERATOR", "CUDA"]\ndevice = "cuda"\n',
    )


def test_hwc401_reports_each_class_no_runner_selects(tmp_path: Path) -> None:
    root = orphan_tree(tmp_path)
    result = run_cli("check", "--format", "json", cwd=root)
    assert result.returncode == 1
    # HWC401's alone: the device classes here are not instantiated (HWC101, HWC102).
    found = [
        (d["path"], d["line"], d["class_name"], d["message"])
        for d in json.loads(result.stdout)
        if d["code"] == "HWC401"
    ]
    runners = "(runners: linux-cpu: GENERIC, CPU; linux-cuda: ACCELERATOR, CUDA)"
    assert found == [
        (
            "test/test_a.py",
            9,
            "TestMetal",
            f"TestMetal is MPS, which no runner selects {runners}: it never runs in CI; "
            "add MPS to the members of a runner that has the hardware, or classify TestMetal for hardware CI has",
        ),
        (
            "test/test_a.py",
            15,
            "TestXpu",
            f"TestXpu is XPU, which no runner selects {runners}: it never runs in CI; "
            "add XPU to the members of a runner that has the hardware, or classify TestXpu for hardware CI has",
        ),
    ]


def test_hwc401_is_silent_without_runners_even_when_selected(tmp_path: Path) -> None:
    root = project(tmp_path, {"test/test_a.py": IMPORTS + klass("TestMetal", "MPS", 1)}, 'select = ["HWC401"]\n')
    result = run_cli("check", cwd=root)
    assert (result.returncode, result.stdout) == (0, "All checks passed (1 file checked).\n")


def git(root: Path, *args: str) -> None:
    subprocess.run(
        [
            "git",
            "-C",
            str(root),
            "-c",
            "user.name=T",
            "-c",
            "user.email=t@example.com",
            "-c",
            "commit.gpgsign=false",
            *args,
        ],
        check=True,
        capture_output=True,
    )


@pytest.fixture
def reported(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The orphan tree as a git repository with an allowlist history, so
    that `--history` reads real commits beside the runner figures."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1800000000")
    root = orphan_tree(tmp_path)
    git(root, "init", "-q", "-b", "main")
    (root / "allowlist.txt").write_text("test/test_a.py 2\n")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "adopt")
    (root / "allowlist.txt").write_text("")
    git(root, "commit", "-qam", "migrated")
    return root


def test_report_json_has_runners_and_orphans(reported: Path) -> None:
    result = run_cli("report", "--history", "--format", "json", cwd=reported)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    assert list(report)[-4:-2] == ["runners", "orphans"]  # then the devices found (unconfigured_devices, ...)
    assert report["runners"] == [
        {"name": "linux-cpu", "device": "cpu", "members": ["GENERIC", "CPU"], "classes": 1, "tests": 2, "shards": 2},
        {
            "name": "linux-cuda",
            "device": "cuda",
            "members": ["ACCELERATOR", "CUDA"],
            "classes": 1,
            "tests": 2,
            "shards": 1,
        },
    ]
    assert report["orphans"] == [
        {"path": "test/test_a.py", "class_name": "TestMetal", "classification": "MPS"},
        {"path": "test/test_a.py", "class_name": "TestXpu", "classification": "XPU"},
    ]
    # The tree's device classes are not instantiated (HWC101, HWC102): beside the point here.
    assert report["violations_by_code"]["HWC401"] == 2
    assert [p["allowlisted"] for p in report["history"]] == [1, 0]


def test_report_text_has_the_runner_coverage_section(reported: Path) -> None:
    result = run_cli("report", "--format", "text", cwd=reported)
    section = result.stdout.split("\nRunner coverage\n", 1)[1].split("\n\n", 1)[0]
    assert section == (
        "  Classes whose effective classification is among the runner's members; tests: their test methods "
        "(a parametrized method counts once).\n"
        "  runner      device  members            classes  tests  shards\n"
        "  linux-cpu   cpu     GENERIC, CPU             1      2       2\n"
        "  linux-cuda  cuda    ACCELERATOR, CUDA        1      2       1\n"
        "  2 classified test classes no runner selects (HWC401): they never run in CI.\n"
        "  file            class      classification\n"
        "  test/test_a.py  TestMetal  MPS\n"
        "  test/test_a.py  TestXpu    XPU"
    )


def test_report_markdown_has_the_runner_coverage_section(reported: Path) -> None:
    result = run_cli("report", "--format", "markdown", cwd=reported)
    section = result.stdout.split("### Runner coverage\n", 1)[1].split("\n### ", 1)[0]
    assert (
        "| runner | device | members | classes | tests | shards |\n|---|---|---|---:|---:|---:|\n"
        "| linux-cpu | `cpu` | GENERIC, CPU | 1 | 2 | 2 |\n| linux-cuda | `cuda` | ACCELERATOR, CUDA | 1 | 2 | 1 |\n"
        in section
    )
    assert "2 classified test classes no runner selects (HWC401): they never run in CI." in section
    assert "| `test/test_a.py` | TestMetal | MPS |\n| `test/test_a.py` | TestXpu | XPU |\n" in section


def test_report_html_has_the_runner_coverage_section(reported: Path) -> None:
    result = run_cli("report", "--format", "html", cwd=reported)
    assert result.returncode == 0, result.stderr
    html = result.stdout
    assert "Runner coverage" in html and 'id="runners"' in html and 'id="orphans"' in html
    runners = html.split('id="runners"', 1)[1].split("</table>", 1)[0]
    assert runners.count("<tr") == 3 and "linux-cuda" in runners and "ACCELERATOR, CUDA" in runners
    orphans = html.split('id="orphans"', 1)[1].split("</table>", 1)[0]
    assert "TestMetal" in orphans and "TestXpu" in orphans and orphans.count("<tr") == 3


def test_report_without_runners_has_no_section_and_empty_keys(tmp_path: Path) -> None:
    root = project(tmp_path, {"test/test_a.py": IMPORTS + klass("TestMetal", "MPS", 1)}, "")
    text = run_cli("report", cwd=root).stdout
    assert "Runner coverage" not in text
    report = json.loads(run_cli("report", "--format", "json", cwd=root).stdout)
    assert (report["runners"], report["orphans"]) == ([], [])
