"""The text of a test body: the word lists, the writer that accumulates a
file, and the statements drawn from them."""

from __future__ import annotations

import bisect
import random
from dataclasses import dataclass

from .shape import WORDS

# ---------------------------------------------------------------------------
# Text: statements, methods, classes, files.
# ---------------------------------------------------------------------------

SHAPES = [
    "3, 4",
    "2, 3",
    "4, 4",
    "5",
    "2, 3, 4",
    "8, 16",
    "10, 10",
    "1, 3, 8, 8",
    "16",
    "4, 8, 2",
    "0, 3",
    "32, 32",
    "2, 2, 2",
]
TENSOR_VARS = [
    "x",
    "y",
    "z",
    "a",
    "b",
    "inp",
    "t",
    "weight",
    "src",
    "other",
    "input_tensor",
    "query",
    "key",
    "value",
    "hidden_states",
    "sample_input",
    "grad_output",
    "bias",
    "t_contig",
    "mask",
]
OUT_VARS = [
    "out",
    "result",
    "expected",
    "actual",
    "res",
    "ref",
    "grad_out",
    "y2",
    "ref_out",
    "expected_output",
    "result_with_identity",
    "out_eager",
    "out_compiled",
    "expected_grad",
]
UNARY = [
    "relu",
    "sigmoid",
    "tanh",
    "exp",
    "abs",
    "sin",
    "cos",
    "neg",
    "sign",
    "floor",
    "log1p",
    "erf",
    "rsqrt",
    "square",
]
METHODS = [
    "sum(dim=0)",
    "mean(dim=-1)",
    "amax(dim=1, keepdim=True)",
    "softmax(dim=-1)",
    "transpose(0, 1).contiguous()",
    "view(-1)",
    "reshape(-1, 1)",
    "unsqueeze(0)",
    "flatten()",
    "float()",
    "double()",
    "clone().detach()",
    "abs_()",
    "mul_(2)",
    "add_(1)",
    "cumsum(dim=0)",
    "norm()",
    "t()",
    "flip(0)",
    "std()",
]
FUNCTIONAL = ["gelu", "silu", "relu", "softplus", "layer_norm", "dropout", "log_softmax", "normalize"]
# Generated strings carry no backslashes at all: the invalid escapes are
# injected on purpose into a known number of files and must not appear by
# accident anywhere else.
ERRORS = [
    "must match the size",
    "expected a non-empty list",
    "is not implemented for",
    "Expected all tensors to be on the same device",
    "dimension out of range",
    "only supports floating point",
    "cannot be broadcast",
    "received an invalid combination of arguments",
]
COMMENTS = [
    "# Regression test for https://github.com/pytorch/pytorch/issues/{n}",
    "# TODO: enable once the kernel supports bfloat16",
    "# Make sure the output is contiguous before comparing strides",
    "# The reference implementation runs in float64 to avoid precision loss",
    "# See Note [Sparse tensor invariants]",
    "# Non-contiguous inputs take a different code path",
    "# Check that the in-place variant agrees with the out-of-place one",
    "# Empty tensors must not crash (gh-{n})",
]
# Prose for comments, docstrings and messages (no quotes, no backslashes).
PROSE = [
    "Reducing along an empty slice should return the identity value of the operator",
    "The reference implementation runs in float64 to avoid precision loss",
    "Non-contiguous inputs take a different code path in the kernel",
    "Check that the in-place variant agrees with the out-of-place one",
    "This used to segfault when the input had a zero-sized dimension",
    "Make sure the output is contiguous before comparing strides",
    "Gradients are compared against finite differences computed in double precision",
    "The fused kernel is only selected when all inputs share the same dtype",
    "Keep the tolerance loose here because half precision accumulates rounding error",
    "We cannot use assertEqual directly because the layouts differ",
    "Dynamo should not graph break on this call",
    "Inductor is expected to generate a single kernel for the whole pattern",
    "Broadcasting must follow NumPy semantics, including for zero-sized tensors",
    "Disabled until the backend implements the out= variant",
    "The result must not alias the input, even when the operation is a no-op",
    "Tests that the result has the correct dtype after type promotion",
    "Tests that passing an out-of-bounds dim raises an IndexError",
    "Integer inputs are promoted to the default floating point dtype",
    "Use a fixed seed so that the comparison is deterministic",
    "The meta implementation has to agree with the eager kernel on strides",
    "Verify that the autograd formula matches the numerical gradient",
    "Running the same graph twice must not trigger a recompilation",
    "Channels-last inputs must produce channels-last outputs",
    "This exercises the slow path that handles overlapping memory",
    "Only the first call compiles; later calls hit the cache",
    "A warning is expected here and must be raised exactly once",
    "The sparse layout is converted back to strided before comparing",
    "Large inputs are split into several chunks by the kernel launcher",
]
GENERIC_SKIPS = [
    'IS_WINDOWS, "Windows does not support fork"',
    'IS_MACOS, "Flaky on macOS"',
    'TEST_WITH_ROCM, "Not supported on ROCm"',
    'not TEST_SCIPY, "SciPy not found"',
    'not TEST_NUMPY, "NumPy not found"',
    'sys.version_info >= (3, 13), "Not supported on Python 3.13+"',
]
DEVICE_SKIPS = [
    'not TEST_CUDA, "CUDA not available"',
    'not torch.cuda.is_available(), "requires CUDA"',
    'TEST_WITH_ROCM, "Not supported on ROCm"',
    'IS_WINDOWS, "Windows does not support this"',
]
DTYPES = [
    "torch.float",
    "torch.double",
    "torch.half",
    "torch.bfloat16",
    "torch.cfloat",
    "torch.int32",
    "torch.int64",
    "torch.uint8",
    "torch.bool",
    "torch.float32",
    "torch.float64",
    "torch.float16",
]
PATCHES = [
    '@patch.object(torch._dynamo.config, "cache_size_limit", 8)',
    '@patch.dict(os.environ, {{"TORCH_SHOW_CPP_STACKTRACES": "1"}})',
    '@mock.patch("torch.{w}.is_enabled", return_value=False)',
    '@patch("torch._inductor.config.{w}", True)',
    '@patch.object(torch._inductor.config, "{w}", False)',
]


class Writer:
    """Accumulates the text of one file and the names it needs imported."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.size = 0
        self.used: dict[str, None] = {}  # ordered set: import keys actually used
        self.counts: dict[str, int] = {}
        self.device_tests = 0
        # Plain classes using @parametrize: they need instantiate_parametrized_tests().
        self.parametrized: list[str] = []

    def emit(self, line: str) -> None:
        self.lines.append(line)
        self.size += len(line) + 1

    def use(self, *names: str) -> None:
        for n in names:
            self.used[n] = None

    def count(self, name: str) -> None:
        self.counts[name] = self.counts.get(name, 0) + 1


@dataclass
class Ctx:
    device: bool
    dtype: bool
    cuda_ok: bool  # accelerator probes / .cuda() allowed (never in GENERIC)
    vars: list[str]
    depth: int = 0
    free: bool = False  # module-level pytest-style function: no `self`
    make_tensor: bool = False  # set when the body calls make_tensor (needs an import)


def _var(rng: random.Random, ctx: Ctx) -> str:
    return rng.choice(ctx.vars) if ctx.vars else "x"


def _new(rng: random.Random, ctx: Ctx, pool: list[str]) -> str:
    v = rng.choice(pool)
    if v not in ctx.vars:
        ctx.vars.append(v)
    return v


def _create(rng: random.Random, ctx: Ctx) -> str:
    v = _new(rng, ctx, TENSOR_VARS)
    dev = ", device=device" if ctx.device else ""
    if ctx.dtype and rng.random() < 0.7:
        dt = ", dtype=dtype"
    elif rng.random() < 0.2:
        dt = f", dtype={rng.choice(DTYPES[:4])}"
    else:
        dt = ""
    r = rng.random()
    shape = rng.choice(SHAPES)
    if r < 0.55:
        fn = rng.choice(["randn", "randn", "rand", "zeros", "ones", "empty"])
        return f"{v} = torch.{fn}({shape}{dev}{dt})"
    if r < 0.7 and ctx.device and ctx.dtype:
        ctx.make_tensor = True
        return f"{v} = make_tensor(({shape}), device=device, dtype=dtype, low=-1, high=1)"
    if r < 0.8:
        return f"{v} = torch.arange({rng.randint(2, 64)}{dev}{dt}).reshape(-1, 1)"
    if r < 0.9:
        return f"{v} = torch.full(({shape}), {rng.choice(['0.5', '1.0', '-2', '3.14'])}{dev}{dt})"
    return f"{v} = torch.tensor([{', '.join(str(rng.randint(-9, 9)) for _ in range(rng.randint(2, 6)))}]{dev}{dt})"


def _op(rng: random.Random, ctx: Ctx) -> str:
    a, b = _var(rng, ctx), _var(rng, ctx)
    v = _new(rng, ctx, OUT_VARS)
    r = rng.random()
    if r < 0.2:
        return f"{v} = {a} {rng.choice(['+', '-', '*', '/'])} {b}"
    if r < 0.4:
        return f"{v} = torch.{rng.choice(UNARY)}({a})"
    if r < 0.65:
        return f"{v} = {a}.{rng.choice(METHODS)}"
    if r < 0.75:
        return f"{v} = torch.matmul({a}, {b}.t())"
    if r < 0.83:
        return f"{v} = torch.cat([{a}, {b}], dim={rng.choice([0, 0, 1, -1])})"
    if r < 0.92:
        return f"{v} = torch.nn.functional.{rng.choice(FUNCTIONAL)}({a})"
    return f"{v} = torch.where({a} > 0, {a}, {b})"


def _assert(rng: random.Random, ctx: Ctx) -> str:
    a, b = _var(rng, ctx), _var(rng, ctx)
    r = rng.random()
    if ctx.free:
        if r < 0.5:
            return f"torch.testing.assert_close({a}, {b})"
        if r < 0.8:
            return f"assert {a}.shape == {b}.shape"
        return f"assert not {a}.requires_grad"
    if r < 0.35:
        return f"self.assertEqual({a}, {b})"
    if r < 0.5:
        return f"self.assertEqual({a}.shape, {b}.shape)"
    if r < 0.6:
        atol, rtol = rng.choice(["1e-5", "1e-4", "1e-3"]), rng.choice(["1e-5", "1.3e-6", "1e-3"])
        return f"self.assertEqual({a}, {b}, atol={atol}, rtol={rtol})"
    if r < 0.68:
        return f"self.assertTrue(torch.allclose({a}, {b}, atol=1e-5))"
    if r < 0.74:
        return f"self.assertEqual({a}.dtype, {rng.choice(DTYPES[:4]) if not ctx.dtype else 'dtype'})"
    if r < 0.8 and ctx.device:
        return f"self.assertEqual({a}.device.type, torch.device(device).type)"
    if r < 0.85:
        return f"self.assertFalse({a}.requires_grad)"
    if r < 0.9:
        return f"torch.testing.assert_close({a}, {b}, check_dtype=False)"
    if r < 0.95:
        return f"self.assertNotEqual({a}.data_ptr(), {b}.data_ptr())"
    return f"self.assertTrue({a}.is_contiguous())"


# Statement kinds and their weights. Besides plausible tensor code, the mix
# carries the comments, docstrings and string literals real test files have:
# without them the text is ~1.5x denser in tokens and AST nodes per byte than
# real PyTorch test trees (measured 4.8 bytes/token, 6 bytes/node, ~7% of the
# bytes in comments and ~9% in strings), and parse cost per byte is off.
STATEMENT_WEIGHTS: list[tuple[str, float]] = [
    ("create", 17),
    ("op", 15),
    ("assert", 14),
    ("assert_msg", 2.5),
    ("loop", 6),
    ("helper", 3),
    ("raises", 3),
    ("autograd", 3),
    ("module", 3),
    ("comment", 7.5),
    ("probe", 2),
    ("comprehension", 3),
    ("fstring", 1.5),
    ("kwargs", 2),
    ("short", 8),
    ("nested_class", 1),
    ("expected_inline", 0.8),
    ("if_chain", 3),
    ("call_kwargs", 2.5),
]
_KINDS = [k for k, _ in STATEMENT_WEIGHTS]
_CUM: list[float] = []
_acc = 0.0
for _, _w in STATEMENT_WEIGHTS:
    _acc += _w
    _CUM.append(_acc)

GRAPH_OPS = [
    "sin",
    "cos",
    "relu",
    "add.Tensor",
    "mul.Tensor",
    "mm",
    "view",
    "permute",
    "sum.dim_IntList",
    "clone",
    "expand",
    "sigmoid",
    "neg",
    "exp",
    "div.Tensor",
]


def _prose(rng: random.Random) -> str:
    s = rng.choice(PROSE)
    r = rng.random()
    if r < 0.15:
        s += f" (gh-{rng.randint(10000, 160000)})"
    elif r < 0.25:
        s += f" for {rng.choice(WORDS)} inputs"
    return s


def write_docstring(rng: random.Random, ind: str, out: list[str]) -> None:
    if rng.random() < 0.65:
        out.append(f'{ind}"""{_prose(rng)}."""')
        return
    out.append(f'{ind}"""{_prose(rng)}.')
    out.append("")
    for _ in range(rng.randint(1, 4)):
        out.append(f"{ind}{_prose(rng)}.")
    out.append(f'{ind}"""')


def write_statement(rng: random.Random, ctx: Ctx, ind: str, out: list[str]) -> None:
    """Append one statement (possibly compound) at indentation `ind`."""
    kind = _KINDS[bisect.bisect(_CUM, rng.random() * _acc)] if ctx.vars else "create"
    if kind == "create":
        out.append(ind + _create(rng, ctx))
    elif kind == "short":
        a = _var(rng, ctx)
        out.append(
            ind
            + rng.choice(
                [
                    f"{a} = {a}.t()",
                    f"{a}.zero_()",
                    f"{a} = {a}.detach()",
                    f"torch.manual_seed({rng.randint(0, 99)})",
                    f"n = {a}.numel()",
                    f"{a} = {a}.float()",
                    f"{a}.add_(1)",
                    f"{a} = {a}.contiguous()",
                    f"{a} = {a}[0]",
                    f"{a} = {a}.mT",
                    f"ndim = {a}.dim()",
                ]
            )
        )
    elif kind == "op":
        out.append(ind + _op(rng, ctx))
    elif kind == "loop" and ctx.depth < 2:
        header = rng.choice(
            [
                "for dtype_ in (torch.float16, torch.float32, torch.float64):",
                "for dim in range({v}.dim()):",
                "for shape in [(2, 3), (4, 5, 6), (0, 3), (1,)]:",
                "for i in range({n}):",
                "for contiguous in (True, False):",
                'for reduction in ("mean", "sum", "none"):',
                "with self.subTest(size={n}):",
                "with torch.no_grad():",
            ]
        ).format(v=_var(rng, ctx), n=rng.randint(2, 8))
        if ctx.free and "self." in header:
            header = "with torch.no_grad():"
        out.append(ind + header)
        ctx.depth += 1
        # Lead with a real statement: a block of only comments does not parse.
        out.append(ind + "    " + _op(rng, ctx))
        for _ in range(rng.randint(0, 3)):
            write_statement(rng, ctx, ind + "    ", out)
        ctx.depth -= 1
    elif kind == "helper" and ctx.depth == 0:
        name = rng.choice(["fn", "helper", "check", "ref_impl", "_test_helper", "run", "reference_fn"])
        a, b = _var(rng, ctx), _var(rng, ctx)
        out.append(f"{ind}def {name}(input_tensor, other=None, *, alpha=1.0):")
        if rng.random() < 0.5:
            out.append(f'{ind}    """{_prose(rng)}."""')
        out.append(f"{ind}    if other is None:")
        out.append(f"{ind}        other = torch.ones_like(input_tensor)")
        out.append(f"{ind}    return torch.{rng.choice(UNARY)}(input_tensor) * other + alpha")
        out.append("")
        out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = {name}({a}, {b}, alpha={rng.choice(['0.5', '2.0', '1e-3'])})")
    elif kind == "raises" and not ctx.free:
        out.append(f'{ind}with self.assertRaisesRegex(RuntimeError, "{rng.choice(ERRORS)}"):')
        out.append(f"{ind}    {_op(rng, ctx)}")
    elif kind == "autograd":
        a = _var(rng, ctx)
        out.append(f"{ind}{a}.requires_grad_(True)")
        out.append(f"{ind}loss = ({a} * {rng.randint(2, 5)}).sum()")
        out.append(f"{ind}loss.backward()")
        out.append(f"{ind}assert {a}.grad is not None" if ctx.free else f"{ind}self.assertIsNotNone({a}.grad)")
    elif kind == "module":
        to = ".to(device)" if ctx.device else ""
        if rng.random() < 0.5:
            layer = rng.choice(
                [
                    "Linear(4, 8)",
                    "Conv2d(3, 8, kernel_size=3, padding=1)",
                    "LayerNorm(16)",
                    "Embedding(10, 4)",
                    "GRU(8, 16, batch_first=True)",
                    "MultiheadAttention(embed_dim=16, num_heads=4, batch_first=True)",
                ]
            )
            out.append(f"{ind}model = torch.nn.{layer}{to}")
        else:
            out.append(f"{ind}model = torch.nn.Sequential(")
            out.append(f"{ind}    torch.nn.Linear(in_features=16, out_features=32, bias=True),")
            out.append(f"{ind}    torch.nn.{rng.choice(['ReLU', 'GELU', 'Tanh', 'Dropout'])}(),")
            out.append(f"{ind}    torch.nn.Linear(in_features=32, out_features=4, bias=False),")
            out.append(f"{ind}){to}")
        out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = model({_var(rng, ctx)})")
    elif kind == "comment":
        if rng.random() < 0.1:
            out.append(ind + rng.choice(COMMENTS).format(n=rng.randint(10000, 160000)))
        else:
            for _ in range(rng.choice([1, 1, 2, 2, 3])):
                out.append(f"{ind}# {_prose(rng)}")
        write_statement(rng, ctx, ind, out)  # a comment introduces the next statement
    elif kind == "probe" and ctx.cuda_ok:
        a = _var(rng, ctx)
        k = rng.random()
        if k < 0.5:
            out.append(f"{ind}if torch.cuda.is_available():")
            out.append(f"{ind}    {a} = {a}.cuda()")
            out.append(f"{ind}    assert {a}.is_cuda" if ctx.free else f"{ind}    self.assertTrue({a}.is_cuda)")
        elif k < 0.8:
            out.append(f"{ind}if torch.cuda.device_count() < 2:")
            out.append(f"{ind}    return" if ctx.free else f'{ind}    self.skipTest("requires multiple GPUs")')
        else:
            out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = {a}.cuda().float()")
            out.append(f"{ind}torch.cuda.synchronize()")
    elif kind == "comprehension":
        a, b = _var(rng, ctx), _var(rng, ctx)
        if rng.random() < 0.5:
            out.append(f"{ind}sizes = [tensor.numel() for tensor in ({a}, {b}) if tensor.dim() > 0]")
        else:
            out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = torch.stack([{a}[idx] for idx in range({a}.size(0))])")
    elif kind == "fstring":
        a = _var(rng, ctx)
        out.append(f'{ind}msg = f"expected shape {{{a}.shape}} with {{{a}.dim()}} dims, got {{tuple({a}.size())}}"')
    elif kind == "kwargs":
        dim, keepdim = rng.choice([0, 1, -1]), rng.choice(["True", "False"])
        out.append(f'{ind}reduction_kwargs = {{"dim": {dim}, "keepdim": {keepdim}}}')
        out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = {_var(rng, ctx)}.sum(**reduction_kwargs)")
    elif kind == "nested_class" and ctx.depth == 0:
        to = ".to(device)" if ctx.device else ""
        out.append(f"{ind}class MyModule(torch.nn.Module):")
        out.append(f"{ind}    def __init__(self, hidden_size=4):")
        out.append(f"{ind}        super().__init__()")
        out.append(f"{ind}        self.linear = torch.nn.Linear(hidden_size, hidden_size)")
        out.append("")
        out.append(f"{ind}    def forward(self, hidden_states):")
        out.append(f"{ind}        return self.linear(hidden_states).{rng.choice(UNARY)}()")
        out.append("")
        out.append(f"{ind}{_new(rng, ctx, OUT_VARS)} = MyModule(){to}({_var(rng, ctx)})")
    elif kind == "expected_inline" and ctx.depth == 0:
        # Dynamo/inductor style: the expected graph as a multi-line literal.
        shape = rng.choice(["3, 4", "8", "2, 16", "4, 4, 4"])
        out.append(f'{ind}expected_graph = """')
        out.append(f'def forward(self, L_x_: "f32[{shape}]"):')
        out.append("    l_x_ = L_x_")
        prev = "l_x_"
        for i in range(rng.randint(2, 10)):
            op = rng.choice(GRAPH_OPS)
            cur = f"{op.split('.')[0]}_{i}"
            out.append(f'    {cur}: "f32[{shape}]" = torch.ops.aten.{op}({prev});  {prev} = None')
            prev = cur
        out.append(f"    return ({prev},)")
        out.append('"""')
        if ctx.free:
            out.append(f"{ind}assert expected_graph.strip()")
        else:
            graph = "normalize_gm(backend.graphs[0].print_readable(print_output=False))"
            out.append(f"{ind}self.assertExpectedInline({graph}, expected_graph)")
    elif kind == "if_chain":
        dt = "dtype" if ctx.dtype else f"{_var(rng, ctx)}.dtype"
        out.append(f"{ind}if {dt} in (torch.float16, torch.bfloat16):")
        out.append(f"{ind}    atol, rtol = 1e-2, 1e-2")
        out.append(f"{ind}elif {dt} == torch.float32:")
        out.append(f"{ind}    atol, rtol = 1e-5, 1.3e-6")
        out.append(f"{ind}else:")
        out.append(f"{ind}    atol, rtol = 1e-7, 1e-7")
    elif kind == "call_kwargs":
        a, b = _var(rng, ctx), _var(rng, ctx)
        v = _new(rng, ctx, OUT_VARS)
        fn = rng.choice(["fn", "model", "torch.sin"])
        backend = rng.choice(["eager", "aot_eager", "inductor"])
        out.append(
            ind
            + rng.choice(
                [
                    f"{v} = torch.nn.functional.scaled_dot_product_attention("
                    f"{a}, {b}, {a}, attn_mask=None, dropout_p=0.0, is_causal=True)",
                    f'{v} = torch.nn.functional.interpolate({a}, scale_factor=2.0, mode="bilinear", align_corners=False)',
                    f'{v} = torch.nn.functional.cross_entropy({a}, {b}.argmax(dim=-1), reduction="mean", label_smoothing=0.1)',
                    f'{v} = torch.compile({fn}, backend="{backend}", fullgraph=True)',
                    f'{v} = torch.nn.functional.conv2d({a}, {b}, bias=None, stride=1, padding="same", dilation=1, groups=1)',
                    f"{v} = torch.testing.make_non_contiguous({a}) if {a}.numel() > 1 else {a}",
                ]
            )
        )
    elif kind == "assert_msg":
        a, b = _var(rng, ctx), _var(rng, ctx)
        if ctx.free:
            out.append(f'{ind}assert {a}.shape == {b}.shape, "{_prose(rng)}"')
        else:
            out.append(f'{ind}self.assertEqual({a}, {b}, msg="{_prose(rng)}")')
    else:
        out.append(ind + _assert(rng, ctx))


def _split_top(text: str, opening: int) -> tuple[int, list[int]] | None:
    """Index of the parenthesis closing text[opening] and the top-level commas
    in between; None when it does not close at the very end. Generated
    strings hold no escapes, so a quote always toggles string state."""
    depth = 0
    quote = ""
    commas: list[int] = []
    for i in range(opening, len(text)):
        ch = text[i]
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
            if depth == 0:
                return (i, commas) if i == len(text) - 1 else None
        elif ch == "," and depth == 1:
            commas.append(i)
    return None


def wrap_line(line: str) -> list[str]:
    ind = line[: len(line) - len(line.lstrip())]
    quote = ""
    opening = -1
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "(":
            opening = i
            break
    if opening < 0 or line.lstrip().startswith(("#", "@", "def ", "class ", "for ", "if ", "with ")):
        return [line]
    found = _split_top(line, opening)
    if found is None:
        return [line]
    _, commas = found
    inner = line[opening + 1 : -1].strip()
    if len(ind) + 4 + len(inner) <= 88 or not commas:
        return [line[: opening + 1], f"{ind}    {inner}", f"{ind})"]
    bounds = [opening] + commas + [len(line) - 1]
    args = [line[a + 1 : b].strip() for a, b in zip(bounds, bounds[1:], strict=False)]
    return [line[: opening + 1]] + [f"{ind}    {a}," for a in args] + [f"{ind})"]
