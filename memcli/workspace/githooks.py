"""git for memcli: the pre-commit hook on disk, and the content staged for a commit.
The only module that runs git or touches the hooks folder.

It asks git for the repository a workspace is in and the hooks folder git uses for it
(`git rev-parse --git-path hooks`: core.hooksPath and linked worktrees are honoured),
reads the hook that is there, writes memcli's hook atomically (`replace_file`), keeps a
foreign hook under a free backup name and puts it back on uninstall. What the hook says
and what a backup is called are pure rules in memcli/core/automation.py; what to do and
what to print is decided in memcli/cli/hook.py.

For `memcli check --staged` (what the hook runs) it lists the memory files the next
commit adds or changes (`git diff --cached --raw -z`) and reads the blobs staged for
them from the index (`git cat-file --batch`), whatever the working tree holds: a file
staged and then deleted or edited on disk is checked as it will be committed. git runs
with the environment it was given, so a hook sees the index git prepared for the commit
(GIT_INDEX_FILE, as with `git commit -a` or `git commit PATH`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
from collections.abc import Mapping, Sequence
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


def _git(
    where: Path, *args: str, stdin: bytes | None = None, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(
            ["git", *args], cwd=where, input=stdin, capture_output=True, check=False, env=env
        )
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


# --- the content staged for the next commit ----------------------------------------------

# File modes in the index: a regular file (executable or not), a symbolic link, a submodule.
REGULAR_MODES = ("100644", "100755")
SYMLINK_MODE = "120000"
# Pathspec settings from the environment that would turn off the `:(glob)` magic
PATHSPEC_VARIABLES = (
    "GIT_LITERAL_PATHSPECS",
    "GIT_GLOB_PATHSPECS",
    "GIT_NOGLOB_PATHSPECS",
    "GIT_ICASE_PATHSPECS",
)


@dataclass(frozen=True, slots=True)
class StagedEntry:
    """A file the next commit adds, copies, modifies, renames (as its new path) or turns into
    another type, as the index holds it."""

    path: str  # relative to the repository's top folder, "/"-separated, as git names it
    mode: str  # the index's mode: 100644, 100755 (files), 120000 (a link), 160000 (a submodule)
    blob: str  # the object name of the staged content

    @property
    def is_file(self) -> bool:
        return self.mode in REGULAR_MODES


def repository_top(where: Path) -> Path:
    """The top folder of the work tree `where` is in (the folder git runs a hook from)."""
    top = _git(where, "rev-parse", "--show-toplevel")
    lines = os.fsdecode(top.stdout).splitlines()
    if top.returncode != 0 or len(lines) != 1:
        raise UsageError(
            f"{where} is not inside a git work tree (git: {_first_line(top.stderr)})",
            "run `memcli check --staged` in a git repository (it checks what the next commit holds), "
            "or name the files to check: `memcli check FILES`",
        )
    return Path(lines[0])


def staged_entries(top: Path, pathspecs: Sequence[str]) -> list[StagedEntry]:
    """The files matching `pathspecs` that the next commit adds or changes, in git's order.

    Deleted files are left out (nothing of theirs is committed); a renamed file is its new
    path (renames are not detected, so it is simply added), with its content."""
    env = {k: v for k, v in os.environ.items() if k not in PATHSPEC_VARIABLES}
    diff = _git(
        top,
        "diff", "--cached", "--raw", "-z", "--no-abbrev", "--no-renames", "--no-color",
        "--diff-filter=ACMRT", "--", *pathspecs,
        env=env,
    )  # fmt: skip
    if diff.returncode != 0:
        raise DataError(
            f"git cannot list the staged files of {top} (git: {_first_line(diff.stderr)})",
            "check the repository with `git status`",
        )
    return _parse_raw_diff(diff.stdout)


def _parse_raw_diff(out: bytes) -> list[StagedEntry]:
    """`git diff --raw -z`: `:oldmode newmode oldblob newblob status` NUL `path` NUL, repeated."""
    fields = out.split(b"\0")
    entries: list[StagedEntry] = []
    i = 0
    while i + 1 < len(fields) and fields[i].startswith(b":"):
        meta = fields[i][1:].split()
        path = os.fsdecode(fields[i + 1])
        entries.append(StagedEntry(path, meta[1].decode("ascii"), meta[3].decode("ascii")))
        i += 2
    return entries


def staged_sizes(top: Path, blobs: Sequence[str]) -> dict[str, int]:
    """The size in bytes of each staged blob (`git cat-file --batch-check`): nothing is read."""
    if not blobs:
        return {}
    out = _cat_file(top, "--batch-check", blobs)
    sizes: dict[str, int] = {}
    for line in out.splitlines():
        name, size = _object_header(top, line)
        sizes[name] = size
    return sizes


def staged_contents(top: Path, blobs: Sequence[str]) -> dict[str, bytes]:
    """The bytes of each staged blob, from one `git cat-file --batch`."""
    if not blobs:
        return {}
    out = _cat_file(top, "--batch", blobs)
    contents: dict[str, bytes] = {}
    at = 0
    while at < len(out):
        header_end = out.index(b"\n", at)
        name, size = _object_header(top, out[at:header_end])
        start = header_end + 1
        contents[name] = out[start : start + size]
        at = start + size + 1  # the content is followed by a newline
    return contents


def _cat_file(top: Path, mode: str, blobs: Sequence[str]) -> bytes:
    unique = list(dict.fromkeys(blobs))
    done = _git(top, "cat-file", mode, stdin="".join(f"{b}\n" for b in unique).encode("ascii"))
    if done.returncode != 0:
        raise _unreadable(top, _first_line(done.stderr))
    return done.stdout


def _object_header(top: Path, line: bytes) -> tuple[str, int]:
    """`<name> <type> <size>` of `git cat-file --batch[-check]`; `<name> missing` is an error."""
    words = line.decode("ascii", "replace").split()
    if len(words) != 3 or not words[2].isdigit():
        raise _unreadable(top, line.decode("ascii", "replace"))
    return words[0], int(words[2])


def _unreadable(top: Path, why: str) -> DataError:
    return DataError(
        f"git cannot read the staged content in {top} ({why})",
        "check the repository with `git status` and `git fsck`",
    )
