"""The documentation site and the README: the site builds with no warning and
has a page per rule, every `hwlint` command line they show is one hwlint
accepts, every `[tool.hwlint]` key has its entry, and every pinned version is
this one. The blocks that other tests run word for word (adoption,
migrating, pre-commit, lintrunner) are found on their pages by those tests."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import click
import pytest

from hwlint import __version__
from tests.conftest import run_cli

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
README = REPO / "README.md"
SHELL_BLOCK = re.compile(r"^```(sh|console|shell|bash)[^\n]*\n(.*?)^```", re.S | re.M)
# Between commands of one shell line: a command starts after these tokens.
SEPARATORS = {"&&", "||", ";", "|", "(", "$(", "`"}
# ... and ends before these (redirections included).
ENDS = SEPARATORS | {")", ">", ">>", "<", "2>", "&", "&>"}


def pages() -> list[Path]:
    """The README and every page of the site."""
    return [README, *sorted(DOCS.rglob("*.md"))]


def build_site(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}  # Material's banner, not a warning of the build
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=config.parent,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
    )


def rule_codes_and_names() -> list[tuple[str, str]]:
    """Every rule, as `hwlint rule` lists them (code, name, summary)."""
    listing = run_cli("rule", cwd=REPO)
    assert listing.returncode == 0, listing.stderr
    rules = [tuple(line.split()[:2]) for line in listing.stdout.splitlines() if re.match(r"HWC\d{3}\s", line)]
    assert len(rules) >= 17, listing.stdout
    return rules  # type: ignore[return-value]


# -- the site ---------------------------------------------------------------


def test_site_builds_strict_with_a_page_per_rule(tmp_path: Path) -> None:
    site = tmp_path / "site"
    result = build_site(REPO / "mkdocs.yml", site)
    assert result.returncode == 0, result.stdout + result.stderr
    index = (site / "rules" / "index.html").read_text(encoding="utf-8")
    for code, name in rule_codes_and_names():
        page = site / "rules" / code / "index.html"
        assert page.is_file(), f"no page for {code}"
        html = page.read_text(encoding="utf-8")
        assert f"{code} {name}" in html and f"hwlint rule {code}" in html
        assert "What it does" in html and "Fix safety" in html and "Examples" in html
        assert f'href="{code}/"' in index, f"the rules index does not link {code}"
    # The pages are made at build time; none is committed.
    assert sorted(p.name for p in (DOCS / "rules").iterdir()) == ["index.md"]


def test_strict_build_fails_on_a_broken_link(tmp_path: Path) -> None:
    """--strict with this configuration fails on a link to a missing heading,
    so the passing build above means every cross-page anchor resolves."""
    copy = tmp_path / "repo"
    shutil.copytree(DOCS, copy / "docs")
    shutil.copy(REPO / "mkdocs.yml", copy / "mkdocs.yml")
    with (copy / "docs" / "check.md").open("a", encoding="utf-8") as page:
        page.write("\nSee [nowhere](fix.md#no-such-heading).\n")
    result = build_site(copy / "mkdocs.yml", tmp_path / "site")
    assert result.returncode != 0
    assert "no-such-heading" in result.stdout + result.stderr


def test_every_page_is_in_the_nav_and_linked_from_the_readme() -> None:
    readme = README.read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 250
    nav = set(re.findall(r"^\s*- (?:[^:\n]+: )?([\w/-]+\.md)\s*$", (REPO / "mkdocs.yml").read_text(), re.M))
    written = {p.relative_to(DOCS).as_posix() for p in DOCS.rglob("*.md")}
    assert nav == written
    linked = set(re.findall(r"\]\(docs/([\w/-]+\.md)(?:#[\w-]+)?\)", readme))
    assert linked == written


def test_no_internal_module_path_in_the_docs() -> None:
    """Modules move; commands and settings are what users rely on. Only the
    architecture page maps the code."""
    module = re.compile(r"(?<![@\w/.])hwlint(?:/\w+|\.(?!toml\b|sarif\b|xml\b|yml\b)[a-z_]+\b)")
    for page in pages():
        if page == DOCS / "architecture.md":
            continue
        for number, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            assert not module.search(line), f"{page.relative_to(REPO)}:{number}: {line}"


# -- command lines ----------------------------------------------------------


def shell_command_lines(text: str) -> list[tuple[int, str]]:
    """(line number, command line) of each command in the ```sh/```console
    blocks of a page: console blocks' commands are the `$ ` lines, and a
    trailing backslash continues a line."""
    found = []
    for match in SHELL_BLOCK.finditer(text):
        first = text.count("\n", 0, match.start(2)) + 1
        pending, start = "", first
        for offset, line in enumerate(match.group(2).splitlines()):
            if match.group(1) == "console":
                if not line.startswith("$ "):
                    continue
                line = line[2:]
            if not pending:
                start = first + offset
            if line.endswith("\\"):
                pending += line[:-1] + " "
                continue
            found.append((start, pending + line))
            pending = ""
    return found


def hwlint_invocations(line: str) -> list[list[str]]:
    """The arguments of each hwlint command in a shell line: `hwlint ...`
    and `python -m hwlint ...`, at the start of the line, after `&&`, `|`, `;`
    or inside `$( )`, up to the end of that command or a redirection."""
    lexer = shlex.shlex(line, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = "#"
    tokens = list(lexer)
    # shlex splits `$(` into `$` and `(`; a lone `2` before `>` is a file descriptor.
    tokens = [t for i, t in enumerate(tokens) if not (t == "$" and tokens[i + 1 : i + 2] == ["("])]
    invocations = []
    for i, token in enumerate(tokens):
        if i and tokens[i - 1] not in SEPARATORS:
            continue
        if token == "hwlint":
            args_from = i + 1
        elif re.fullmatch(r"python3?", token) and tokens[i + 1 : i + 3] == ["-m", "hwlint"]:
            args_from = i + 3
        else:
            continue
        args = []
        for arg in tokens[args_from:]:
            if arg in ENDS:
                break
            args.append(arg)
        invocations.append(args)
    return invocations


def parse_with_click(args: list[str]) -> None:
    """Parse a command line as `hwlint` would, down to its subcommand, without
    running it: an unknown command or option, a missing or surplus argument,
    or a value outside an option's choices raises click's UsageError."""
    from hwlint.cli.main import main

    command: click.Command = main
    ctx = command.make_context("hwlint", list(args))
    while isinstance(command, click.Group):
        # What a group leaves for its subcommand (click 8.2 renamed protected_args).
        protected = ctx.__dict__.get("_protected_args", ctx.__dict__.get("protected_args", []))
        name, sub, rest = command.resolve_command(ctx, [*protected, *ctx.args])
        assert sub is not None and name is not None
        command, ctx = sub, sub.make_context(name, rest, parent=ctx)


def documented_commands() -> list[tuple[str, list[str]]]:
    commands = []
    for page in pages():
        for number, line in shell_command_lines(page.read_text(encoding="utf-8")):
            for args in hwlint_invocations(line):
                commands.append((f"{page.relative_to(REPO).as_posix()}:{number}", args))
    return commands


COMMANDS = documented_commands()


def test_the_command_lines_are_found() -> None:
    """The extraction itself: every page with shell blocks contributes, and
    every hwlint command is there (so a parse test cannot pass on nothing)."""
    where = {place.split(":")[0] for place, _ in COMMANDS}
    assert {
        "README.md",
        "docs/adopting.md",
        "docs/allowlist.md",
        "docs/fix.md",
        "docs/report.md",
        "docs/select.md",
        "docs/check.md",
        "docs/migrating.md",
        "docs/getting-started.md",
    } <= where
    assert {args[0] for _, args in COMMANDS} >= {"check", "fix", "allowlist", "report", "select", "rule"}
    assert ["select", "GENERIC", "CPU", "--format", "pytest"] in [args for _, args in COMMANDS]  # inside $( )
    assert hwlint_invocations('hwlint report --history --format markdown >> "$GITHUB_STEP_SUMMARY"') == [
        ["report", "--history", "--format", "markdown"]
    ]
    assert hwlint_invocations("git add x && python -m hwlint check a.py  # note") == [["check", "a.py"]]


@pytest.mark.parametrize(("place", "args"), COMMANDS, ids=[f"{p} hwlint {' '.join(a)}" for p, a in COMMANDS])
def test_documented_command_line_parses(place: str, args: list[str]) -> None:
    try:
        parse_with_click(args)
    except click.UsageError as exc:
        pytest.fail(f"{place}: hwlint {shlex.join(args)}: {exc.format_message()}")


@pytest.mark.parametrize(
    "args",
    [
        ["check", "--no-such-option"],
        ["allowlist", "purge"],
        ["report", "--format", "pdf"],
        ["select", "GENERIC", "--format"],
    ],
)
def test_a_renamed_option_or_command_fails_the_parse(args: list[str]) -> None:
    with pytest.raises(click.UsageError):
        parse_with_click(args)


# -- settings and versions --------------------------------------------------


def test_the_configuration_reference_has_every_key(tmp_path: Path) -> None:
    """The keys are hwlint's own list, as its error for an unknown key gives it."""
    (tmp_path / "pyproject.toml").write_text("[tool.hwlint]\nno-such-key = 1\n")
    result = run_cli("check", cwd=tmp_path)
    assert result.returncode == 2
    known = re.search(r"known keys: ([^)]*)\)", result.stderr)
    assert known, result.stderr
    reference = (DOCS / "configuration.md").read_text(encoding="utf-8")
    documented = re.findall(r"^### `([\w-]+)`$", reference, re.M)
    assert sorted(documented) == sorted(known.group(1).split(", "))


def test_the_configuration_defaults_are_accepted(tmp_path: Path) -> None:
    reference = (DOCS / "configuration.md").read_text(encoding="utf-8")
    block = re.search(r"<!-- config-defaults[^>]*-->\n```toml\n(.*?)```", reference, re.S)
    assert block, "configuration.md lost its table of defaults"
    (tmp_path / "pyproject.toml").write_text(block.group(1))
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "test_a.py").write_text("class TestA:\n    def test_a(self):\n        pass\n")
    result = run_cli("check", cwd=tmp_path)
    assert result.returncode == 1, result.stderr  # HWC001 on TestA: the settings were read
    assert "HWC001" in result.stdout


def test_every_pinned_version_is_this_one() -> None:
    pinned: dict[str, set[str]] = {}
    for page in [*pages(), REPO / ".pre-commit-hooks.yaml"]:
        text = page.read_text(encoding="utf-8")
        for version in re.findall(r"\bhwlint(?:\[\w+\])?==([\w.]+)|/hwlint@v([\w.]+)", text):
            pinned.setdefault(page.relative_to(REPO).as_posix(), set()).add("".join(version))
    assert {"docs/integrations.md", "docs/migrating.md", "docs/getting-started.md", "docs/ci.md"} <= set(pinned)
    assert all(versions == {__version__} for versions in pinned.values()), pinned
