import torch
import torch.nn.functional as F
from common_utils_local import DeviceTestBase, GenericTestBase
from torch.testing._internal.common_device_type import instantiate_device_type_tests
from torch.testing._internal.common_utils import run_tests


class TestFunctionalGeneric(GenericTestBase):
    # Inherits GENERIC from a base in another file.
    def test_relu_shape(self):
        self.assertClose(F.relu(torch.ones(2)).shape, (2,))


class TestFunctionalDevice(DeviceTestBase):
    # Inherits ACCELERATOR: every test must take the device.
    def test_softmax(self, device):
        x = torch.randn(4, device=device)
        self.assertEqual(F.softmax(x, dim=0).sum().item(), 1.0)

    def test_gelu(self):
        F.gelu(torch.ones(2))


instantiate_device_type_tests(TestFunctionalDevice, globals(), except_for="meta")

if __name__ == "__main__":
    run_tests()
