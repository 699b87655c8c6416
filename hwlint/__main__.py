"""`python -m hwlint`: the command line (hwlint.cli, with click).

`check` on a few files runs on every commit (pre-commit, lintrunner), where
start-up is most of the time: importing click alone costs a third of the
interpreter's own start-up. So `check` with the options a hook uses is run
here without click; anything else (another command, --help, --fix, an option
not listed below, a value click would refuse, repeated options) goes to
hwlint.cli, which gives the same results and every error message.
HWLINT_NO_FAST_PATH=1 sends everything to hwlint.cli (tests compare both).
"""

from __future__ import annotations

import os
import sys
from typing import Any

_FLAGS = {"--exit-zero": "exit_zero", "--statistics": "statistics", "--no-allowlist": "no_allowlist",
          "--no-cache": "no_cache"}
_VALUED = {"--format": "fmt", "--config": "config_file", "--jobs": "jobs", "-j": "jobs", "-o": "output",
           "--output": "output", "--cache-dir": "cache_dir"}
_FORMATS = ("text", "json", "jsonl")


def _parse_check(args: list[str]) -> dict[str, Any] | None:
    """The options of a plain `check` command line, or None for click."""
    if not args or args[0] != "check":
        return None
    options: dict[str, Any] = {"paths": []}
    rest = iter(args[1:])
    for arg in rest:
        if not arg.startswith("-"):
            options["paths"].append(arg)
            continue
        name, has_value, text = arg.partition("=")
        value: Any
        if name in _FLAGS and not has_value:
            key, value = _FLAGS[name], True
        elif name in _VALUED:
            if has_value and not name.startswith("--"):
                return None  # to click, -o=x is the file "=x"
            value = text if has_value else next(rest, None)
            if not value or value.startswith("-"):
                return None
            key = _VALUED[name]
        else:
            return None
        if key in options:
            return None  # click takes the last one; let it
        options[key] = value
    if any(p == "" for p in options["paths"]):
        return None
    if options.get("fmt", "text") not in _FORMATS:
        return None
    jobs = options.get("jobs")
    if jobs is not None:
        if not (jobs.isascii() and jobs.isdigit()) or int(jobs) < 1:
            return None
        options["jobs"] = int(jobs)
    # click.Path(dir_okay=False / file_okay=False) refuses these: its message.
    for key in ("config_file", "output"):
        if key in options and os.path.isdir(options[key]):
            return None
    if "cache_dir" in options and os.path.exists(options["cache_dir"]) and not os.path.isdir(options["cache_dir"]):
        return None
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower().replace("-", "")
    if encoding != "utf8":
        return None  # click.echo knows what to do with other encodings
    return options


def _check(options: dict[str, Any]) -> int:
    """What hwlint.cli's `check` does for these options (see test_cache.py's
    comparison of both)."""
    from pathlib import Path

    from hwlint.project import load_project

    cache: Any = True
    if options.get("no_cache"):
        cache = False
    elif options.get("cache_dir"):
        cache = Path(options["cache_dir"])
    config_file = options.get("config_file")
    config = load_project(Path(config_file) if config_file else None, cache=cache)
    from hwlint.check import run_check
    from hwlint.diagnostics import is_safe_fix
    from hwlint.formats import renderer

    paths = [Path(p) for p in options["paths"]]
    result = run_check(config, paths or None, jobs=options.get("jobs"), use_allowlist=not options.get("no_allowlist"),
                       cache=cache)
    fmt = options.get("fmt", "text")
    for outside in result.outside:
        print(f"hwlint: warning: {outside} is outside the project root {config.root}: not checked", file=sys.stderr)
    if paths and result.files_checked == 0 and not result.diagnostics and fmt == "text":
        print("hwlint: no test files among the given paths (see `include`/`exclude`)", file=sys.stderr)
    output = options.get("output")
    color = fmt == "text" and output is None and sys.stdout.isatty() and "NO_COLOR" not in os.environ
    extra: dict[str, Any] = {}
    if fmt == "lintrunner" and any(is_safe_fix(d.fix) for d in result.diagnostics):
        from hwlint.fix import lintrunner_replacements  # libcst: only when there is a fix

        extra["replacements"] = lintrunner_replacements(result)
    text = renderer(fmt)(result, statistics=bool(options.get("statistics")), color=color, fmt=fmt, **extra)
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
    else:
        from hwlint.atomic import write_text_atomic
        from hwlint.diagnostics import UserError

        try:
            write_text_atomic(Path(output), text)
        except OSError as exc:
            raise UserError(f"{output}: cannot write: {exc.strerror or exc}") from None
    return 1 if result.diagnostics and not options.get("exit_zero") else 0


def _run_check(options: dict[str, Any]) -> int:
    """_check, with hwlint.cli.guarded's handling of errors."""
    from hwlint.diagnostics import UserError

    try:
        return _check(options)
    except UserError as exc:
        message = f"hwlint: error: {exc}"
    except KeyboardInterrupt:
        print("hwlint: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `hwlint check | head`: as click does, quietly
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    except Exception as exc:  # a bug in hwlint: say so in one line
        if os.environ.get("HWLINT_DEBUG"):
            raise
        message = (f"hwlint: error: internal error: {type(exc).__name__}: {exc} "
                   "(rerun with HWLINT_DEBUG=1 for a traceback, and please report it)")
    print(message, file=sys.stderr)
    return 2


def main() -> None:
    if not os.environ.get("HWLINT_NO_FAST_PATH"):
        options = _parse_check(sys.argv[1:])
        if options is not None:
            import gc

            gc.disable()  # a short run that makes no garbage cycles (check.py says why)
            code = _run_check(options)
            # Everything is written (the cache too, and the output is flushed
            # below): skip the interpreter's teardown of every module and
            # object, a tenth of a one-file run. mypy exits the same way.
            try:
                sys.stdout.flush()
                sys.stderr.flush()
            except (OSError, ValueError):
                pass
            os._exit(code)
    from hwlint.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
