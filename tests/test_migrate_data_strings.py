"""A one-device class that names its device only as data (TorchRec's
planner tests: `Topology(world_size=2, compute_device="cuda")`, a
`compute_device = "cuda"` handed to `kernel_bw_lookup`) is left by `hwlint
fix --unsafe`, with why, rather than instantiated for that device alone,
which would take tests that pass on CPU runners off them
(hwlint.fix.migrate.data_strings); a string handed to what the module or
the test defines, or to a placing keyword, keeps the class its device's."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.test_migrate import migrate

HEAD = (
    "import unittest\n\nimport torch\n"
    "from torchrec.distributed.planner.constants import kernel_bw_lookup\n"
    "from torchrec.distributed.planner.types import Topology\n"
)
MAIN = '\n\nif __name__ == "__main__":\n    unittest.main()\n'
PLANNER = (
    "\n\nclass TestPlanner(unittest.TestCase):\n"
    "    def test_topology(self):\n"
    '        topology = Topology(world_size=2, compute_device="cuda")\n'
    "        self.assertEqual(topology.world_size, 2)\n\n"
    "    def test_lookup(self):\n"
    '        compute_device: str = "cuda"\n'
    "        self.assertIsNotNone(kernel_bw_lookup(compute_device, 3))\n"
)


def test_a_class_naming_its_device_only_as_data_is_left(tmp_path: Path) -> None:
    source = HEAD + PLANNER + MAIN
    text, report = migrate(tmp_path, source)
    assert text == source and report.migrated == {}
    (left,) = report.unfixed
    assert (left.class_name, left.kind) == ("TestPlanner", "not-instantiable")
    assert left.reason.endswith(
        'not generalized: `"cuda"` names a device in a string, which no rewrite changes; '
        'not instantiated only_for="cuda": its tests name cuda only as data (`"cuda"` goes only to what '
        "the module imports, placing nothing it shows), and may pass on CPU runners: classify it by hand "
        "(GENERIC, or CUDA)"
    )


@pytest.mark.parametrize(
    "change",
    [
        # A placing keyword, a local helper, the class's own helper, a torch
        # placement: the string is where the tests run.
        ('Topology(world_size=2, compute_device="cuda")', 'Topology(world_size=2, device="cuda")'),
        ('Topology(world_size=2, compute_device="cuda")', 'run = Topology\n        topology = run("cuda")'),
        ("kernel_bw_lookup(compute_device, 3)", "self._lookup(compute_device)"),
        ("kernel_bw_lookup(compute_device, 3)", "torch.ones(3).to(compute_device)"),
        # Used beside the import as well: one place is enough.
        (
            "kernel_bw_lookup(compute_device, 3)",
            "kernel_bw_lookup(compute_device, 3), torch.ones(1, device=compute_device)",
        ),
    ],
)
def test_a_string_that_may_place_keeps_the_class_its_devices(tmp_path: Path, change: tuple[str, str]) -> None:
    source = HEAD + PLANNER.replace(*change) + MAIN
    text, report = migrate(tmp_path, source)
    assert [(u.class_name, u.kind) for u in report.unfixed] == []
    assert "    hw_classification = HardwareClassification.CUDA\n" in text
    assert 'instantiate_device_type_tests(TestPlanner, globals(), only_for="cuda")\n' in text
