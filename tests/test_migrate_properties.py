"""Properties of the class migrations of `hwlint fix --unsafe` over
generated classes (hypothesis): every migrated file compiles, keeps its
classes and tests, differs from the original only in the lines a migration
may touch (declarations, imports, instantiations, `@only*` decorators, the
`def` lines that gain or lose `device`), never touches a test whose body
names a device or runs on CPU, and a second run changes nothing."""

from __future__ import annotations

import ast
import difflib
import re
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hwlint.core.config import load_config
from hwlint.fix.apply import apply_fixes
from tests.conftest import lint, write_project

HEADER = (
    "import torch\n"
    "from torch.testing._internal.common_device_type import instantiate_device_type_tests, onlyCPU, onlyCUDA\n"
    "from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests\n"
)
# (body, names a device)
BODIES = [
    ("pass", False),
    ("self.assertEqual(1, 1)  # keep me", False),
    ("torch.ones(2, device=device)", False),
    ("torch.cuda.get_device_capability()", True),
    ('x = torch.ones(2).to("cuda")', True),
]
DECORATORS = ["", "onlyCUDA", "onlyCPU"]
# How the class is instantiated: not at all, per device, or with only_for.
KINDS = ["declared", "never", "only_for", "only_for_one"]


@st.composite
def classes(draw: st.DrawFn) -> tuple[str, dict[str, tuple[str, bool, bool]]]:
    """A module and, per test `Class.test`, (decorator, takes device, body names a device)."""
    n = draw(st.integers(1, 3))
    parts = [HEADER]
    calls = []
    expect: dict[str, tuple[str, bool, bool]] = {}
    for c in range(n):
        kind = draw(st.sampled_from(KINDS))
        name = f"Test{c}"
        lines = ["", "", f"class {name}(TestCase):"]
        if kind == "declared":
            lines.append("    hw_classification = HardwareClassification.ACCELERATOR")
            lines.append("")
        for t in range(draw(st.integers(1, 3))):
            decorator = draw(st.sampled_from(DECORATORS))
            device = draw(st.booleans()) or kind == "never" and t == 0
            body, named = draw(st.sampled_from(BODIES))
            if not device and "device=device" in body:
                body, named = "pass", False
            if decorator:
                lines.append(f"    @{decorator}")
            lines.append(f"    def test_{t}(self{', device' if device else ''}):")
            lines.append(f"        {body}")
            lines.append("")
            expect[f"{name}.test_{t}"] = (decorator, device, named)
        parts.append("\n".join(lines).rstrip("\n") + "\n")
        if kind == "declared":
            calls.append(f"instantiate_device_type_tests({name}, globals())")
        elif kind == "only_for":
            calls.append(f'instantiate_device_type_tests({name}, globals(), only_for=("cpu", "cuda"))')
        elif kind == "only_for_one":
            calls.append(f'instantiate_device_type_tests({name}, globals(), only_for=("cuda", "mps"))')
    parts.append("\n\n" + "\n".join(calls) + "\n" if calls else "")
    parts.append('\n\nif __name__ == "__main__":\n    run_tests()\n')
    return "".join(parts), expect


# The lines a migration may remove or add (a class that one-device tests
# move to among them); every other line stays.
TOUCHED = re.compile(
    r"^(\s*hw_classification = .*|\s*@only\w+|\s*def test_\w+\(.*|instantiate_device_type_tests\(.*|from torch\..*"
    r"|class Test\d+(CPUOnly|CUDAOnly|Native)\(Test\d+\):|)$"
)
# A class one-device tests moved to, and the class they left.
MOVED = re.compile(r"^(Test\d+)(?:CPUOnly|CUDAOnly|Native)$")


def _tests(source: str) -> dict[str, tuple[str, ast.FunctionDef]]:
    """Each test, keyed by the class it was written in: `Test0.test_1` ->
    (the class it is in now, its node)."""
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.ClassDef):
            moved = MOVED.match(node.name)
            home = moved.group(1) if moved else node.name
            for item in node.body:
                if isinstance(item, ast.FunctionDef) and item.name.startswith("test"):
                    found[f"{home}.{item.name}"] = (node.name, item)
    return found


@settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(classes())
def test_migrations_change_only_what_they_say(generated: tuple[str, dict[str, tuple[str, bool, bool]]]) -> None:
    source, expect = generated
    with tempfile.TemporaryDirectory() as tmp:
        root = write_project(Path(tmp) / "proj", {"test/test_g.py": source})
        config = load_config(start=root)
        apply_fixes(config, lint(root), unsafe=True, jobs=1)
        text = (root / "test/test_g.py").read_text()
        compile(text, "test_g.py", "exec")
        again = apply_fixes(config, lint(root), unsafe=True, write=False, jobs=1)
        assert again.files == [], "a second run changed something"
    before, after = source.splitlines(), text.splitlines()
    diff = list(difflib.ndiff(before, after))
    changed = [line[2:] for line in diff if line[:2] in ("- ", "+ ")]
    # Moved tests' lines move with them: the same lines, maybe elsewhere.
    assert sorted(x for x in before if not TOUCHED.match(x)) == sorted(x for x in after if not TOUCHED.match(x))
    if not any(line.startswith("class ") for line in changed):
        assert all(TOUCHED.match(line) for line in changed), [c for c in changed if not TOUCHED.match(c)]
        assert [x for x in before if not TOUCHED.match(x)] == [x for x in after if not TOUCHED.match(x)]
    old, new = _tests(source), _tests(text)
    assert sorted(old) == sorted(new)  # the same tests, each from the class it was in
    for key, (decorator, device, named) in expect.items():
        (_, was), (where, now) = old[key], new[key]
        if where != key.split(".")[0]:
            # Moved: a one-device test (@onlyCPU; @onlyCUDA naming CUDA) whose class stays ACCELERATOR.
            assert decorator == "onlyCPU" or (decorator == "onlyCUDA" and named), key
            assert where == key.split(".")[0] + ("CPUOnly" if decorator == "onlyCPU" else "CUDAOnly"), key
        decorators = [ast.unparse(d) for d in now.decorator_list]
        params = [a.arg for a in now.args.args]
        if named or decorator == "onlyCPU":
            # A test that names a device, or runs on CPU, is never migrated.
            assert [ast.unparse(d) for d in was.decorator_list] == decorators, key
            assert [a.arg for a in was.args.args] == params, key
        if decorator == "onlyCUDA" and not named:
            assert decorators in (["onlyCUDA"], ["onlyAccelerator"]), key
        assert params in (["self"], ["self", "device"]), key
        if device and "device" not in params:
            # Dropped only with GENERIC: no test of the class used `device`.
            assert ast.unparse(now.body[0]).find("device") < 0, key


# One-device classes that cannot be made device-generic (their bodies use
# CUDA-only APIs): each becomes CUDA's, instantiated for it, its tests
# given `device` and nothing else changed.
CUDA_ONLY = [
    "torch.cuda.get_device_capability()",
    'self.assertTrue(torch.cuda.get_device_name(0) != "")',
    "torch.cuda.get_device_properties(0)  # keep me",
]


@st.composite
def cuda_classes(draw: st.DrawFn) -> tuple[str, int]:
    parts = [HEADER]
    n = draw(st.integers(1, 3))
    for c in range(n):
        lines = ["", "", f"class TestC{c}(TestCase):"]
        for t in range(draw(st.integers(1, 3))):
            if draw(st.booleans()):
                lines.append("    @onlyCUDA")
            # (A test taking an unused `device` makes it the device-parameter migration's, which leaves
            # such a class to a human: test_migrate.py covers that.)
            lines.append(f"    def test_{t}(self{draw(st.sampled_from(['', ', n=1']))}):")
            lines.append(f"        {draw(st.sampled_from(CUDA_ONLY))}")
            lines.append("")
        parts.append("\n".join(lines).rstrip("\n") + "\n")
    parts.append('\n\nif __name__ == "__main__":\n    run_tests()\n')
    return "".join(parts), n


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(cuda_classes())
def test_a_one_device_class_is_instantiated_for_its_device_and_nothing_else_changes(generated: tuple[str, int]) -> None:
    source, n = generated
    with tempfile.TemporaryDirectory() as tmp:
        root = write_project(Path(tmp) / "proj", {"test/test_g.py": source})
        config = load_config(start=root)
        report = apply_fixes(config, lint(root), unsafe=True, jobs=1)
        text = (root / "test/test_g.py").read_text()
        compile(text, "test_g.py", "exec")
        assert apply_fixes(config, lint(root), unsafe=True, write=False, jobs=1).files == []
    assert report.migrated == {"device-class": n}
    tree = ast.parse(text)
    calls = [ast.unparse(s) for s in tree.body if isinstance(s, ast.Expr)]
    assert calls == [f"instantiate_device_type_tests(TestC{c}, globals(), only_for='cuda')" for c in range(n)]
    old, new = _tests(source), _tests(text)
    assert sorted(old) == sorted(new)
    for key, (_, was) in old.items():
        now = new[key][1]
        assert [a.arg for a in now.args.args] == ["self", "device", *[a.arg for a in was.args.args][1:]], key
        assert [ast.dump(d) for d in now.decorator_list] == [ast.dump(d) for d in was.decorator_list], key
        assert [ast.dump(s) for s in now.body] == [ast.dump(s) for s in was.body], key
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            assert ast.unparse(node.body[0]) == "hw_classification = HardwareClassification.CUDA"


# One-device classes that may be made device-generic: their tests use CUDA
# (every use with an equivalent), only ask about an accelerator (they ran
# on CPU too), or hold what blocks the migration (the blocker's code, kind).
USES = ["x = torch.ones(2).cuda()", 'torch.ones(2, device="cuda")', "torch.cuda.synchronize()  # keep me"]
ASKS = ["self.assertGreaterEqual(torch.accelerator.device_count(), 0)"]
BLOCKS = {
    "torch.cuda.get_device_capability()": ("torch.cuda.get_device_capability()", "no-equivalent"),
    'self.assertNotIn("cuda:nccl", "cpu:gloo")': ('"cuda:nccl"', "device-string"),
}


@st.composite
def one_device_classes(draw: st.DrawFn) -> tuple[str, dict[str, list[str]]]:
    """A module of CUDA classes and, per class, its tests' bodies in order."""
    parts = [HEADER]
    bodies: dict[str, list[str]] = {}
    for c in range(draw(st.integers(1, 3))):
        name = f"TestG{c}"
        mine = [draw(st.sampled_from([*USES, *ASKS, *BLOCKS])) for _ in range(draw(st.integers(1, 3)))]
        if not any(b in USES for b in mine):
            mine[0] = draw(st.sampled_from(USES))
        lines = ["", "", f"class {name}(TestCase):"]
        for t, body in enumerate(mine):
            lines += [f"    def test_{t}(self):", f"        {body}", ""]
        parts.append("\n".join(lines).rstrip("\n") + "\n")
        bodies[name] = mine
    parts.append('\n\nif __name__ == "__main__":\n    run_tests()\n')
    return "".join(parts), bodies


@settings(max_examples=25, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(one_device_classes())
def test_a_one_device_class_is_generalized_or_says_what_blocked_it(
    generated: tuple[str, dict[str, list[str]]],
) -> None:
    source, bodies = generated
    with tempfile.TemporaryDirectory() as tmp:
        root = write_project(Path(tmp) / "proj", {"test/test_g.py": source})
        config = load_config(start=root)
        report = apply_fixes(config, lint(root), unsafe=True, jobs=1)
        text = (root / "test/test_g.py").read_text()
        compile(text, "test_g.py", "exec")
        assert apply_fixes(config, lint(root), unsafe=True, write=False, jobs=1).files == []
    tree = ast.parse(text)
    declared = {n.name: ast.unparse(n.body[0]).rsplit(".", 1)[-1] for n in tree.body if isinstance(n, ast.ClassDef)}
    calls = {
        ast.unparse(s.value.args[0]): ast.unparse(s.value)
        for s in tree.body
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Call)
    }
    not_generalized = {x["class_name"]: x for x in report.to_dict()["not_generalized"]}
    for name, mine in bodies.items():
        blocking = [b for b in mine if b in BLOCKS]
        if blocking:
            # The first blocker, by line, with its code as written and its kind.
            assert declared[name] == "CUDA", name
            blocker = not_generalized[name]["blocked_by"]
            assert (blocker["site"], blocker["kind"]) == BLOCKS[blocking[0]], name
            assert not_generalized[name]["reason"] == f"`{blocker['site']}` (line {blocker['line']}) {blocker['why']}"
            assert "only_for='cuda'" in calls[name], name
            continue
        assert declared[name] == "ACCELERATOR", name
        # Off CPU exactly when every test runs on the device; XPU always opted in.
        needs = all(b in USES for b in mine)
        flags = ", except_for='cpu', allow_xpu=True" if needs else ", allow_xpu=True"
        assert calls[name] == f"instantiate_device_type_tests({name}, globals(){flags})", name
