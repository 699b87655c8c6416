"""The few git questions hwlint asks, through the `git` executable. Every
git process hwlint starts is started here."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path
from typing import Any, Sequence

from hwlint.core.diagnostics import UserError


class GitError(UserError):
    """git is missing, the folder is not a repository, or a command failed."""


class NotARepository(GitError):
    """The folder is not in a git repository (`reason` None), or git cannot
    read the repository it is in (`reason`: git's words, e.g. dubious
    ownership)."""

    def __init__(self, root: Path, reason: str | None) -> None:
        self.root = root
        self.reason = reason
        super().__init__(
            f"{root} is not in a git repository"
            if reason is None
            else f"git cannot read the repository at {root}: {reason}"
        )


def _git(root: Path, args: Sequence[str], needed_by: str, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
    """`git -C root args...`, its output captured; `needed_by` names what
    needs git when it is missing."""
    try:
        return subprocess.run(["git", "-C", str(root), *args], capture_output=True, **kwargs)
    except FileNotFoundError:
        raise GitError(f"git is not installed (or not on PATH): {needed_by} needs it") from None


def _failed(command: str, proc: subprocess.CompletedProcess[Any]) -> GitError:
    stderr = proc.stderr.decode("utf-8", "replace") if isinstance(proc.stderr, bytes) else proc.stderr
    message = stderr.strip().splitlines()[-1] if stderr.strip() else f"exit {proc.returncode}"
    return GitError(f"git {command}: {message}")


def run_git(root: Path, *args: str, check: bool = True) -> str:
    """Run `git -C root args...` and return its stdout (text)."""
    proc = _git(root, args, "this command", text=True, encoding="utf-8", errors="replace")
    if check and proc.returncode != 0:
        raise _failed(" ".join(args), proc)
    stdout: str = proc.stdout
    return stdout


def show_file(root: Path, ref: str, path: str) -> str | None:
    """The text of `path` (root-relative) at `ref`, or None when it did not exist there."""
    proc = _git(root, ("show", f"{ref}:./{path}"), "this command")
    if proc.returncode != 0:
        return None
    data: bytes = proc.stdout
    return data.decode("utf-8", errors="replace")


def check_repository(root: Path, needed_by: str = "this command") -> None:
    """Raise NotARepository unless `root` is in a git repository git can read."""
    # English messages, to tell the cases apart.
    proc = _git(
        root, ("rev-parse", "--git-dir"), needed_by, text=True, errors="replace", env={**os.environ, "LC_ALL": "C"}
    )
    if proc.returncode != 0:
        lines = proc.stderr.strip().splitlines()
        if not lines or "not a git repository" in proc.stderr:
            raise NotARepository(root, None)
        raise NotARepository(root, lines[-1])


def read_blobs(root: Path, specs: Sequence[str], needed_by: str = "this command") -> list[bytes | None]:
    """The contents of `rev:path` for each spec, in order, through one
    `git cat-file --batch` (None where the path does not exist at that rev):
    one process however many versions, where a `git show` each would cost
    a process start each."""
    if not specs:
        return []
    # --buffer: one write per buffer-full, not per object.
    proc = _git(
        root,
        ("cat-file", "--batch", "--buffer"),
        needed_by,
        input="".join(spec + "\n" for spec in specs).encode("utf-8"),
    )
    if proc.returncode != 0:
        raise _failed("cat-file --batch", proc)
    out: bytes = proc.stdout
    blobs: list[bytes | None] = []
    pos = 0
    for _ in specs:
        end = out.index(b"\n", pos)
        header = out[pos:end].split()
        pos = end + 1
        # "<oid> blob <size>" then the content and a newline; otherwise
        # "<spec> missing" (or "ambiguous"), with no content.
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            blobs.append(out[pos : pos + size])
            pos += size + 1
        elif len(header) == 3 and header[2].isdigit():  # a tree or other object: skip its body
            blobs.append(None)
            pos += int(header[2]) + 1
        else:
            blobs.append(None)
    return blobs


def tracks_under(root: Path, prefix: str) -> bool:
    """Whether git's index at `root` has a file under `prefix` (root-relative,
    ending in `/`): `git ls-files`. False when git cannot tell (missing,
    not a repository, or not answering within 30 seconds)."""
    try:
        proc = _git(root, ("ls-files", "-z", "--", prefix), "this command", timeout=30)
    except (GitError, OSError, subprocess.SubprocessError):
        return False
    return proc.returncode == 0 and bool(proc.stdout)


def line_commit(root: Path, path: str, line: int) -> str | None:
    """The commit that last changed line `line` of `path` (root-relative, as
    the working tree has it): `git blame`. None when the line is not
    committed yet, or outside a repository, or without git."""
    try:
        out = run_git(root, "blame", "--porcelain", "-L", f"{line},{line}", "--", path, check=False)
    except GitError:
        return None
    commit = out.split(" ", 1)[0]
    if len(commit) < 40 or not commit.strip("0"):  # all zeros: not committed
        return None
    return commit


def file_at_line_commit(root: Path, listed_in: str, line: int, path: str) -> str | None:
    """The text of `path` as of the commit that last changed line `line` of
    `listed_in` (an allowlist entry: the file as it was when its budget was
    set); None when git cannot say (not committed, no repository, no git,
    the file not there then)."""
    commit = line_commit(root, listed_in, line)
    if commit is None:
        return None
    try:
        return show_file(root, commit, path)
    except GitError:
        return None
