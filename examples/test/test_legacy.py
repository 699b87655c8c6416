# Not migrated yet: listed in allowlist.txt with a budget of 2.
import unittest

import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestLegacyTensor(TestCase):
    def test_new(self):
        self.assertEqual(torch.tensor([1]).new_zeros(2).shape, (2,))


class TestLegacyCuda(TestCase):
    @unittest.skipIf(not torch.cuda.is_available(), "needs CUDA")
    def test_pin_memory(self):
        torch.ones(2).pin_memory()


if __name__ == "__main__":
    run_tests()
