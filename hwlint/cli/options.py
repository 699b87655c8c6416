"""Every command-line option, declared once: its names, destination,
default, help and environment variable.

Plain data, without click: `check` on one file runs without importing click
(hwlint.__main__ parses these declarations itself), and every command turns
the same declarations into click options (hwlint.cli.commands.decorators).
A command's options are a tuple of these; an option two commands share is
the same object, or a `replace` of it where only its choices or help
differ. Adding an option to a command is one line in its tuple and one
parameter of its function.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal

# The formats hwlint.output has: adding one there is no change here.
from hwlint.output import CHECK_FORMATS, REPORT_FORMATS
from hwlint.rules import FIXABLE

# How an option's value is read: a flag, text, a file, a folder, a count (an
# int >= minimum), seconds (a float > 0) or one of its choices.
OptionKind = Literal["flag", "text", "file", "folder", "count", "seconds", "choice"]

# A plain class, not a NamedTuple or a dataclass: a one-file `check` imports
# this module, and building those classes costs a noticeable part of it.


class Option:
    """One command-line option as declared once: its flags, the command
    function's parameter, its kind, help and defaults (click and the
    click-free fast path both build theirs from it)."""

    __slots__ = (
        "flags",
        "dest",
        "kind",
        "help",
        "default",
        "choices",
        "minimum",
        "envvar",
        "metavar",
        "multiple",
        "show_default",
    )

    def __init__(
        self,
        flags: tuple[str, ...],
        dest: str,
        kind: OptionKind,
        help: str | None = None,
        *,
        default: Any = None,
        choices: tuple[str, ...] = (),
        minimum: int = 0,
        envvar: str | None = None,
        metavar: str | None = None,
        multiple: bool = False,
        show_default: bool = False,
    ) -> None:
        self.flags = flags  # as the user types them, in the order --help shows them
        self.dest = dest  # the command function's parameter
        self.kind = kind
        self.help = help
        self.default = default
        self.choices = choices
        self.minimum = minimum
        self.envvar = envvar
        self.metavar = metavar
        self.multiple = multiple
        self.show_default = show_default

    def __repr__(self) -> str:
        return f"Option({'/'.join(self.flags)})"

    def replace(self, **changes: Any) -> "Option":
        """This option with other settings (the same flags and destination)."""
        settings = {name: getattr(self, name) for name in self.__slots__[2:]}
        return Option(self.flags, self.dest, **{**settings, **changes})

    def with_choices(self, choices: tuple[str, ...], default: str, help: str | None = None) -> "Option":
        return self.replace(choices=choices, default=default, help=help if help is not None else self.help)


CONFIG = Option(
    ("--config",),
    "config_file",
    "file",
    "Read settings from this pyproject.toml or hwlint.toml; its folder is the project root.",
)
JOBS = Option(
    ("--jobs", "-j"), "jobs", "count", "Processes to use (default: all cores; 1: no process pool).", minimum=1
)
SELECT = Option(
    ("--select",), "select", "text", "Comma-separated rule codes or prefixes to enable (replaces `select`)."
)
EXTEND_SELECT = Option(("--extend-select",), "extend_select", "text", "Codes or prefixes to enable on top of `select`.")
IGNORE = Option(
    ("--ignore",), "ignore", "text", "Comma-separated rule codes or prefixes to disable (replaces `ignore`)."
)
OUTPUT = Option(("-o", "--output"), "output", "file", "Write the output to this file instead of stdout.")
NO_CACHE = Option(("--no-cache",), "no_cache", "flag", "Neither read nor write the cache (env HWLINT_NO_CACHE=1).")
CACHE_DIR = Option(
    ("--cache-dir",),
    "cache_dir",
    "folder",
    "Cache folder (default: .hwlint_cache at the project root; env HWLINT_CACHE_DIR).",
    envvar="HWLINT_CACHE_DIR",
)
# Each command has its own formats: see with_choices (a command whose
# formats need more than their names says so there).
FORMAT = Option(("--format",), "fmt", "choice", "Output format.", show_default=True)
EXIT_ZERO = Option(
    ("--exit-zero",), "exit_zero", "flag", "Exit 0 even when there are violations (errors still exit 2)."
)
STATISTICS = Option(("--statistics",), "statistics", "flag", "Count the violations per rule after the list.")
NO_ALLOWLIST = Option(
    ("--no-allowlist",), "no_allowlist", "flag", "Ignore the allowlist: show every violation of allowlisted files too."
)
FIX = Option(
    ("--fix",),
    "fix",
    "flag",
    "Apply safe fixes, then prune the allowlist (clean or missing files, lower budgets); "
    "changes are printed on stderr.",
)

# Migration phases ([[tool.hwlint.phases]], hwlint.allowlist.phases). HWLINT_TODAY is
# read by the run itself, not as the option's envvar: lintrunner and library
# calls have no option, and a bad value's message names the variable.
TODAY = Option(
    ("--today",),
    "today",
    "text",
    "Judge migration phases as on this date (default: $HWLINT_TODAY, else today in UTC).",
    metavar="YYYY-MM-DD",
)
PHASE = Option(
    ("--phase",), "phase", "text", "Only the files of this migration phase ([[tool.hwlint.phases]]).", metavar="NAME"
)

# Every command that reads test files uses the project's cache unless told
# not to: these two, with cache_choice(..., True), on each of them.
CACHE = (NO_CACHE, CACHE_DIR)

# Options of every command that lints the tree (check, report).
LINT = (CONFIG, JOBS, SELECT, EXTEND_SELECT, IGNORE, OUTPUT, *CACHE)

CHECK = (
    *LINT,
    FORMAT.with_choices(
        CHECK_FORMATS,
        "text",
        "text: `path:line:col: CODE message` and a summary; json/jsonl: diagnostics for scripts; lintrunner: "
        "LintMessage lines; github: workflow annotations; sarif: code scanning; junit: CI test reports.",
    ),
    EXIT_ZERO,
    STATISTICS,
    NO_ALLOWLIST,
    FIX,
    TODAY,
)

# hwlint report
HISTORY = Option(
    ("--history",),
    "history",
    "flag",
    "Add the allowlist's size at every commit that changed it (git), and a projected date for zero.",
)
BASELINE = Option(
    ("--baseline",),
    "baseline",
    "count",
    "Files allowlisted when the migration began (default: `baseline` in the configuration, "
    "else the allowlist's largest size in git history, else its current size).",
)
ALL_ROWS = Option(
    ("--all-rows",),
    "all_rows",
    "flag",
    "Show every row of long tables in text, markdown and html (default: the first 15, then how many "
    "more; json always has every row).",
)
REPORT = (
    *LINT,
    FORMAT.with_choices(
        REPORT_FORMATS,
        "text",
        "text: for a terminal; markdown: for $GITHUB_STEP_SUMMARY; json: stable keys for dashboards; html: one "
        "self-contained page with the burn-down chart.",
    ),
    HISTORY,
    BASELINE,
    TODAY,
    ALL_ROWS,
)

# hwlint select
SELECT_FORMATS = ("files", "pytest", "json")
INCLUDE_UNCLASSIFIED = Option(
    ("--include-unclassified",), "include_unclassified", "flag", "Also list test classes that have no classification."
)
DEVICE = Option(
    ("--device",),
    "device",
    "text",
    "The runner's device type (cpu, cuda, xpu, mps, npu...): name instantiated classes as pytest "
    "collects them (TestFoo -> TestFooCUDA). Default: the one device among MEMBERS (GENERIC CPU -> cpu), "
    "if there is exactly one.",
    metavar="TYPE",
)
RUNTIME = Option(
    ("--runtime",),
    "runtime",
    "flag",
    "Import each test module in a child process of --python and list what unittest collects there, "
    "with the classification each class has at run time; modules that fail to import fall back to the "
    "static view and are uncertain.",
)
PYTHON = Option(
    ("--python",),
    "python",
    "text",
    "The project's Python for --runtime, with torch and the tests' dependencies (default: this one).",
    metavar="EXE",
)
TIMEOUT = Option(
    ("--timeout",),
    "timeout",
    "seconds",
    "--runtime: give up on a module whose import takes longer.",
    default=300.0,
    show_default=True,
    metavar="SECONDS",
)
# CI runners ([[tool.hwlint.runners]], hwlint.select.matrix)
RUNNER = Option(
    ("--runner",),
    "runner",
    "text",
    "Select for this configured runner ([[tool.hwlint.runners]]): its members and device, "
    "in place of MEMBERS and --device.",
    metavar="NAME",
)
MATRIX = Option(
    ("--matrix",),
    "matrix",
    "flag",
    'Print a CI matrix as JSON ({"include": [...]}, one entry per runner and shard, with its node ids), '
    "for GitHub Actions' strategy.matrix; shards are balanced by test count.",
)
DURATIONS = Option(
    ("--durations",),
    "durations",
    "file",
    "--matrix: balance the shards by the test times in this JUnit XML of an earlier run "
    "(repeatable: one per report; tests they do not know get their median time).",
    metavar="FILE",
    multiple=True,
)
SELECT_COMMAND = (
    FORMAT.with_choices(
        SELECT_FORMATS,
        "files",
        "files: test files; pytest: `path::Class` node ids; json: both, with each class's details.",
    ),
    INCLUDE_UNCLASSIFIED,
    DEVICE,
    RUNNER,
    MATRIX,
    DURATIONS,
    RUNTIME,
    PYTHON,
    TIMEOUT,
    CONFIG,
    JOBS,
    OUTPUT,
    *CACHE,
)


# hwlint fix
def _and(codes: tuple[str, ...]) -> str:
    """`A, B and C`: the help says which codes have fixes, from the rules that have them."""
    return codes[0] if len(codes) == 1 else f"{', '.join(codes[:-1])} and {codes[-1]}"


FIX_COMMAND = (
    CONFIG,
    JOBS,
    *CACHE,
    Option(("--diff",), "show_diff", "flag", "Print a unified diff of the fixes and write nothing."),
    Option(("--unsafe",), "unsafe", "flag", "Also apply fixes inferred from weaker evidence."),
    SELECT.replace(help=f"Fix only these rule codes or prefixes (fixes exist for {_and(FIXABLE)})."),
    Option(("--class",), "class_names", "text", "Fix only this class (repeatable).", multiple=True),
    PHASE.replace(help="Fix only the files of this migration phase (with PATHS: its files among them)."),
    Option(
        ("--show-unfixed",),
        "show_unfixed",
        "flag",
        "List every class left for a human, one line each (default: counts by reason, an example each).",
    ),
    FORMAT.with_choices(
        ("text", "json"), "text", "json: what was fixed and what is left, on stdout, for scripts and dashboards."
    ),
    Option(
        ("--verify-runtime",),
        "verify_runtime",
        "flag",
        "Before writing, collect each changed module's tests with unittest in a child process of --python "
        "(with torch; CUDA, XPU and MPS classes collected without the devices), as it is and as fixed; a file "
        "whose fix loses a test is not written, and the command exits 1.",
    ),
    PYTHON.replace(
        help="The project's Python for --verify-runtime, with torch and the tests' dependencies (default: this one)."
    ),
    TIMEOUT.replace(help="--verify-runtime: give up on a module whose import takes longer."),
    Option(
        ("--pr-description",),
        "pr_description",
        "text",
        "Write the description of the pull request that carries the fix, in Markdown, to this file (`-`: "
        "stdout): the summary, each class and how it was classified, what is left, the runtime check and the "
        "test plan. With --diff, what the fix would write.",
        metavar="FILE",
    ),
    Option(
        ("--pr-per",),
        "pr_per",
        "choice",
        "--pr-description: one description for the run (all, the default), or one per test file or folder, "
        "written into FILE as a folder (FILE/test__inductor.md for test/inductor).",
        choices=("file", "folder", "all"),
    ),
)

# hwlint allowlist ...
# Commands that print a line per allowlist entry they change (import-json
# prints 806 for PyTorch's list): the summary line is enough in scripts and
# hooks. Errors and refusals are printed all the same: they need a human.
QUIET = Option(
    ("-q", "--quiet"),
    "quiet",
    "flag",
    "Print only the summary line (and errors and refused entries), not a line per entry.",
)
ALLOW_GROWTH = Option(
    ("--allow-growth",),
    "allow_growth",
    "flag",
    "Also add files with violations and raise budgets (each addition is printed).",
)
BASE = Option(
    ("--base",),
    "base_ref",
    "text",
    "Compare with the allowlist at the merge base of HEAD and REF (default: origin/main, else main).",
    metavar="REF",
)


def dry_run(command: str) -> Option:
    """`--check` of a command that writes the allowlist: `command` says what
    it would change ("pruning", "sync")."""
    return Option(
        ("--check",),
        "dry_run",
        "flag",
        f"Change nothing: print what {command} would change and exit 1 if anything (for CI).",
    )


# Each `hwlint allowlist` command's options, in the order --help lists them.
ALLOWLIST_PRUNE = (CONFIG, JOBS, *CACHE, dry_run("pruning"), QUIET)
ALLOWLIST_INIT = (
    CONFIG,
    JOBS,
    *CACHE,
    # init prints no line per entry: quiet, it leaves out what follows its
    # summary (the devices found, the next steps), not the warnings.
    QUIET.replace(help="Print only the summary line (and warnings), not the devices found nor the next steps."),
)
ALLOWLIST_SYNC = (CONFIG, JOBS, *CACHE, ALLOW_GROWTH, dry_run("sync"), QUIET)
ALLOWLIST_CHECK = (BASE, CONFIG, FORMAT.with_choices(("text", "json"), "text"), OUTPUT)
ALLOWLIST_IMPORT_JSON = (
    CONFIG,
    JOBS,
    *CACHE,
    ALLOW_GROWTH.replace(
        help="Allow new files and higher budgets than the current list has (a first import always may)."
    ),
    QUIET,
)
ALLOWLIST_EXPORT_JSON = (CONFIG,)
ALLOWLIST_SHOW = (
    CONFIG,
    PHASE.replace(help="Only the entries of this migration phase: what it has left."),
    FORMAT.with_choices(
        ("text", "json"), "text", "text: one `path budget` line per entry; json: [{path, budget, line, phase}]."
    ),
    OUTPUT,
)


# hwlint devices
WRITE = Option(
    ("--write",),
    "write",
    "flag",
    "Add the settings that cover the devices found to the configuration file (pyproject.toml's "
    "[tool.hwlint] when there is none), keeping the rest of the file as it is.",
)
DEVICES_COMMAND = (
    CONFIG,
    JOBS,
    OUTPUT,
    *CACHE,
    FORMAT.with_choices(
        ("text", "json", "toml"),
        "text",
        "text: each device, its files and the lines that cover them; json: {devices, settings, toml}; toml: the "
        "lines only.",
    ),
    WRITE,
)

# hwlint rule
SHOW_ALL = Option(("--all",), "show_all", "flag", "Print every rule's explanation.")


def cache_choice(no_cache: bool, cache_dir: Path | str | None, default: bool | None) -> bool | Path | None:
    """run_check's and load_project's `cache` argument for --no-cache and
    --cache-dir (or HWLINT_CACHE_DIR); `default` when neither is given.
    HWLINT_NO_CACHE turns the cache off even when a folder is named."""
    from hwlint.infra.cache import ENV_DISABLE

    if no_cache or os.environ.get(ENV_DISABLE, "") not in ("", "0"):
        return False
    if cache_dir:
        return Path(cache_dir)
    return default
