"""The git pre-commit hook on disk: the only part of `memcli hook` that runs git or
touches the hooks folder.

It asks git for the repository a workspace is in and the hooks folder git uses for it
(`git rev-parse --git-path hooks`: core.hooksPath and linked worktrees are honoured),
reads the hook that is there, writes memcli's hook atomically (`replace_file`), keeps a
foreign hook under a free backup name and puts it back on uninstall. What the hook says
and what a backup is called are pure rules in memcli/core/automation.py; what to do and
what to print is decided in memcli/cli/hook.py.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path

from memcli.core.automation import HOOK_NAME, HookInfo, backup_name, read_hook
from memcli.errors import DataError, UsageError
from memcli.workspace.files import create_folders, fsync_dir, replace_file

MAX_HOOK_BYTES = 1 << 20


@dataclass(frozen=True, slots=True)
class Repo:
    workspace: Path
    top: Path
    hooks: Path

    @property
    def hook(self) -> Path:
        return self.hooks / HOOK_NAME


@dataclass(frozen=True, slots=True)
class Existing:
    kind: str  # "none", "memcli", "other"
    info: HookInfo
    text: str | None


# --- the repository -------------------------------------------------------------------


def _git(where: Path, *args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], cwd=where, capture_output=True, check=False)
    except FileNotFoundError:
        raise UsageError(
            "git is not installed (or not on PATH)", "install git, then run `memcli hook install` again"
        ) from None


def _first_line(data: bytes) -> str:
    text = os.fsdecode(data).strip()
    return text.splitlines()[0] if text else "no message"


def find_repo(workspace: Path) -> Repo:
    """The repository the workspace is in and the hooks folder git uses for it."""
    inside = _git(workspace, "rev-parse", "--is-inside-work-tree")
    if inside.returncode != 0:
        raise UsageError(
            f"the workspace {workspace} is not inside a git repository (git: {_first_line(inside.stderr)})",
            "run `git init` in the workspace or a folder above it, then `memcli hook install` again "
            "(or pass -w PATH of a workspace that is in one)",
        )
    if inside.stdout.strip() != b"true":
        raise UsageError(
            f"the workspace {workspace} is inside a git folder or a bare repository, not a work tree",
            "run `memcli hook install` for a workspace in a checked-out repository",
        )
    paths = _git(workspace, "rev-parse", "--show-toplevel", "--git-path", "hooks")
    lines = os.fsdecode(paths.stdout).splitlines()
    if paths.returncode != 0 or len(lines) != 2:
        raise UsageError(
            f"git cannot name the hooks folder of {workspace} (git: {_first_line(paths.stderr)})",
            "check the repository with `git status`",
        )
    top, hooks = lines
    return Repo(workspace, Path(top), Path(os.path.abspath(workspace / hooks)))


def make_hooks_folder(repo: Repo) -> None:
    """The hooks folder created when git names one that does not exist yet."""
    create_folders(repo.hooks)


# --- reading the hook -----------------------------------------------------------------


def read_existing(path: Path) -> Existing:
    """The hook at `path`: none, memcli's (with its text and records) or another one.

    A symlink (a shared hook, never rewritten through) and an oversized file are another
    hook without being read; anything that is not a file is refused."""
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return Existing("none", HookInfo(False, None, None), None)
    if stat.S_ISLNK(st.st_mode):  # a link to a shared hook: never rewritten through
        return Existing("other", HookInfo(False, None, None), None)
    if not stat.S_ISREG(st.st_mode):
        raise DataError(f"{path} is not a file", "move it away, then run `memcli hook install` again")
    if st.st_size > MAX_HOOK_BYTES:
        return Existing("other", HookInfo(False, None, None), None)
    text = path.read_bytes().decode("utf-8", "replace")
    info = read_hook(text)
    return Existing("memcli" if info.ours else "other", info, text)


def kept_backup(repo: Repo, name: str | None) -> Path | None:
    """The backup a memcli hook records, when it is still in the hooks folder."""
    if not name:
        return None
    backup = repo.hooks / name
    return backup if os.path.lexists(backup) else None


def is_runnable(python: str | None) -> bool:
    """Whether the interpreter a hook records is there and may be run."""
    return bool(python) and os.access(python or "", os.X_OK)


# --- writing the hook -----------------------------------------------------------------


def write_hook(path: Path, text: str) -> None:
    """Temp file in the hooks folder, mode 0755, fsync, rename over the hook, folder fsync."""
    replace_file(path, text.encode("utf-8"), 0o755)


def replace_hook(hook: Path, text: str, new_backup: Path | None) -> None:
    """`write_hook`; when it fails, the backup just kept for it is removed again (the old
    hook is still in place as the hook)."""
    try:
        write_hook(hook, text)
    except BaseException:
        if new_backup is not None:
            with contextlib.suppress(OSError):
                os.unlink(new_backup)
        raise


def reset_hook_mode(hook: Path) -> None:
    """An up-to-date hook made executable (0755) again if its mode was changed."""
    if stat.S_IMODE(os.stat(hook).st_mode) != 0o755:
        os.chmod(hook, 0o755)


def keep_backup(hook: Path) -> Path:
    """The foreign hook kept under a free backup name (a hard link, else a copy): it stays
    in place as the hook until the new one is renamed over it."""
    while True:
        taken = [p.name for p in hook.parent.iterdir()]
        backup = hook.with_name(backup_name(taken))
        try:
            os.link(hook, backup, follow_symlinks=False)
            return backup
        except FileExistsError:
            continue  # someone took the name meanwhile: pick the next
        except OSError:  # no hard links on this file system: an exclusive copy
            try:
                if hook.is_symlink():
                    os.symlink(os.readlink(hook), backup)
                else:
                    with open(backup, "xb") as f:
                        f.write(hook.read_bytes())
                    shutil.copystat(hook, backup)
            except FileExistsError:
                continue
            return backup


def remove_hook(repo: Repo, recorded_backup: str | None) -> Path | None:
    """memcli's hook removed, and the backup it records put back in its place when that is
    still there: the backup restored, or None."""
    backup = kept_backup(repo, recorded_backup)
    if backup is not None:
        os.replace(backup, repo.hook)
    else:
        os.unlink(repo.hook)
    fsync_dir(repo.hooks)
    return backup
