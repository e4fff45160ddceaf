"""`memcli hook install|uninstall|status`: a git pre-commit hook that runs `memcli check`.

The hooks folder is the one git uses (`git rev-parse --git-path hooks`: core.hooksPath and
linked worktrees are honoured), found from the workspace, which must be inside a git
repository. A hook that is not memcli's is never replaced without --force, and then it is
kept as pre-commit.memcli-backup (a free name: an older backup is never overwritten).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from memcli.cli.common import options, output
from memcli.core.automation import HOOK_NAME, HookInfo, backup_name, hook_script, read_hook
from memcli.errors import ConflictError, DataError, UsageError
from memcli.workspace.files import fsync_dir, replace_file
from memcli.workspace.layout import discover

MAX_HOOK_BYTES = 1 << 20

hook_app = typer.Typer(
    name="hook",
    help="Install, remove or inspect the git pre-commit hook that runs `memcli check`.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


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


def _workspace(ctx: typer.Context) -> Path:
    opts = options(ctx)
    return discover(opts.workspace, os.environ, Path.cwd(), Path.home())


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


def read_existing(path: Path) -> Existing:
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


def write_hook(path: Path, text: str) -> None:
    """Temp file in the hooks folder, mode 0755, fsync, rename over the hook, folder fsync."""
    replace_file(path, text.encode("utf-8"), 0o755)


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


def _python() -> str:
    if not sys.executable:
        raise UsageError("cannot tell which Python runs memcli", "run memcli as `python -m memcli`")
    return os.path.abspath(sys.executable)


@hook_app.command("install")
def install(
    ctx: typer.Context,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="Replace a pre-commit hook that is not memcli's; it is kept as "
            "pre-commit.memcli-backup (never overwriting an older backup) and `memcli hook "
            "uninstall` puts it back.",
        ),
    ] = False,
) -> None:
    """Install a git pre-commit hook that runs `memcli check` on the staged memory files.

    The workspace must be inside a git repository; the hook goes where git looks for hooks
    (core.hooksPath is honoured). It checks MEMORY.md and memory.md anywhere,
    memory/**/*.md, sessions.json and memcli.toml when a commit adds or changes them, with
    the memcli that installed it, and stops the commit when check finds problems. Installing
    again updates memcli's own hook. Skip it once with `git commit --no-verify`.
    """
    out = output(ctx)
    repo = find_repo(_workspace(ctx))
    existing = read_existing(repo.hook)
    backup: Path | None = None
    if existing.kind == "other":
        if not force:
            raise ConflictError(
                f"{repo.hook} is a pre-commit hook that is not memcli's; it was left alone",
                "rerun with --force to replace it (it is kept as pre-commit.memcli-backup and "
                "`memcli hook uninstall` puts it back), or call `memcli check` from it yourself",
            )
    elif existing.kind == "memcli" and existing.info.backup is not None:
        kept = repo.hooks / existing.info.backup
        backup = kept if os.path.lexists(kept) else None
    python = _python()
    repo.hooks.mkdir(parents=True, exist_ok=True)
    new_backup = keep_backup(repo.hook) if existing.kind == "other" else None
    if new_backup is not None:
        backup = new_backup
    text = hook_script(python, backup.name if backup is not None else None)
    if existing.kind == "memcli" and existing.text == text:
        action = "unchanged"
        if stat.S_IMODE(os.stat(repo.hook).st_mode) != 0o755:
            os.chmod(repo.hook, 0o755)
    else:
        try:
            write_hook(repo.hook, text)
        except BaseException:
            if new_backup is not None:
                with contextlib.suppress(OSError):
                    os.unlink(new_backup)
            raise
        action = {"none": "installed", "memcli": "updated", "other": "replaced"}[existing.kind]
    if out.json_mode:
        out.json(
            {
                "action": action,
                "hook": str(repo.hook),
                "repository": str(repo.top),
                "workspace": str(repo.workspace),
                "python": python,
                "backup": str(backup) if backup is not None else None,
            }
        )
        return
    verbs = {
        "installed": "installed",
        "updated": "updated",
        "unchanged": "kept (already up to date)",
        "replaced": "installed",
    }
    out.line(f"{verbs[action]} the memcli pre-commit hook: {repo.hook}")
    if new_backup is not None:
        out.line(f"the previous hook was kept as {new_backup}; it no longer runs")
        out.line("(`memcli hook uninstall` puts it back)")
    out.note(
        f"commits in {repo.top} that add or change memory files now run `memcli check` on them "
        f"(with {python}); `git commit --no-verify` skips it once"
    )


@hook_app.command("uninstall")
def uninstall(ctx: typer.Context) -> None:
    """Remove memcli's pre-commit hook (a hook that is not memcli's is left alone).

    The hook that --force replaced, kept as pre-commit.memcli-backup, is put back.
    """
    out = output(ctx)
    repo = find_repo(_workspace(ctx))
    existing = read_existing(repo.hook)
    restored: Path | None = None
    if existing.kind == "other":
        raise ConflictError(
            f"{repo.hook} is not memcli's pre-commit hook; it was left alone",
            "remove it yourself if you must",
        )
    if existing.kind == "memcli":
        backup = repo.hooks / existing.info.backup if existing.info.backup else None
        if backup is not None and os.path.lexists(backup):
            os.replace(backup, repo.hook)
            restored = backup
        else:
            os.unlink(repo.hook)
        fsync_dir(repo.hooks)
    removed = existing.kind == "memcli"
    if out.json_mode:
        out.json(
            {"removed": removed, "hook": str(repo.hook), "restored": str(restored) if restored else None}
        )
        return
    if not removed:
        out.note(f"no pre-commit hook at {repo.hook}; nothing to do")
        return
    out.line(f"removed the memcli pre-commit hook: {repo.hook}")
    if restored is not None:
        out.line(f"put back the previous hook from {restored}")


@hook_app.command("status")
def status(ctx: typer.Context) -> None:
    """Whether memcli's pre-commit hook is installed, with which Python, and up to date."""
    out = output(ctx)
    repo = find_repo(_workspace(ctx))
    existing = read_existing(repo.hook)
    python = existing.info.python
    current = None
    if existing.kind == "memcli":
        backup = existing.info.backup
        kept = backup if backup and os.path.lexists(repo.hooks / backup) else None
        current = existing.text == hook_script(_python(), kept)
    data: dict[str, Any] = {
        "hook": str(repo.hook),
        "installed": existing.kind,
        "python": python,
        "python_found": bool(python) and os.access(python or "", os.X_OK),
        "current": current,
        "backup": str(repo.hooks / existing.info.backup) if existing.info.backup else None,
    }
    if out.json_mode:
        out.json(data)
        return
    if existing.kind == "none":
        out.line(f"not installed: no pre-commit hook at {repo.hook}")
        out.note("install it with `memcli hook install`")
        return
    if existing.kind == "other":
        out.line(f"another pre-commit hook is installed at {repo.hook} (not memcli's)")
        out.note("`memcli hook install --force` replaces it and keeps it as a backup")
        return
    out.line(f"installed: {repo.hook}")
    out.line(f"python:    {python}" + ("" if data["python_found"] else "  (missing!)"))
    if data["backup"]:
        out.line(f"backup:    {data['backup']}")
    if not current:
        out.note("the hook differs from what this memcli would write; `memcli hook install` updates it")
