import torch
from torch.testing._internal.common_device_type import (
    dtypes,
    instantiate_device_type_tests,
    onlyCUDA,
)
from torch.testing._internal.common_utils import HardwareClassification, TestCase, run_tests


class TestBinaryOps(TestCase):
    """Runs on every accelerator: instantiated once per device type."""

    hw_classification = HardwareClassification.ACCELERATOR

    @dtypes(torch.float32, torch.float64)
    def test_add(self, device, dtype):
        x = torch.ones(3, device=device, dtype=dtype)
        self.assertEqual((x + x).sum().item(), 6)

    @onlyCUDA
    def test_add_cuda_graph(self, device):
        pass


class TestOpInfoRegistry(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def test_names_are_unique(self):
        self.assertEqual(len({"add", "mul"}), 2)


instantiate_device_type_tests(TestBinaryOps, globals())

if __name__ == "__main__":
    run_tests()
