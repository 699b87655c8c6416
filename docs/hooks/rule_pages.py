"""MkDocs hooks: the Rules section is made from the rules themselves.

Each rule carries its code, name, summary, explanation (what `hwlint rule
CODE` prints), fix safety and VALID/INVALID examples, and one parametrized
test runs every example. Building the pages from that metadata at build time,
instead of committing copies of it, is what keeps the site from drifting from
the terminal and from the tests: a new rule gets its page and its row in the
index by being registered, and nothing generated is committed.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files
from mkdocs.structure.pages import Page

from hwlint.rules import ALL_RULES, Example, Rule

INDEX = "rules/index.md"
TABLE_MARKER = "<!-- rules-table:"
SNIPPET = "test/test_example.py"  # where the rule-example test writes each snippet


def page_uri(rule: type[Rule]) -> str:
    return f"rules/{rule.code}.md"


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    """Add one nav entry per rule under the Rules section, after its index."""
    for item in config.nav or []:
        if isinstance(item, dict) and isinstance(item.get("Rules"), list) and INDEX in item["Rules"]:
            item["Rules"].extend({f"{rule.code} {rule.name}": page_uri(rule)} for rule in ALL_RULES)
            return config
    # Without the section the rule pages would be built but unreachable.
    raise PluginError(f"mkdocs.yml: nav has no 'Rules' section listing {INDEX}")


def on_files(files: Files, config: MkDocsConfig) -> Files:
    for rule in ALL_RULES:
        files.append(File.generated(config, page_uri(rule), content=rule_page(rule)))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    if page.file.src_uri != INDEX:
        return markdown
    lines = markdown.split("\n")
    marked = [i for i, line in enumerate(lines) if line.startswith(TABLE_MARKER)]
    if len(marked) != 1:
        raise PluginError(f"{INDEX}: expected one {TABLE_MARKER} ...--> line, found {len(marked)}")
    lines[marked[0]] = index_table()
    return "\n".join(lines)


def index_table() -> str:
    rows = ["| code | name | default | fix | what |", "|---|---|---|---|---|"]
    for rule in ALL_RULES:
        default = "on" if rule.default else "off"
        fix = "`hwlint fix`" if rule.fixable else ""
        rows.append(f"| [{rule.code}]({rule.code}.md) | {rule.name} | {default} | {fix} | {rule.summary} |")
    return "\n".join(rows)


def rule_page(rule: type[Rule]) -> str:
    # explanation() opens with its own "# name (code)" title; the page's title
    # puts the code first, as the nav and the index do.
    explanation = rule.explanation().split("\n", 1)[1].strip("\n")
    parts = [
        f"# {rule.code} {rule.name}",
        "",
        f"`hwlint rule {rule.code}` prints this explanation.",
        "",
        explanation,
        "",
    ]
    if "\n## Fix safety" not in "\n" + explanation:
        parts += ["## Fix safety", "", fix_note(rule), ""]
    parts += examples_section(rule)
    return "\n".join(parts)


def fix_note(rule: type[Rule]) -> str:
    if rule.fixable:
        return "`hwlint fix` fixes these violations: see [Fix](../fix.md) for what makes a fix safe."
    return "`hwlint fix` does not fix this rule's violations: what to do is in the message and in *Use instead* above."


def examples_section(rule: type[Rule]) -> list[str]:
    parts = [
        "## Examples",
        "",
        f"Each example is `{SNIPPET}` in a project whose configuration selects {rule.code}. "
        "The test suite runs every one of them through hwlint, so what this page says is what "
        "hwlint does.",
        "",
    ]
    for title, examples in (("Reported", rule.INVALID), ("Not reported", rule.VALID)):
        if not examples:
            continue
        parts += [f"### {title}", ""]
        for number, example in enumerate(examples, 1):
            if len(examples) > 1:  # where one example ends and the next begins
                parts += [f"#### {title}, {number} of {len(examples)}", ""]
            parts += example_blocks(rule, example)
    return parts


def example_blocks(rule: type[Rule], example: Example) -> list[str]:
    parts: list[str] = []
    if example.settings:
        settings = {"select": [rule.code], **example.settings}
        parts += fenced(
            "toml",
            "pyproject.toml",
            "[tool.hwlint]\n" + "".join(f"{key} = {toml_value(value)}\n" for key, value in settings.items()),
        )
    for path, source in example.files.items():
        parts += fenced("toml" if path.endswith(".toml") else "python", path, source)
    if example.base_allowlist is not None:
        parts += fenced("text", "allowlist.txt (at the base commit)", example.base_allowlist)
    if example.allowlist is not None:
        parts += fenced("text", "allowlist.txt", example.allowlist)
    parts += fenced("python", SNIPPET, example.source)
    if example.base_allowlist is not None:
        parts += ["Judged by `hwlint allowlist check --base REF`, REF being the base commit.", ""]
    if example.expect:
        found = sorted(zip(example.expect, example.messages or ("",) * len(example.expect)))
        # A text block: messages hold backticks, underscores and asterisks.
        parts += [f"{rule.code} is reported at (line:column: the words of its message the test checks):", ""]
        parts += fenced("text", "", "".join(f"{line}:{column}: {message}\n" for (line, column), message in found))
    if rule.fixable and example.expect:
        if example.fixed is not None:
            parts += ["After `hwlint fix`:", ""] + fenced("python", SNIPPET, example.fixed)
        else:
            parts += ["`hwlint fix` leaves it as it is.", ""]
        if example.unsafe_fixed is not None:
            parts += ["After `hwlint fix --unsafe`:", ""] + fenced("python", SNIPPET, example.unsafe_fixed)
    return parts


def fenced(language: str, title: str, text: str) -> list[str]:
    # A fence longer than any backtick run in the text, so a snippet can hold one.
    fence = "`" * max(3, 1 + max((len(run) for run in re.findall("`+", text)), default=0))
    opening = f'{fence}{language} title="{title}"' if title else f"{fence}{language}"
    return [opening, text.rstrip("\n"), fence, ""]


def toml_value(value: Any) -> str:
    """A TOML literal for an example's setting (strings, lists, tables, integers)."""
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{toml_key(k)} = {toml_value(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, str)):
        return json.dumps(value)  # a JSON string or integer is a TOML one too
    raise PluginError(f"cannot write the example setting {value!r} as TOML")


def toml_key(key: str) -> str:
    return key if key.replace("-", "").replace("_", "").isalnum() else json.dumps(key)
