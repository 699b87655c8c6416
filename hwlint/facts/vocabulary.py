"""The vocabulary: what counts as using an accelerator (`Accelerators`, from
the settings), the same compiled for matching (`Vocabulary`), and names as
PyTorch's tests write them (`dotted_name`, `INSTANTIATE`)."""

# No `from __future__ import annotations` here: typing.NamedTuple compiles each
# string annotation into a ForwardRef, a third of this module's import time.

import ast
import re
from typing import NamedTuple, Sequence

from hwlint.facts import devices as known


class LazyPattern:
    """re.compile on first use: compiling the facts stage's patterns costs
    ~5 ms, a tenth of `hwlint check` on one file, and most files need none
    of them."""

    __slots__ = ("_pattern", "_flags", "_compiled")

    def __init__(self, pattern: str, flags: int = 0) -> None:
        self._pattern = pattern
        self._flags = flags
        self._compiled: re.Pattern[str] | None = None

    def compiled(self) -> re.Pattern[str]:
        compiled = self._compiled
        if compiled is None:
            compiled = self._compiled = re.compile(self._pattern, self._flags)
        return compiled

    def search(self, string: str) -> re.Match[str] | None:
        return self.compiled().search(string)

    def match(self, string: str) -> re.Match[str] | None:
        return self.compiled().match(string)

    def split(self, string: str) -> list[str]:
        return self.compiled().split(string)


class Accelerators(NamedTuple):
    """What counts as using an accelerator. The defaults are PyTorch's own;
    an out-of-tree backend adds its module, flags and device name through
    the `extend-accelerator-modules`, `extend-accelerator-flags` and
    `extend-devices` settings (hwlint.core.config)."""

    # A call whose callee starts with `torch` and has one of these segments
    # (`torch.cuda.is_available()`, `torch.ops.xla.add()`) is accelerator
    # use; calls into `device_modules` are too, and calls into them other
    # than a question (`is_available()`) are also device-specific use
    # (HWC201). Device names: `device="cuda"`, `.to("cuda:1")`; methods:
    # `.cuda()`. The defaults and what each means: hwlint.facts.devices.
    segments: tuple[str, ...] = known.SEGMENTS
    device_modules: tuple[str, ...] = known.DEVICE_MODULES
    flags: tuple[str, ...] = known.FLAGS
    devices: tuple[str, ...] = known.DEVICES
    methods: tuple[str, ...] = known.METHODS
    # Names a module binds from a backend package, with what they name
    # (`testing` -> `torch_musa.testing`): calls through them are shown,
    # and matched to their device, as that path.
    aliases: tuple[tuple[str, str], ...] = ()

    def extended(
        self,
        modules: Sequence[str] = (),
        flags: Sequence[str] = (),
        devices: Sequence[str] = (),
        aliases: Sequence[tuple[str, str]] = (),
    ) -> "Accelerators":
        """These, plus a backend's own (a backend's device name is also a
        tensor method: `generate_methods_for_privateuse1_backend`)."""

        def add(old: tuple[str, ...], new: Sequence[str]) -> tuple[str, ...]:
            return old + tuple(x for x in dict.fromkeys(new) if x not in old)

        return Accelerators(
            self.segments,
            add(self.device_modules, [*modules, *(name for name, _ in aliases)]),
            add(self.flags, flags),
            add(self.devices, devices),
            add(self.methods, devices),
            (*self.aliases, *aliases),
        )


DEFAULT_ACCELERATORS = Accelerators()


# The accelerator tokens searched for together (Vocabulary.anchored).
ANCHOR = "pu"


class Vocabulary:
    """An Accelerators compiled for matching: sets, and the regexes (on first use)."""

    def __init__(self, acc: Accelerators) -> None:
        self.device_modules = acc.device_modules
        self.aliases = dict(acc.aliases)
        self.segments = frozenset(acc.segments)
        self.flags = frozenset(acc.flags)
        self.methods = frozenset(acc.methods)
        names = "|".join(re.escape(d) for d in acc.devices)
        self.device_string = LazyPattern(rf"^(?:{names})(?::\d+)?$")
        # An out-of-tree backend's `torch.backends.<device>` (`torch.backends.mlu`,
        # `torch.backends.npu`): there only where its package is, set or read.
        self.backends = frozenset(d for d in acc.devices if d not in known.IN_TREE_BACKENDS)
        backends = "|".join(re.escape(d) for d in sorted(self.backends)) or "(?!)"
        # Cheap text test run before walking a class body for probes and
        # devices: most classes mention no accelerator at all, and a regex
        # over the text costs far less than a walk of the tree. A call into
        # an accelerator has one of its lines holding `.cuda` (a segment
        # after a dot) or a configured module.
        self.text = LazyPattern(
            rf"(?:{'|'.join(re.escape(m) for m in self.device_modules)})\b"
            rf"|\.\s*(?:{'|'.join(re.escape(s) for s in acc.segments)})\b"
            rf"|\b(?:{'|'.join(re.escape(f) for f in (*acc.flags, *known.ANY_GPU_NAMES))})\b"
            rf"|\.(?:{'|'.join(re.escape(m) for m in acc.methods)})\("
            rf"|[\"'](?:{names})(?::\d+)?[\"']"
            r"|\b_get_privateuse1_backend_name\b"
            rf"|\btorch\.backends\.(?:{backends})\b"
        )
        # Every match of `text` contains one of these substrings, and no
        # match spans lines: `str.find` for them (fast C) picks the candidate
        # lines, and the regex confirms each one. Scanning whole class texts
        # with the regex itself cost more than half as much as parsing them.
        # PyTorch's own are picked by hand ("npu" alone would hit every
        # "input"); a backend's are added whole.
        tokens = [
            *acc.segments,
            "TEST_",
            "torch.npu",
            ".npu(",
            '"npu',
            "'npu",
            "_get_privateuse1_backend_name",
            *known.ANY_GPU_NAMES,
            *(f"backends.{d}" for d in sorted(self.backends)),
        ]
        default = DEFAULT_ACCELERATORS
        tokens += [m for m in acc.device_modules if m not in default.device_modules]
        tokens += [f for f in acc.flags if f not in default.flags]
        for device in acc.devices:
            if device not in default.devices:
                tokens += [f'"{device}', f"'{device}", f".{device}("]
        # A token that contains another finds nothing more (lines are what count).
        self.tokens = tuple(t for t in dict.fromkeys(tokens) if not any(o != t and o in t for o in tokens))
        # Each str.find is a pass over the whole module, and a short token
        # made of common letters ("ipu") is among the slowest: the tokens
        # holding "pu" after their first character ("xpu", "hpu", "ipu",
        # '"npu', ...) are found in one pass for "pu", each hit tried
        # against the tokens whose character before "pu" it has
        # (`anchored`: that character -> (token, where "pu" is in it)); the
        # rest (`scanned`) are searched for one by one.
        anchored: dict[str, list[tuple[str, int]]] = {}
        scanned: list[str] = []
        for token in self.tokens:
            at = token.find(ANCHOR)
            if at >= 1:
                anchored.setdefault(token[at - 1], []).append((token, at))
            else:
                scanned.append(token)
        self.scanned = tuple(scanned)
        self.anchored = {c: tuple(found) for c, found in anchored.items()}

    def qualified(self, prefix: str, text: str) -> str:
        """A callee's text, a name bound from a backend package shown as the
        path it names (`testing.OpTest()`, `testing` from torch_musa:
        `torch_musa.testing.OpTest()`): matched to its device so."""
        root = prefix.split(".", 1)[0]
        if root in self.aliases and text.startswith(root):
            return self.aliases[root] + text[len(root) :]
        return text


_VOCABULARIES: dict[Accelerators, Vocabulary] = {}


def vocabulary_for(acc: Accelerators) -> Vocabulary:
    """`acc` compiled, once per process."""
    found = _VOCABULARIES.get(acc)
    if found is None:
        found = _VOCABULARIES[acc] = Vocabulary(acc)
    return found


# The call that makes device classes from a generic one (common_device_type).
INSTANTIATE = "instantiate_device_type_tests"


def dotted_name(node: ast.expr) -> str:
    """`torch.cuda.is_available` for that chain of attributes on a name; "" for any other expression."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return ""
