"""`hwlint server` end to end: a real LSP client (pytest-lsp) talks to the
server over stdio, one capability a test; project trees made in tmp_path,
small snippets in, exact diagnostics out, held against `hwlint check
--format json` on the same files."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import AsyncIterator, Callable, Sequence

import pytest

pytest.importorskip("pygls")
pytest_lsp = pytest.importorskip("pytest_lsp")

from lsprotocol import types  # noqa: E402

from hwlint.rules.allowlist_budget import AllowlistBudget  # noqa: E402
from hwlint.rules.allowlist_stale import AllowlistStale  # noqa: E402
from hwlint.rules.missing_classification import MissingClassification  # noqa: E402
from hwlint.rules.parse_error import ParseError  # noqa: E402

pytestmark = pytest.mark.slow

HWC001 = MissingClassification.code
PREAMBLE = "from torch.testing._internal.common_utils import TestCase\n"
UNCLASSIFIED = PREAMBLE + "\n\nclass TestAdd(TestCase):\n    def test_add(self):\n        self.assertEqual(1 + 1, 2)\n"
SETTINGS = '[tool.hwlint]\ninclude = ["test/**/test_*.py"]\n'


def make_tree(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text) if rel.endswith(".py") else text, encoding="utf-8")
    return root


def check_json(root: Path, *rels: str) -> list[tuple[str, int, int, str, str]]:
    """What `hwlint check --format json` says of the files, as tuples."""
    proc = subprocess.run(
        [sys.executable, "-m", "hwlint", "check", "--no-cache", "--exit-zero", "--format", "json", *rels],
        cwd=root,
        capture_output=True,
        text=True,
        check=True,
    )
    return sorted((d["path"], d["line"], d["column"], d["code"], d["message"]) for d in json.loads(proc.stdout))


def as_tuples(root: Path, published: dict[str, Sequence[types.Diagnostic]]) -> list[tuple[str, int, int, str, str]]:
    """The server's diagnostics, every file's, in check's terms (ASCII
    snippets: the client's columns are characters)."""
    found = []
    for uri, diagnostics in published.items():
        rel = Path(uri.removeprefix("file://")).relative_to(root).as_posix()
        for d in diagnostics:
            found.append((rel, d.range.start.line + 1, d.range.start.character + 1, str(d.code), d.message))
    return sorted(found)


def capabilities(*, pull: bool = False, watch: bool = False) -> types.ClientCapabilities:
    return types.ClientCapabilities(
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
            diagnostic=types.DiagnosticClientCapabilities() if pull else None,
            code_action=types.CodeActionClientCapabilities(
                code_action_literal_support=types.ClientCodeActionLiteralOptions(
                    code_action_kind=types.ClientCodeActionKindOptions(value_set=[types.CodeActionKind.QuickFix])
                )
            ),
            hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown]),
        ),
        workspace=types.WorkspaceClientCapabilities(
            did_change_watched_files=types.DidChangeWatchedFilesClientCapabilities(dynamic_registration=watch),
            diagnostics=types.DiagnosticWorkspaceClientCapabilities(refresh_support=True) if pull else None,
        ),
    )


@contextlib.asynccontextmanager
async def server(root: Path, **kwargs: bool) -> AsyncIterator[pytest_lsp.LanguageClient]:
    client = pytest_lsp.make_test_lsp_client()
    env = {**os.environ, "HWLINT_NO_CACHE": "1"}
    await client.start_io(sys.executable, "-m", "hwlint", "server", cwd=str(root), env=env)
    try:
        await client.initialize_session(
            types.InitializeParams(capabilities=capabilities(**kwargs), root_uri=root.as_uri())
        )
        yield client
        await asyncio.wait_for(client.shutdown_session(), 20)
    finally:
        process = client._server
        if process is not None and process.returncode is None:
            process.kill()  # a failed test leaves it running: stop() would wait for it
        await asyncio.wait_for(client.stop(), 20)


async def until(condition: Callable[[], object], timeout: float = 20.0) -> None:
    """Wait for `condition()` to hold (the server answers in notifications)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not condition():
        if loop.time() > deadline:
            raise AssertionError("the server did not say so in time")
        await asyncio.sleep(0.02)


def open_file(client: pytest_lsp.LanguageClient, path: Path, text: str | None = None, version: int = 1) -> str:
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            types.TextDocumentItem(
                uri=uri, language_id="python", version=version, text=path.read_text() if text is None else text
            )
        )
    )
    return uri


async def opened(client: pytest_lsp.LanguageClient, path: Path, text: str | None = None) -> list[types.Diagnostic]:
    uri = open_file(client, path, text)
    await until(lambda: uri in client.diagnostics)
    return list(client.diagnostics[uri])


async def changed(client: pytest_lsp.LanguageClient, uri: str, text: str, version: int) -> list[types.Diagnostic]:
    client.diagnostics.pop(uri, None)
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=uri, version=version),
            [types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    await until(lambda: uri in client.diagnostics)
    return list(client.diagnostics[uri])


def apply_edits(text: str, edits: Sequence[types.TextEdit]) -> str:
    """A WorkspaceEdit's edits applied as a client applies them (ASCII: units are characters)."""
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def offset(p: types.Position) -> int:
        return offsets[min(p.line, len(lines))] + p.character

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


# -- diagnostics -----------------------------------------------------------

ALLOWLISTED = (
    PREAMBLE
    + "\n\nclass TestOne(TestCase):\n    def test_a(self):\n        pass\n\n\n"
    + ("class TestTwo(TestCase):\n    def test_b(self):\n        pass\n")
)


def project(tmp_path: Path) -> Path:
    """A tree with what check judges: a base in another file, noqa,
    per-file-ignores, an allowlisted file over its budget, a file that does
    not parse."""
    return make_tree(
        tmp_path,
        {
            "pyproject.toml": SETTINGS + 'per-file-ignores = { "test/ignored/*" = ["HWC001"] }\n',
            "allowlist.txt": "test/test_clean.py 2\ntest/test_listed.py 1\n",
            "test/test_clean.py": PREAMBLE
            + "\n\nclass TestC(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n",
            "test/common.py": PREAMBLE
            + "\n\nclass Base(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n",
            "test/test_sub.py": PREAMBLE
            + "from common import Base\n\n\nclass TestSub(Base):\n    def test_x(self):\n        pass\n\n\n"
            + "class TestBare(TestCase):  # noqa: HWC001\n    def test_y(self):\n        pass\n",
            "test/test_plain.py": UNCLASSIFIED,
            "test/ignored/test_i.py": UNCLASSIFIED,
            "test/test_listed.py": ALLOWLISTED,
            "test/test_broken.py": "class TestX(TestCase:\n    pass\n",
        },
    )


@pytest.mark.asyncio
async def test_open_gives_what_check_reports(tmp_path: Path) -> None:
    root = project(tmp_path)
    files = ["test/test_sub.py", "test/test_plain.py", "test/ignored/test_i.py", "test/test_listed.py"]
    files += ["test/test_broken.py", "test/test_clean.py"]
    async with server(root) as client:
        for rel in files:
            await opened(client, root / rel)
        await until(lambda: (root / "allowlist.txt").as_uri() in client.diagnostics)
        published = dict(client.diagnostics)
    expected = check_json(root, *files)
    assert as_tuples(root, published) == expected
    codes = {HWC001, AllowlistBudget.code, AllowlistStale.code, ParseError.code}
    assert {code for _, _, _, code, _ in expected} == codes
    for rel in files:  # and file by file, as a one-file check
        mine = [d for d in as_tuples(root, published) if d[0] in (rel, "allowlist.txt")]
        theirs = check_json(root, rel)
        assert [d for d in mine if d[0] == rel] == [d for d in theirs if d[0] == rel]


@pytest.mark.asyncio
async def test_change_and_unsaved_syntax_error(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"pyproject.toml": SETTINGS, "test/test_a.py": UNCLASSIFIED})
    path = root / "test/test_a.py"
    async with server(root) as client:
        found = await opened(client, path)
        assert [(d.code, d.range.start.line) for d in found] == [(HWC001, 3)]
        fixed = UNCLASSIFIED.replace(
            "(TestCase):\n", "(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n\n"
        )
        assert await changed(client, path.as_uri(), fixed, 2) == []
        broken = fixed + "\ndef oops(:\n"
        found = await changed(client, path.as_uri(), broken, 3)
        path.write_text(broken)
        assert as_tuples(root, {path.as_uri(): found}) == check_json(root, "test/test_a.py")
        assert [(d.code, d.range.start.line + 1) for d in found] == [(ParseError.code, broken.count("\n"))]
        # Saved: the same again, from the saved text.
        client.diagnostics.pop(path.as_uri(), None)
        client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(path.as_uri())))
        await until(lambda: path.as_uri() in client.diagnostics)
        assert list(client.diagnostics[path.as_uri()]) == found


@pytest.mark.asyncio
async def test_pull_diagnostics(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"pyproject.toml": SETTINGS, "test/test_a.py": UNCLASSIFIED})
    path = root / "test/test_a.py"
    async with server(root, pull=True) as client:
        uri = open_file(client, path)
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri))
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        assert as_tuples(root, {uri: report.items}) == check_json(root, "test/test_a.py")
        assert uri not in client.diagnostics  # a client that pulls is not pushed to


@pytest.mark.asyncio
async def test_a_changed_base_class_rejudges_its_open_subclasses(tmp_path: Path) -> None:
    base = PREAMBLE + "\n\nclass Base(TestCase):\n    hw_classification = HardwareClassification.GENERIC\n"
    sub = PREAMBLE + "from common import Base\n\n\nclass TestSub(Base):\n    def test_x(self):\n        pass\n"
    root = make_tree(tmp_path, {"pyproject.toml": SETTINGS, "test/common.py": base, "test/test_sub.py": sub})
    async with server(root, watch=True) as client:
        uri = (root / "test/test_sub.py").as_uri()
        assert await opened(client, root / "test/test_sub.py") == []
        # On disk, then told: the base loses its classification.
        (root / "test/common.py").write_text(base.replace("    hw_classification", "    # hw_classification"))
        client.diagnostics.pop(uri, None)
        client.workspace_did_change_watched_files(
            types.DidChangeWatchedFilesParams(
                [types.FileEvent(uri=(root / "test/common.py").as_uri(), type=types.FileChangeType.Changed)]
            )
        )
        await until(lambda: uri in client.diagnostics)
        assert as_tuples(root, {uri: client.diagnostics[uri]}) == check_json(root, "test/test_sub.py")
        assert [d.code for d in client.diagnostics[uri]] == [HWC001]
        # Open in the editor, edited: the buffer is what the subclass resolves through.
        base_uri = open_file(client, root / "test/common.py")
        client.diagnostics.pop(uri, None)
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                types.VersionedTextDocumentIdentifier(uri=base_uri, version=2),
                [types.TextDocumentContentChangeWholeDocument(text=base)],
            )
        )
        # Opening the base may republish the subclass as the disk has it (HWC001)
        # after the pop above: what counts is what the edited buffer makes of it.
        await until(lambda: list(client.diagnostics.get(uri, [None])) == [])
        assert list(client.diagnostics[uri]) == []


# -- code actions and hover ------------------------------------------------


@pytest.mark.asyncio
async def test_quick_fix_clears_hwc001(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"pyproject.toml": SETTINGS, "test/test_a.py": UNCLASSIFIED})
    path = root / "test/test_a.py"
    async with server(root) as client:
        found = await opened(client, path)
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(path.as_uri()), found[0].range, types.CodeActionContext(diagnostics=found)
            )
        )
        assert actions is not None
        titles = [a.title for a in actions if isinstance(a, types.CodeAction)]
        assert titles == [
            "hwlint: classify TestAdd as GENERIC",
            f"hwlint: silence {HWC001} on this line (# noqa: {HWC001})",
        ]
        quick = actions[0]
        assert isinstance(quick, types.CodeAction) and quick.is_preferred and quick.edit and quick.edit.changes
        fixed = apply_edits(UNCLASSIFIED, quick.edit.changes[path.as_uri()])
        subprocess.run(
            [sys.executable, "-m", "hwlint", "fix", "test/test_a.py"], cwd=root, check=True, capture_output=True
        )
        assert fixed == path.read_text()  # what `hwlint fix` writes
        assert await changed(client, path.as_uri(), fixed, 2) == []
        # noqa on the line silences it too.
        noqa = actions[1]
        assert isinstance(noqa, types.CodeAction) and noqa.edit and noqa.edit.changes
        silenced = apply_edits(UNCLASSIFIED, noqa.edit.changes[path.as_uri()])
        assert "class TestAdd(TestCase):  # noqa: HWC001\n" in silenced
        assert await changed(client, path.as_uri(), silenced, 3) == []


@pytest.mark.asyncio
async def test_unsafe_migration_is_its_own_action(tmp_path: Path) -> None:
    source = (
        "import torch\n"
        + PREAMBLE
        + ("\n\nclass TestDev(TestCase):\n    def test_one(self, device):\n        torch.ones(2, device=device)\n")
    )
    root = make_tree(tmp_path, {"pyproject.toml": SETTINGS, "test/test_d.py": source})
    path = root / "test/test_d.py"
    async with server(root) as client:
        found = await opened(client, path)
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(path.as_uri()), found[0].range, types.CodeActionContext(diagnostics=found)
            )
        )
        assert actions is not None
        unsafe = [a for a in actions if isinstance(a, types.CodeAction) and a.kind == "quickfix.hwlint.unsafe"]
        assert [a.title for a in unsafe] == [
            "hwlint (unsafe): TestDev: tests take `device` -> instantiate_device_type_tests (ACCELERATOR)"
        ] or [a.title.split(": ")[1] for a in unsafe] == ["TestDev"]
        edit = unsafe[0].edit
        assert edit is not None and edit.changes
        migrated = apply_edits(source, edit.changes[path.as_uri()])
        subprocess.run(
            [sys.executable, "-m", "hwlint", "fix", "--unsafe", "test/test_d.py"],
            cwd=root,
            check=True,
            capture_output=True,
        )
        assert migrated == path.read_text()
        assert await changed(client, path.as_uri(), migrated, 2) == []


@pytest.mark.asyncio
async def test_hover_explains_the_rule(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"pyproject.toml": SETTINGS, "test/test_a.py": UNCLASSIFIED})
    path = root / "test/test_a.py"
    async with server(root) as client:
        found = await opened(client, path)
        hover = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(path.as_uri()), found[0].range.start)
        )
        nothing = await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(path.as_uri()), types.Position(0, 0))
        )
    rule = subprocess.run(
        [sys.executable, "-m", "hwlint", "rule", HWC001], capture_output=True, text=True, check=True
    ).stdout
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value == rule.rstrip("\n") + "\n"
    assert nothing is None


# -- settings, and input that must not kill it -------------------------------


@pytest.mark.asyncio
async def test_broken_settings_keep_the_last_good_ones(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"pyproject.toml": SETTINGS + 'ignore = ["HWC001"]\n', "test/test_a.py": UNCLASSIFIED})
    path = root / "test/test_a.py"
    async with server(root, watch=True) as client:
        assert await opened(client, path) == []
        for broken, name in (("[tool.hwlint\n", "pyproject.toml"), (b"\xff\xfe\n", "allowlist.txt")):
            target = root / name
            if isinstance(broken, bytes):
                target.write_bytes(broken)
            else:
                target.write_text(broken)
            shown = len(client.messages)
            for _ in range(2):  # told once, however often it changes
                client.workspace_did_change_watched_files(
                    types.DidChangeWatchedFilesParams(
                        [types.FileEvent(uri=target.as_uri(), type=types.FileChangeType.Changed)]
                    )
                )
            await until(lambda shown=shown: len(client.messages) > shown)  # type: ignore[misc]
            await asyncio.sleep(0.3)
            assert len(client.messages) == shown + 1
            assert name in client.messages[-1].message and client.messages[-1].type == types.MessageType.Warning
            # The last good settings stay: HWC001 still ignored.
            assert await changed(client, path.as_uri(), UNCLASSIFIED + "\n", 5) == []
            if name == "pyproject.toml":
                target.write_text(SETTINGS + 'ignore = ["HWC001"]\n')


@pytest.mark.asyncio
async def test_it_never_dies_on_input(tmp_path: Path) -> None:
    root = make_tree(tmp_path, {"pyproject.toml": SETTINGS, "test/test_a.py": UNCLASSIFIED})
    path = root / "test/test_a.py"
    async with server(root) as client:
        odd = "untitled:Untitled-1"
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=odd, language_id="python", version=1, text="\0\xff")
            )
        )
        await client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(odd), types.Position(99, 99))
        )
        await client.text_document_code_action_async(
            types.CodeActionParams(
                types.TextDocumentIdentifier(odd),
                types.Range(types.Position(5, 0), types.Position(9, 0)),
                types.CodeActionContext(diagnostics=[]),
            )
        )
        found = await opened(client, path, "class TestX(:\n\0\n")
        assert [d.code for d in found] == [ParseError.code]
        assert [d.code for d in await opened(client, path.with_name("test_b.py"), UNCLASSIFIED)] == [HWC001]


def test_the_command_says_when_the_extra_is_missing() -> None:
    script = "import sys; sys.modules['pygls'] = None; from hwlint.cli.main import main; main(['server'])"
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr == "hwlint server needs the server extra: pip install 'hwlint[server]'\n"
