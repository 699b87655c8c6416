"""The few git questions hwlint asks, through the `git` executable."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hwlint.core.diagnostics import UserError


class GitError(UserError):
    """git is missing, the folder is not a repository, or a command failed."""


def run_git(root: Path, *args: str, check: bool = True) -> str:
    """Run `git -C root args...` and return its stdout (text)."""
    try:
        proc = subprocess.run(
            ["git", "-C", str(root), *args], capture_output=True, text=True, encoding="utf-8", errors="replace"
        )
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH): this command needs it") from None
    if check and proc.returncode != 0:
        message = proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}"
        raise GitError(f"git {' '.join(args)}: {message}")
    return proc.stdout


def show_file(root: Path, ref: str, path: str) -> str | None:
    """The text of `path` (root-relative) at `ref`, or None when it did not exist there."""
    try:
        proc = subprocess.run(["git", "-C", str(root), "show", f"{ref}:./{path}"], capture_output=True)
    except FileNotFoundError:
        raise GitError("git is not installed (or not on PATH): this command needs it") from None
    if proc.returncode != 0:
        return None
    return proc.stdout.decode("utf-8", errors="replace")


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
