"""`python -m hwlint`: the command line.

`check` on a few files runs on every commit (pre-commit, lintrunner), where
start-up is most of the time: importing click alone costs a third of the
interpreter's own start-up. So a `check` command line that uses only the
options in FAST, with values click would accept, is parsed here from the
same declarations (hwlint.cli.options.CHECK) and runs the same body
(hwlint.cli.commands.check_body) without click. Anything else (another command,
--help, --fix, another option, a value click would refuse, a repeated
option) goes to click (hwlint.cli.main), for the same results and every error
message. HWLINT_NO_FAST_PATH=1 sends everything to click (tests compare both).
"""

from __future__ import annotations

import os
import sys
from typing import Any

# The destinations of the options of CHECK parsed here, and the formats
# (--select and the others need the rule registry; --fix needs libcst).
FAST = {
    "config_file",
    "jobs",
    "output",
    "no_cache",
    "cache_dir",
    "fmt",
    "exit_zero",
    "statistics",
    "no_allowlist",
    "today",
}
FAST_FORMATS = ("text", "json", "jsonl")


def parse_check(args: list[str]) -> dict[str, Any] | None:
    """check_body.check's arguments for a `check` command line, or None
    when click should parse it."""
    if not args or args[0] != "check":
        return None
    from hwlint.cli.options import CHECK

    declared = [option for option in CHECK if option.dest in FAST]
    by_flag = {flag: option for option in declared for flag in option.flags}
    paths: list[str] = []
    settings: dict[str, Any] = {}
    rest = iter(args[1:])
    for arg in rest:
        if not arg.startswith("-"):
            paths.append(arg)
            continue
        name, has_value, text = arg.partition("=")
        option = by_flag.get(name)
        if option is None:
            return None
        value: Any
        if option.kind == "flag":
            if has_value:
                return None
            value = True
        else:
            if has_value and not name.startswith("--"):
                return None  # to click, -o=x is the file "=x"
            value = text if has_value else next(rest, None)
            if not value or value.startswith("-"):
                return None
        if option.dest in settings:
            return None  # click takes the last one; let it
        settings[option.dest] = value
    for option in declared:
        if option.envvar and option.dest not in settings and os.environ.get(option.envvar):
            settings[option.dest] = os.environ[option.envvar]  # click ignores an empty one too
    if "" in paths or not all(
        _accepted(option, settings[option.dest]) for option in declared if option.dest in settings
    ):
        return None
    for option in declared:
        if option.kind == "count" and option.dest in settings:
            settings[option.dest] = int(settings[option.dest])
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    if encoding != "utf8":
        return None  # click.echo knows what to do with other encodings
    return {"paths": paths, **settings}


def _accepted(option: Any, value: Any) -> bool:
    """Whether click would take this value (else its message is wanted)."""
    if option.kind == "count":
        return bool(value.isascii() and value.isdigit() and int(value) >= option.minimum)
    if option.kind == "choice":
        return value in FAST_FORMATS
    if option.kind == "file":  # click.Path(dir_okay=False)
        return not os.path.isdir(value)
    if option.kind == "folder":  # click.Path(file_okay=False)
        return not os.path.exists(value) or os.path.isdir(value)
    return True


def main() -> None:
    if not os.environ.get("HWLINT_NO_FAST_PATH"):
        settings = parse_check(sys.argv[1:])
        if settings is not None:
            import gc

            gc.disable()  # a short run that makes no garbage cycles (check.py says why)
            from hwlint.cli.commands.check_body import check
            from hwlint.cli.commands.console import error_exit

            try:
                code = check(**settings)
            except (Exception, KeyboardInterrupt) as exc:
                code = error_exit(exc)
            # Everything is written (the cache too, and the output is flushed
            # below): skip the interpreter's teardown of every module and
            # object, a tenth of a one-file run. mypy exits the same way.
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            os._exit(code)
    from hwlint.cli.main import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
