# Shared bases for the example tests, imported the way PyTorch tests import
# their siblings: `from common_utils_local import DeviceTestBase`.
from torch.testing._internal.common_utils import HardwareClassification, TestCase


class GenericTestBase(TestCase):
    hw_classification = HardwareClassification.GENERIC

    def assertClose(self, a, b):
        self.assertEqual(a, b)


class DeviceTestBase(TestCase):
    hw_classification = HardwareClassification.ACCELERATOR
