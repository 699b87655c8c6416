"""The language server: pygls wiring of the workspace, the diagnostics and
the actions.

Diagnostics are pushed (`textDocument/publishDiagnostics`) on open, change
and save, unless the client pulls them (`textDocument/diagnostic`): then
it asks, and is told to ask again (`workspace/diagnostic/refresh`) when a
file its documents depend on changes. Files on disk are watched
(`workspace/didChangeWatchedFiles`, registered when the client can):
a changed module is read again and the open documents resolved through
it are judged again; a changed configuration or allowlist is read again,
and if it is broken the user is told once and the last good settings stay.

Every handler is guarded: an internal error becomes a log message
(`window/logMessage`), never a dead server.
"""

from __future__ import annotations

import functools
import traceback
from pathlib import Path
from typing import Any, Callable, TypeVar, cast

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from hwlint import __version__
from hwlint.core.diagnostics import Diagnostic
from hwlint.server.actions import UNSAFE_KIND, classes_of, fix_actions, hover_text, noqa_action
from hwlint.server.diagnostics import to_lsp
from hwlint.server.workspace import Project, Workspace, by_path

F = TypeVar("F", bound=Callable[..., Any])
SETTINGS_NAMES = ("pyproject.toml", "hwlint.toml")
WATCHED = ("**/*.py", "**/*.toml", "**/*.txt")


class HwlintServer(LanguageServer):
    """The server and what it knows of the open documents."""

    def __init__(self) -> None:
        super().__init__("hwlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.hw = Workspace(self.warn_once)
        self.shown: set[str] = set()  # settings messages already shown
        self.still: set[str] = set()  # those shown before the settings were read again
        # The last diagnostics of each open document, as sent.
        self.sent: dict[str, list[types.Diagnostic]] = {}
        # Findings a document's check put on another file (the allowlist,
        # the settings): per that file, per document.
        self.elsewhere: dict[str, dict[str, list[Diagnostic]]] = {}

    # -- messages ----------------------------------------------------------

    def warn_once(self, message: str) -> None:
        if message in self.shown:
            return
        self.shown.add(message)
        if message in self.still:
            return  # shown before the settings were read again, and still so
        self.window_show_message(types.ShowMessageParams(type=types.MessageType.Warning, message=f"hwlint: {message}"))

    def log(self, message: str, kind: types.MessageType = types.MessageType.Log) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=message))

    # -- the client --------------------------------------------------------

    @property
    def pulls(self) -> bool:
        """Whether the client asks for diagnostics itself."""
        capabilities = self.client_capabilities.text_document
        return capabilities is not None and capabilities.diagnostic is not None

    def _can_refresh(self) -> bool:
        workspace = self.client_capabilities.workspace
        return bool(workspace and workspace.diagnostics and workspace.diagnostics.refresh_support)

    # -- diagnostics ---------------------------------------------------------

    def project_for(self, uri: str) -> tuple[Project, str] | None:
        path = to_fs_path(uri)
        if path is None:
            return None
        project = self.hw.project_of(Path(path))
        if project is None:
            return None
        rel = project.relative(Path(path))
        return None if rel is None else (project, rel)

    def diagnose(self, uri: str) -> list[types.Diagnostic]:
        """Check one open document; its diagnostics (kept for actions and hover)."""
        document = self.workspace.get_text_document(uri)
        found = self.project_for(uri)
        if found is None:
            self.sent[uri] = []
            return []
        project, rel = found
        diagnostics = project.check(rel, document.source)
        grouped = by_path(diagnostics)
        codec = self.workspace.position_codec
        own = [to_lsp(d, document.lines, codec) for d in grouped.pop(rel, [])]
        self.sent[uri] = own
        self._elsewhere(project, uri, grouped)
        return own

    def publish(self, uri: str) -> None:
        """Check a document and push its diagnostics (or, to a client that
        pulls, the news that they changed)."""
        if self.pulls:
            self.diagnose(uri)
            return
        own = self.diagnose(uri)
        version = self.workspace.get_text_document(uri).version
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=own, version=version)
        )

    def _elsewhere(self, project: Project, uri: str, grouped: dict[str, list[Diagnostic]]) -> None:
        """Findings on the allowlist or the settings: each such file shows
        what all open documents' checks put on it."""
        touched = set(grouped)
        for other, per_document in self.elsewhere.items():
            if uri in per_document:
                touched.add(other)
        for rel in sorted(touched):
            target = from_fs_path(str(project.root / rel)) or rel
            per_document = self.elsewhere.setdefault(target, {})
            if rel in grouped:
                per_document[uri] = grouped[rel]
            else:
                per_document.pop(uri, None)
            self._publish_elsewhere(project, target, rel)

    def _publish_elsewhere(self, project: Project, target: str, rel: str) -> None:
        merged = sorted({d for found in self.elsewhere.get(target, {}).values() for d in found})
        document = self.workspace.get_text_document(target)
        try:
            lines = document.lines
        except OSError:
            lines = []
        codec = self.workspace.position_codec
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=target, diagnostics=[to_lsp(d, lines, codec) for d in merged])
        )

    def rejudge(self, uris: list[str]) -> None:
        for uri in uris:
            if uri in self.sent:
                self.publish(uri)
        if uris and self.pulls and self._can_refresh():
            self.workspace_diagnostic_refresh(None)

    def dependents(self, uri: str) -> list[str]:
        """The open documents whose classes resolve through `uri`'s."""
        found = self.project_for(uri)
        if found is None:
            return []
        project, rel = found
        return [from_fs_path(str(project.root / dep)) or dep for dep in project.dependents(rel)]

    def settings_changed(self) -> None:
        self.still, self.shown = self.shown, set()
        try:
            self.hw.reload_settings()
        finally:
            if self.still and not self.shown:
                self.log("hwlint: the settings read without error again")
            self.still = set()
        self.rejudge(sorted(self.sent))


def guarded(default: Callable[[], object]) -> Callable[[F], F]:
    """A handler that logs an internal error and answers `default()`."""

    def wrap(handler: F) -> F:
        @functools.wraps(handler)
        def run(server: HwlintServer, *args: Any) -> Any:
            try:
                return handler(server, *args)
            except Exception:  # the server outlives any input
                server.log(
                    f"hwlint: internal error in {handler.__name__}:\n{traceback.format_exc()}", types.MessageType.Error
                )
                return default()

        return cast(F, run)  # functools.wraps keeps the signature pygls reads

    return wrap


@guarded(lambda: None)
def initialized(ls: HwlintServer, params: types.InitializedParams) -> None:
    watched = ls.client_capabilities.workspace
    changes = watched.did_change_watched_files if watched is not None else None
    if changes is not None and changes.dynamic_registration:
        options = types.DidChangeWatchedFilesRegistrationOptions(
            watchers=[types.FileSystemWatcher(glob_pattern=pattern) for pattern in WATCHED]
        )
        ls.client_register_capability(
            types.RegistrationParams(
                registrations=[
                    types.Registration(
                        id="hwlint-watched-files",
                        method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                        register_options=options,
                    )
                ]
            )
        )


@guarded(lambda: None)
def did_open(ls: HwlintServer, params: types.DidOpenTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.publish(uri)
    ls.rejudge(ls.dependents(uri))


@guarded(lambda: None)
def did_change(ls: HwlintServer, params: types.DidChangeTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.publish(uri)
    ls.rejudge(ls.dependents(uri))


@guarded(lambda: None)
def did_save(ls: HwlintServer, params: types.DidSaveTextDocumentParams) -> None:
    uri = params.text_document.uri
    path = to_fs_path(uri)
    if path is not None and (path in ls.hw.settings_files() or Path(path).name in SETTINGS_NAMES):
        ls.settings_changed()
    elif uri in ls.sent:
        ls.publish(uri)


@guarded(lambda: None)
def did_close(ls: HwlintServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    dependents = ls.dependents(uri)
    ls.sent.pop(uri, None)
    path = to_fs_path(uri)
    if path is not None:
        ls.hw.closed(Path(path))
    if not ls.pulls:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))
    ls.rejudge(dependents)  # they resolve through the file on disk again


@guarded(lambda: None)
def did_change_watched(ls: HwlintServer, params: types.DidChangeWatchedFilesParams) -> None:
    settings = ls.hw.settings_files()
    reload = False
    affected: set[str] = set()
    for change in params.changes:
        path = to_fs_path(change.uri)
        if path is None:
            continue
        if path in settings or Path(path).name in SETTINGS_NAMES:
            reload = True
            continue
        if not path.endswith(".py"):
            continue
        for project in ls.hw.projects.values():
            rel = project.relative(Path(path))
            if rel is None:
                continue
            project.forget(rel)
            if change.type == types.FileChangeType.Changed:
                docs = project.dependents(rel)
            else:  # a file that comes or goes may change what any import finds
                docs = [d for d in project.needs]
            affected.update(from_fs_path(str(project.root / d)) or d for d in docs)
    if reload:
        ls.settings_changed()
    else:
        ls.rejudge(sorted(affected))


@guarded(lambda: types.RelatedFullDocumentDiagnosticReport(items=[]))
def pull(ls: HwlintServer, params: types.DocumentDiagnosticParams) -> types.RelatedFullDocumentDiagnosticReport:
    return types.RelatedFullDocumentDiagnosticReport(items=ls.diagnose(params.text_document.uri))


@guarded(lambda: [])
def code_action(ls: HwlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    document = ls.workspace.get_text_document(uri)
    if uri not in ls.sent:
        ls.diagnose(uri)
    first, last = params.range.start.line, params.range.end.line
    mine = [d for d in ls.sent.get(uri, []) if first <= d.range.start.line <= last]
    codec = ls.workspace.position_codec
    actions: list[types.CodeAction] = []
    found = ls.project_for(uri)
    if found is not None and mine:
        project, rel = found
        actions += fix_actions(project, rel, uri, document.source, classes_of(mine), mine, codec)
    for d in mine:
        action = noqa_action(uri, document.lines, d, codec)
        if action is not None:
            actions.append(action)
    wanted = params.context.only
    if wanted:
        actions = [a for a in actions if a.kind is not None and any(a.kind.startswith(k) for k in wanted)]
    return actions


@guarded(lambda: None)
def hover(ls: HwlintServer, params: types.HoverParams) -> types.Hover | None:
    uri = params.text_document.uri
    if uri not in ls.sent:
        ls.diagnose(uri)
    at = params.position
    codes = [
        d.code
        for d in ls.sent.get(uri, [])
        if isinstance(d.code, str) and d.range.start.line <= at.line <= d.range.end.line
    ]
    text = hover_text(codes)
    if text is None:
        return None
    return types.Hover(contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text))


def create_server() -> HwlintServer:
    """The server with its handlers registered."""
    server = HwlintServer()
    server.feature(types.INITIALIZED)(initialized)
    server.feature(types.TEXT_DOCUMENT_DID_OPEN)(did_open)
    server.feature(types.TEXT_DOCUMENT_DID_CHANGE)(did_change)
    server.feature(types.TEXT_DOCUMENT_DID_SAVE)(did_save)
    server.feature(types.TEXT_DOCUMENT_DID_CLOSE)(did_close)
    server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)(did_change_watched)
    server.feature(
        types.TEXT_DOCUMENT_DIAGNOSTIC,
        types.DiagnosticOptions(identifier="hwlint", inter_file_dependencies=True, workspace_diagnostics=False),
    )(pull)
    server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(code_action_kinds=[types.CodeActionKind.QuickFix, UNSAFE_KIND]),
    )(code_action)
    server.feature(types.TEXT_DOCUMENT_HOVER)(hover)
    return server


def serve() -> None:
    """Run the server on stdin and stdout until the client says exit."""
    create_server().start_io()
