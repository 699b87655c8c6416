import torch
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import TestCase, run_tests


class TestCompileSmoke(TestCase):
    def test_compile_add(self, device):
        fn = torch.compile(lambda x: x + 1)
        self.assertEqual(fn(torch.zeros(1, device=device)).item(), 1)


class TestCompileCuda(TestCase):
    def test_cudagraph_trees(self, device):
        pass


instantiate_device_type_tests(TestCompileSmoke, globals())
instantiate_device_type_tests(TestCompileCuda, globals(), only_for="cuda")

if __name__ == "__main__":
    run_tests()
