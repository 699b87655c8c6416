"""Class-level migrations of `hwlint fix --unsafe`, with libcst.

hwlint.fix.plan says which classes to try (hwlint.fix.plan.Migration);
this package decides on the tree whether each migration applies, makes it,
and says why when it does not:

- `only_for` several devices -> `except_for` the complement (ACCELERATOR),
  or, when only one of the devices named can be instantiated there, that
  device's classification with `only_for=` that device;
- tests take `device`, the class is never instantiated -> instantiated
  (ACCELERATOR: a test uses `device`, or a device-type decorator says the
  tests are device tests), the parameter dropped (GENERIC: no test uses
  it and nothing in the class points at a device), or the device every
  `device=` default names (`def test_x(self, device="xpu")` runs on XPU);
- in ACCELERATOR classes, `@onlyCUDA`-style decorators on a test whose
  body names no device -> `@onlyAccelerator`, and a test without `device`
  whose body names no device -> `device` added;
- tests on whichever GPU the machine has (inductor's `GPU_TYPE`) ->
  instantiated ACCELERATOR, `allow_xpu=True, except_for="cpu"` (`any_gpu`).

Which device types the framework knows is PyTorch's
torch/testing/_internal/common_device_type.py (2.14):
`get_device_type_test_bases()` always has CPU, CUDA when present and the
PrivateUse1 backend when one is registered (`"npu"`, `"openreg"`: their
`only_for`/`except_for` names are mapped to `"privateuse1"`), HPU when
present; MPS only with `allow_mps=True`, XPU only with `allow_xpu=True`;
`include_lazy` adds Lazy after the filter, and `TORCH_TEST_DEVICES` adds
out-of-tree bases (XLA). The complement of an `only_for` is taken over the
types that call can instantiate: cpu, cuda, hpu, privateuse1, mps with
allow_mps, xpu with allow_xpu. On every machine the class then runs where
it ran before; an out-of-tree base added by TORCH_TEST_DEVICES now gets
the tests too, which is the point of `except_for`.

The modules, bottom up: `outcome` (what a migration comes to: Done,
Refused, the kinds), `framework` (the framework's names the migrations
write; which device types a call instantiates is hwlint.facts.devices'),
`tree` (finding classes, tests and calls in the tree and the facts),
`evidence` (a device named in text), `parameters` (a test's `device`
parameter edited), `class_level` (declarations and instantiations
written), one module per migration (`only_for`, `device_param`,
`generalize`, `move_tests`, `accelerator_tests`, `any_gpu`), and `driver`
(`migrate_source`: which migration each kind tries).
"""
