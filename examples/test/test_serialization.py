import io

import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestSave(TestCase):
    def test_roundtrip(self):
        buffer = io.BytesIO()
        torch.save(torch.ones(2), buffer)
        buffer.seek(0)
        self.assertEqual(torch.load(buffer), torch.ones(2))


class TestLoadMapLocation(TestCase):
    def test_map_location(self, device):
        buffer = io.BytesIO()
        torch.save(torch.ones(2), buffer)
        buffer.seek(0)
        self.assertEqual(torch.load(buffer, map_location=device).device.type, device)


if __name__ == "__main__":
    run_tests()
