"""Better evidence before "unsafe" (issue 21): a module-level accelerator
mention that a class never reaches does not make its GENERIC unsafe; one it
reaches (a name it uses, directly or through module-level functions and
assignments; a statement run at import) keeps it unsafe, naming the line."""

from __future__ import annotations

import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlint.core.diagnostics import Fix
from hwlint.facts import extract_source, from_tuple, to_tuple
from hwlint.facts.records import DeviceBinding
from tests.conftest import lint, run_cli, write_project

HEADER = "import torch\nfrom torch.testing._internal.common_utils import TestCase, run_tests\n\n"
PLAIN = "\n\nclass TestA(TestCase):\n    def test_a(self):\n        pass\n"
SAFE = "not instantiated per device, no device parameter, no accelerator use; the module's accelerator mentions "
UNSAFE = (
    "no accelerator use in the class, but it reaches the module's mention of one outside it (line {}): "
    "a name it uses, or a statement run at import"
)


def fixes(tmp_path: Path, source: str) -> dict[str, Any]:
    """Each class's HWC001 fix."""
    root = write_project(tmp_path / "proj", {"test/test_x.py": HEADER + source})
    return {d.class_name: d.fix for d in lint(root).diagnostics if d.code == "HWC001"}


def safe(lines: str) -> Fix:
    return Fix("safe", "GENERIC", SAFE + f"(line {lines}) are never reached by the class", kind="unreached-mentions")


def unsafe(lines: str) -> Fix:
    return Fix("unsafe", "GENERIC", UNSAFE.format(lines), kind="module-mentions")


def test_an_unused_module_variable_is_not_reached(tmp_path: Path) -> None:
    # Ascend's test files, as they are: a device_type the class never uses.
    source = 'device_type = acc.type if (acc := torch.accelerator.current_accelerator()) else "cpu"\n' + PLAIN
    assert fixes(tmp_path, source) == {"TestA": safe("4")}


def test_a_variable_the_class_uses_is_reached(tmp_path: Path) -> None:
    source = (
        "HAS_XPU = torch.xpu.is_available()\n\n\nclass TestA(TestCase):\n    def test_a(self):\n"
        "        self.assertTrue(HAS_XPU or True)\n"
    )
    assert fixes(tmp_path, source) == {"TestA": unsafe("4")}


def test_a_class_using_a_module_level_device_is_that_devices(tmp_path: Path) -> None:
    # intel-extension-for-pytorch's and torch-xpu-ops' tests, as they are:
    # GENERIC would send an XPU test to CPU runners and take it off XPU's.
    source = (
        'dpcpp_device = torch.device("xpu")\n\n\nclass TestA(TestCase):\n    def test_a(self):\n'
        "        torch.ones(2).to(dpcpp_device)\n"
    )
    assert fixes(tmp_path, source) == {
        "TestA": Fix(
            "unsafe",
            "XPU",
            "every accelerator use in the class is XPU: it reaches dpcpp_device, bound to xpu at module level (line 4)",
            kind="one-device",
        )
    }


def test_a_module_level_device_of_no_configured_member_says_so(tmp_path: Path) -> None:
    # Ascend's tests: `device = "npu:0"` at the top, NPU not configured.
    source = (
        'device = "npu:0"\n\n\nclass TestA(TestCase):\n    def test_a(self):\n        torch.ones(2, device=device)\n'
    )
    root = write_project(tmp_path / "proj", {"test/test_x.py": HEADER + source})
    (found,) = [d for d in lint(root).diagnostics if d.code == "HWC001"]
    assert found.fix is not None and found.fix.kind == "not-configured" and found.fix.device == "NPU"
    assert (
        "it reaches device, bound to npu at module level (line 4), but NPU is not a configured classification"
        in found.fix.reason
    )


def test_a_device_and_a_probe_reached_stay_module_mentions(tmp_path: Path) -> None:
    source = (
        'DEVICE = "cuda"\nHAS_XPU = torch.xpu.is_available()\n\n\nclass TestA(TestCase):\n    def test_a(self):\n'
        "        return DEVICE, HAS_XPU\n"
    )
    assert fixes(tmp_path, source) == {"TestA": unsafe("4, 5")}


@pytest.mark.parametrize(
    "statement, binding",
    [
        ('D = "xpu"', ("D", "xpu")),
        ('D = "cuda:1"', ("D", "cuda")),
        ('D = torch.device("xpu")', ("D", "xpu")),
        ('D = torch.device("mps", 0)', ("D", "mps")),
        ('D = torch.device("cpu")', None),
        ('D = torch.device(f"xpu:{0}")', None),
        ('D = E = "xpu"', None),
        ('D, E = "xpu", "cpu"', None),
        ('D = torch.device("xpu", index=0)', None),
        ('D = get("xpu")', None),
    ],
)
def test_the_facts_know_module_level_names_bound_to_a_device(statement: str, binding: tuple[str, str] | None) -> None:
    facts = extract_source("t.py", HEADER + statement + "\n" + PLAIN)
    assert [(b.line, b.name, b.device) for b in facts.device_bindings] == ([(4, *binding)] if binding else [])
    assert from_tuple(to_tuple(facts)) == facts


@pytest.mark.parametrize(
    "elsewhere",
    [
        'try:\n    import intel_extension_for_pytorch\nexcept ImportError:\n    D = "cpu"\n',
        'if torch.xpu.is_available():\n    pass\nelse:\n    D = torch.device("cpu")\n',
        "def setUpModule():\n    global D\n    D = 'cpu'\n",
        "from elsewhere import D\n",
    ],
)
def test_a_name_bound_again_at_module_level_names_no_one_device(elsewhere: str) -> None:
    facts = extract_source("t.py", HEADER + 'D = "xpu"\n' + elsewhere + PLAIN)
    assert facts.device_bindings == ()
    # Bound again only where collection never runs, it is still XPU's.
    main = extract_source("t.py", HEADER + 'D = "xpu"\n' + PLAIN + '\n\nif __name__ == "__main__":\n    D = "cpu"\n')
    assert [(b.name, b.device) for b in main.device_bindings] == [("D", "xpu")]


def test_names_bound_to_a_device_elsewhere_than_the_module_level_are_not_bindings() -> None:
    source = (
        HEADER + 'class TestA(TestCase):\n    D = "xpu"\n\n    def test_a(self):\n        d = "xpu"\n\n\n'
        'def helper():\n    d = "xpu"\n\n\nif __name__ == "__main__":\n    D = "xpu"\n'
    )
    # (The module-level function that writes the device binds itself: calling it runs on XPU.)
    assert extract_source("t.py", source).device_bindings == (DeviceBinding(12, "helper", "xpu"),)


def test_reached_through_module_functions_and_assignments(tmp_path: Path) -> None:
    source = (
        'HAS_XPU = torch.xpu.is_available()\n\n\ndef _devices():\n    return ["xpu"] if HAS_XPU else []\n\n\n'
        'ALL = _devices() + ["cpu"]\n' + PLAIN + "\n\nclass TestB(TestCase):\n    def test_b(self):\n"
        "        for d in ALL:\n            pass\n"
    )
    assert fixes(tmp_path, source) == {"TestA": safe("4, 8"), "TestB": unsafe("4, 8")}


def test_main_block_and_other_classes_are_not_reached(tmp_path: Path) -> None:
    source = (
        PLAIN + "\n\nclass TestCuda(TestCase):\n    def test_c(self):\n        torch.cuda.synchronize()\n"
        '\n\nif __name__ == "__main__":\n    torch.cuda.set_device(0)\n    run_tests()\n'
    )
    found = fixes(tmp_path, source)
    assert found["TestA"] == safe("17")
    assert found["TestCuda"].applicability == "unsafe" and found["TestCuda"].kind == "one-device"


def test_a_name_bound_in_main_that_the_class_uses_is_reached(tmp_path: Path) -> None:
    # Old scripts set globals from the command line before run_tests().
    source = (
        "\n\nclass TestA(TestCase):\n    def test_a(self):\n        torch.ones(1, device=DEV)\n"
        '\n\nif __name__ == "__main__":\n    DEV = "cuda"\n    run_tests()\n'
    )
    assert fixes(tmp_path, source) == {"TestA": unsafe("12")}


def test_a_statement_run_at_import_reaches_every_class(tmp_path: Path) -> None:
    for statement, line in [
        ('torch.set_default_device("cuda")\n', "4"),
        ('if not torch.cuda.is_available():\n    raise unittest.SkipTest("no CUDA")\n', "4"),
        ("torch.backends.cuda.matmul.allow_tf32 = False\n", "4"),
    ]:
        assert fixes(tmp_path, "import unittest\n" + statement + PLAIN) == {"TestA": unsafe(str(int(line) + 1))}


def test_an_if_on_a_flag_that_only_binds_names(tmp_path: Path) -> None:
    source = (
        'if torch.cuda.is_available():\n    DEVICE = "cuda"\nelse:\n    DEVICE = "cpu"\n'
        + PLAIN
        + "\n\nclass TestB(TestCase):\n    def test_b(self):\n        torch.ones(1, device=DEVICE)\n"
    )
    assert fixes(tmp_path, source) == {"TestA": safe("4, 5"), "TestB": unsafe("4, 5")}


def test_a_class_defined_under_an_accelerator_condition_reaches_it(tmp_path: Path) -> None:
    source = "if torch.cuda.is_available():\n    class TestA(TestCase):\n        def test_a(self):\n            pass\n"
    assert fixes(tmp_path, source) == {"TestA": unsafe("4")}


def test_a_module_statement_naming_the_class_reaches_it(tmp_path: Path) -> None:
    source = PLAIN + '\n\nTestA = unittest.skipIf(not torch.cuda.is_available(), "CUDA")(TestA)\n'
    assert fixes(tmp_path, "import unittest\n" + source) == {"TestA": unsafe("12")}


def test_a_base_is_unsafe_when_a_subclass_that_inherits_it_reaches_a_mention(tmp_path: Path) -> None:
    source = (
        'DEVICE = "cuda"\n' + PLAIN + "\n\nclass TestB(TestA):\n    def test_b(self):\n"
        "        torch.ones(1, device=DEVICE)\n"
    )
    found = fixes(tmp_path, source)
    assert found["TestA"] == Fix(
        "unsafe",
        "GENERIC",
        "no accelerator use in the class, but its subclass TestB reaches "
        "the module's mention of one (line 4), and would inherit GENERIC",
        kind="module-mentions",
    )
    assert found["TestB"] == Fix(
        "unsafe",
        "CUDA",
        "every accelerator use in the class is CUDA: it reaches DEVICE, bound to cuda at module level (line 4)",
        kind="one-device",
    )


def test_an_attribute_of_the_same_name_is_not_a_use(tmp_path: Path) -> None:
    source = (
        'device_type = "cuda"\n\n\nclass TestA(TestCase):\n    def test_a(self):\n        return self.device_type\n'
    )
    assert fixes(tmp_path, source) == {"TestA": safe("4")}


def test_the_safe_fix_is_written_and_check_passes(tmp_path: Path) -> None:
    source = HEADER + 'device_type = "xpu" if torch.xpu.is_available() else "cpu"\n' + PLAIN
    root = write_project(tmp_path / "proj", {"test/test_x.py": source})
    assert run_cli("allowlist", "init", cwd=root).returncode == 0
    proc = run_cli("fix", cwd=root)
    assert proc.returncode == 0, proc.stderr
    assert "hw_classification = HardwareClassification.GENERIC" in (root / "test/test_x.py").read_text()
    assert run_cli("check", cwd=root).returncode == 0
    assert not (root / "allowlist.txt").read_text().count("test_x.py")


def test_the_facts_keep_what_is_unreached_through_the_codec() -> None:
    facts = extract_source("t.py", HEADER + 'X = torch.device("cuda")\n\n\ndef f():\n    return X\n' + PLAIN)
    assert facts.accelerator_lines == (4,) and [c.unreached for c in facts.classes] == [(4,)]
    assert from_tuple(to_tuple(facts)) == facts


NAMES = ["DEVICE", "HAS_GPU", "helper", "ALL", "dev"]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(NAMES), st.booleans(), st.lists(st.sampled_from(NAMES), max_size=2)),
        min_size=1,
        max_size=5,
    ),
    st.lists(st.sampled_from(NAMES), max_size=2),
)
def test_reached_exactly_when_a_chain_of_names_leads_to_a_mention(
    defs: list[tuple[str, bool, list[str]]], uses: list[str]
) -> None:
    """Module-level assignments `NAME = <"cuda" or 0> + used...` and a class
    whose test names `uses`: the class reaches the mention lines that a
    chain of names leads to, by the definition of reaching."""
    lines = [*HEADER.rstrip("\n").split("\n"), ""]
    mention_of: dict[int, str] = {}
    for name, mentions, used in defs:
        value = " + ".join(['"cuda"' if mentions else "0", *used])
        lines.append(f"{name} = {value}")
        if mentions:
            mention_of[len(lines)] = name
    lines += ["", "", "class TestA(TestCase):", "    def test_a(self):", f"        return [{', '.join(uses)}]", ""]
    facts = extract_source("t.py", "\n".join(lines))
    # What leads where, computed the slow way: every binding of a name, to a fixpoint.
    graph: dict[str, set[str]] = {}
    for name, _, used in defs:
        graph.setdefault(name, set()).update(used)
    reachable, todo = set(uses), list(uses)
    while todo:
        for nxt in graph.get(todo.pop(), ()):
            if nxt not in reachable:
                reachable.add(nxt)
                todo.append(nxt)
    expected = {line for line, name in mention_of.items() if name in reachable}
    assert facts.accelerator_lines == tuple(sorted(mention_of))
    (cls,) = facts.classes
    assert set(facts.accelerator_lines) - set(cls.unreached) == expected


def test_a_helper_class_that_reaches_a_mention_passes_it_on(tmp_path: Path) -> None:
    source = (
        'DEVICE = "xpu"\n\n\nclass _Maker:\n    def make(self):\n        return torch.ones(1, device=DEVICE)\n'
        + PLAIN
        + "\n\nclass TestB(TestCase):\n    def test_b(self):\n        _Maker().make()\n"
    )
    # TestB's test makes its tensors on XPU, through _Maker.
    assert fixes(tmp_path, source) == {
        "TestA": safe("4"),
        "TestB": Fix(
            "unsafe",
            "XPU",
            "every accelerator use in the class is XPU: it reaches DEVICE, bound to xpu at module level (line 4)",
            kind="one-device",
        ),
    }


def test_the_docs_example_is_what_fix_does(tmp_path: Path) -> None:
    import re

    page = (Path(__file__).resolve().parent.parent / "docs" / "fix.md").read_text()
    blocks = dict(re.findall(r"<!-- reach-example: (\w+) -->\n```python\n(.*?)```", page, re.S))
    assert set(blocks) == {"before", "after"}, "docs/fix.md lost its before/after example"
    root = write_project(tmp_path / "proj", {"test/test_shapes.py": blocks["before"]})
    proc = run_cli("fix", "--show-unfixed", cwd=root)
    assert (root / "test/test_shapes.py").read_text() == blocks["after"]
    left = re.search(r"and `fix --show-unfixed` lists what it left: `(.*?)`\.", page, re.S)
    assert left and " ".join(left.group(1).split()) in proc.stderr


# -- a safe fix from unreached mentions never makes things worse ---------------

STATEMENTS = {
    "device": ('DEVICE = torch.device("cuda")\n', {"DEVICE"}),
    "helper": ("def helper():\n    return DEVICE\n", {"helper"}),
    "default": ('torch.set_default_device("cuda")\n', None),  # run at import: reaches every class
    "main": ('if __name__ == "__main__":\n    torch.cuda.set_device(0)\n    run_tests()\n', set()),
}
USES = {"": "pass", "DEVICE": "torch.ones(1, device=DEVICE)", "helper": "helper()", "probe": "torch.cuda.synchronize()"}


@st.composite
def modules(draw: st.DrawFn) -> tuple[str, list[tuple[str, str, int | None]], set[str]]:
    chosen = draw(st.lists(st.sampled_from(sorted(STATEMENTS)), unique=True, min_size=1))
    classes = []
    for i in range(draw(st.integers(1, 4))):
        base = draw(st.sampled_from([None, *range(i)]))
        classes.append((f"Test{i}", draw(st.sampled_from(sorted(USES))), base))
    body = "".join(STATEMENTS[k][0] + "\n\n" for k in chosen if k != "main")
    for name, use, base in classes:
        body += f"class {name}({'TestCase' if base is None else f'Test{base}'}):\n    def test_{name.lower()}(self):\n"
        body += f"        {USES[use]}\n\n\n"
    if "main" in chosen:
        body += STATEMENTS["main"][0]
    return HEADER + body, classes, set(chosen)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(modules())
def test_a_safe_fix_only_where_no_mention_is_reached_and_no_violation_is_new(
    tmp_path: Path, module: tuple[str, list[tuple[str, str, int | None]], set[str]]
) -> None:
    from hwlint.core.config import load_config
    from hwlint.fix.apply import apply_fixes

    source, classes, chosen = module
    root = write_project(Path(tempfile.mkdtemp(dir=tmp_path)), {"test/test_x.py": source})
    before = lint(root)
    report = apply_fixes(load_config(start=root), before, jobs=1)
    after = lint(root)
    # No violation is new (HWC001s go, nothing comes).
    keys = {(d.code, d.class_name) for d in before.diagnostics}
    assert {(d.code, d.class_name) for d in after.diagnostics} <= keys

    # The classes made GENERIC safely are exactly those whose tests (their
    # own and their bases') reach no mention, by the generator's own account.
    def reaches(index: int) -> bool:
        _, use, base = classes[index]
        own = (use == "DEVICE" and "device" in chosen) or (use == "helper" and {"helper", "device"} <= chosen)
        return own or (base is not None and reaches(base))

    def inherits_reaching(index: int) -> bool:  # a subclass that would inherit GENERIC reaches one
        return any(
            b == index and (reaches(j) or inherits_reaching(j)) for j, (_, u, b) in enumerate(classes) if u != "probe"
        )

    fixed = {f.class_name for r in report.files for f in r.fixes}
    mentions = bool(chosen - {"main"}) or "main" in chosen
    for index, (name, use, base) in enumerate(classes):
        probes = use == "probe" or (base is not None and _probes(classes, base))
        safe = (
            not probes
            and "default" not in chosen
            and not reaches(index)
            and not (mentions and inherits_reaching(index))
        )
        if name in fixed:
            assert safe, (name, source)
        elif safe and base is None and not _descendant_probes(classes, index):
            # Nothing else stands in the way: the mentions it does not reach no longer do.
            raise AssertionError((name, "left unfixed", source))


def _descendant_probes(classes: list[tuple[str, str, int | None]], index: int) -> bool:
    return any(b == index and (u == "probe" or _descendant_probes(classes, j)) for j, (_, u, b) in enumerate(classes))


def _probes(classes: list[tuple[str, str, int | None]], index: int) -> bool:
    _, use, base = classes[index]
    return use == "probe" or (base is not None and _probes(classes, base))


def test_set_up_module_and_globals_it_sets_reach_the_classes(tmp_path: Path) -> None:
    # unittest calls setUpModule for every class; a function's `global` binds the name too.
    source = (
        "DEVICE = None\n\n\ndef setUpModule():\n    torch.cuda.set_device(0)\n\n\n"
        'def _pick():\n    global DEVICE\n    DEVICE = torch.device("cuda")\n' + PLAIN
    )
    # (setUpModule calls into CUDA: every class of the module runs it, on CUDA.)
    assert fixes(tmp_path, source) == {
        "TestA": Fix(
            "unsafe",
            "CUDA",
            "every accelerator use in the class is CUDA: it reaches setUpModule, bound to cuda at module level (line 8)",
            kind="one-device",
        )
    }
    source = (
        'DEVICE = None\n\n\ndef _pick():\n    global DEVICE, OTHER\n    DEVICE = torch.device("cuda")\n\n\n'
        "class TestA(TestCase):\n    def test_a(self):\n        return DEVICE\n"
        "\n\nclass TestB(TestCase):\n    def test_b(self):\n        pass\n"
    )
    # (_pick writes only CUDA: what it sets is CUDA's, and TestA, reaching it, is CUDA's.)
    assert fixes(tmp_path, source) == {
        "TestA": Fix(
            "unsafe",
            "CUDA",
            "every accelerator use in the class is CUDA: it reaches _pick, bound to cuda at module level (line 9)",
            kind="one-device",
        ),
        "TestB": safe("9"),
    }


def test_a_module_function_that_writes_one_device_binds_the_class_that_calls_it(tmp_path: Path) -> None:
    # OpenReg's test_ipc.py: the tests run producers that make tensors on the device.
    source = (
        'def _producer(queue):\n    t = torch.arange(4.0, device="openreg:0")\n'
        '    assert t.device.type == "openreg"\n    result = t.cpu().tolist()\n\n\n'
        "def _asks():\n    return torch.cuda.is_available()\n\n\n"
        "class TestIpc(TestCase):\n    def test_roundtrip(self):\n        _producer(None)\n\n\n"
        "class TestAsks(TestCase):\n    def test_asks(self):\n        _asks()\n\n\n"
        "def _pick():\n    return 'cuda' if 'LTC_TS_CUDA' in os.environ else 'cpu'\n\n\n"
        "class TestPick(TestCase):\n    def test_pick(self):\n        _pick()\n"
    )
    found = fixes(tmp_path, "import torch_openreg\n" + source)
    assert found["TestIpc"].kind == "not-configured"
    assert found["TestIpc"].reason.startswith(
        "`hw_classification = HardwareClassification.<MEMBER>`; every accelerator use in the class is OPENREG: "
        "it reaches _producer, bound to openreg at module level (line 6)"
    )
    # A function that only asks, or falls back to the CPU, binds the class to no device.
    assert found["TestAsks"] == unsafe("12")
    assert found["TestPick"] == unsafe("26")


@pytest.mark.parametrize(
    "body, binding",
    [
        ("torch.cuda.set_device(0)", ("seed", "cuda")),
        ('torch.xpu.synchronize()\n    return torch.ones(1, device="xpu")', ("seed", "xpu")),
        # A question runs without the device, as seeding does (ignored without one);
        # two devices bind it to neither.
        ("return torch.cuda.is_available()", None),
        ("torch.manual_seed(0)\n    torch.cuda.manual_seed_all(0)", None),
        ("return torch.cuda.device_count() > 1", None),
        ("torch.cuda.synchronize()\n    torch.xpu.synchronize()", None),
    ],
)
def test_a_module_level_function_calling_a_device_module_is_bound_to_it(
    body: str, binding: tuple[str, str] | None
) -> None:
    facts = extract_source("t.py", HEADER + f"def seed():\n    {body}\n" + PLAIN)
    assert [(b.name, b.device) for b in facts.device_bindings] == ([binding] if binding else [])
