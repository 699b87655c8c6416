"""The one record every stage after the rules speaks: a diagnostic."""

# No `from __future__ import annotations`: typing.NamedTuple would compile
# each string annotation (hwlint.facts.records says why).

from typing import Any, Callable, NamedTuple, Union


class Fix(NamedTuple):
    """A fix hwlint can make: the class ends up classified `classification`.

    `applicability` is "safe" (`hwlint fix` applies it) or "unsafe" (only
    with `--unsafe`); `evidence` says why. The rewrite: with `member`, the
    declaration whose value is the string `string` gets `<enum>.<member>`
    instead (HWC002; the member, or the alias the string named); without,
    a declaration of `classification` is added to the class (HWC001).
    `kind` names the evidence for summaries (hwlint.rules.infer.REASONS).
    """

    applicability: str
    classification: str
    evidence: str
    member: str | None = None
    string: str | None = None
    kind: str = ""

    def to_dict(self) -> dict[str, str]:
        """The `fix` object of JSON output."""
        out = {"applicability": self.applicability, "classification": self.classification, "evidence": self.evidence}
        if self.member is not None:
            out["member"] = self.member
        return out


class Rewrite(NamedTuple):
    """A device-agnostic rewrite of one hard-coded device (HWC201), always
    "unsafe": it changes what the test runs on, so a human reviews it.

    `kind` and `name` say what is there (hwlint.facts.Site: `device="cuda"`
    is kind "keyword", name "cuda"); `target` what takes its place: "device"
    (the test's `device`, or `self.device_type` where there is none; `hwlint
    fix` decides from the tree) or the dotted device-generic callable
    (`torch.accelerator.synchronize`, first in PyTorch `since`).
    """

    applicability: str
    kind: str
    name: str
    target: str
    since: str | None = None
    evidence: str = "a device-agnostic rewrite changes what the test runs on"

    def to_dict(self) -> dict[str, str | None]:
        """The `fix` object of JSON output."""
        return {
            "applicability": self.applicability,
            "rewrite": self.name,
            "with": self.target,
            "since": self.since,
            "evidence": self.evidence,
        }


class NotFixable(NamedTuple):
    """A finding of a fixable rule that needs a human, and why: `reason` for
    the message, `kind` to count such findings by (hwlint.rules.infer.REASONS)."""

    reason: str
    kind: str = ""
    # "not-configured": the one device the class is bound to (e.g. "NPU"),
    # for `fix --unsafe` to try making the class device-generic.
    device: str = ""


class Configure(NamedTuple):
    """A finding that settings clear, not an edit of the file (HWC003: a
    device the configuration does not name). `settings` are the
    `[tool.hwlint]` keys and their whole values that cover `device`
    (hwlint.facts.devices.coverage); `hwlint devices --write` writes them."""

    device: str
    settings: tuple[tuple[str, tuple[str, ...]], ...]
    applicability: str = "safe"

    def to_dict(self) -> dict[str, Any]:
        """The `fix` object of JSON output."""
        return {
            "applicability": self.applicability,
            "device": self.device,
            "settings": {key: list(values) for key, values in self.settings},
        }


class Respell(NamedTuple):
    """A misspelt device (HWC003's "did you mean"): `wrong` spelt `right`
    in the file's strings, always "unsafe": torch.device() refused it, so
    the test never ran as written (hwlint.fix.respell)."""

    applicability: str
    wrong: str
    right: str
    evidence: str = "torch.device() refuses the misspelt device: the test never ran as written"

    def to_dict(self) -> dict[str, str]:
        """The `fix` object of JSON output."""
        return {
            "applicability": self.applicability,
            "respell": self.wrong,
            "with": self.right,
            "evidence": self.evidence,
        }


FixInfo = Union[Fix, Rewrite, NotFixable, Configure, Respell, None]

# marshal (the whole-tree memo) refuses tuple subclasses: fixes travel as
# plain tuples led by the type's name.
_BY_NAME: dict[str, Callable[..., FixInfo]] = {t.__name__: t for t in (Fix, Rewrite, NotFixable, Configure, Respell)}


def fix_to_plain(fix: FixInfo) -> tuple[str | None, ...] | None:
    """A fix as a plain tuple led by its type's name (fix_from_plain reads it)."""
    return None if fix is None else (type(fix).__name__, *fix)


def fix_from_plain(plain: tuple[Any, ...] | None) -> FixInfo:
    """The fix fix_to_plain was given."""
    if plain is None:
        return None
    return _BY_NAME[plain[0]](*plain[1:])


def is_safe_fix(fix: FixInfo) -> bool:
    """Whether `hwlint fix` applies the fix without `--unsafe`."""
    return isinstance(fix, Fix) and fix.applicability == "safe"


def gives_replacement(fix: FixInfo) -> bool:
    """Whether lintrunner's `replacement` carries this fix: a safe fix, or an
    HWC201 rewrite (a rule the project turned on; lintrunner shows the diff
    before `lintrunner -a` applies it)."""
    return is_safe_fix(fix) or isinstance(fix, Rewrite)


class Diagnostic:
    """One finding. Equal and ordered by (path, line, column, code), the sort
    order the spec promises; the other fields do not take part. Treat it as
    immutable. (A plain class: a dataclass costs ~0.5 ms to define, and a
    one-file check is a few tens of milliseconds of imports.)"""

    __slots__ = ("path", "line", "column", "code", "name", "message", "severity", "class_name", "fix", "method")

    def __init__(
        self,
        path: str,
        line: int,
        column: int,
        code: str,
        name: str,
        message: str,
        severity: str = "error",
        class_name: str | None = None,
        fix: FixInfo = None,
        method: str | None = None,  # the test method a finding is about (not in to_dict: the spec's keys)
    ) -> None:
        self.path = path
        self.line = line
        self.column = column
        self.code = code
        self.name = name
        self.message = message
        self.severity = severity
        self.class_name = class_name
        self.fix = fix
        self.method = method

    def _key(self) -> tuple[str, int, int, str]:
        return (self.path, self.line, self.column, self.code)

    def __eq__(self, other: object) -> bool:
        return self._key() == other._key() if isinstance(other, Diagnostic) else NotImplemented

    def __lt__(self, other: "Diagnostic") -> bool:
        return self._key() < other._key()

    def __le__(self, other: "Diagnostic") -> bool:
        return self._key() <= other._key()

    def __gt__(self, other: "Diagnostic") -> bool:
        return self._key() > other._key()

    def __ge__(self, other: "Diagnostic") -> bool:
        return self._key() >= other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __reduce__(self) -> tuple[type["Diagnostic"], tuple[Any, ...]]:
        # The constructor and its arguments: a pool's workers send thousands
        # of diagnostics, and unpickling the slots one by one (object's
        # default) took the main process twice as long.
        return (
            Diagnostic,
            (
                self.path,
                self.line,
                self.column,
                self.code,
                self.name,
                self.message,
                self.severity,
                self.class_name,
                self.fix,
                self.method,
            ),
        )

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"Diagnostic({fields})"

    def to_dict(self) -> dict[str, Any]:
        return {
            "path": self.path,
            "line": self.line,
            "column": self.column,
            "code": self.code,
            "name": self.name,
            "severity": self.severity,
            "message": self.message,
            "class_name": self.class_name,
            "fix": self.fix.to_dict() if isinstance(self.fix, (Fix, Rewrite, Configure, Respell)) else None,
        }


class UserError(Exception):
    """A problem the user must fix (configuration, arguments, allowlist I/O).

    The CLI prints it as one line and exits 2; it never becomes a traceback.
    """
