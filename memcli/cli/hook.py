"""`memcli hook install|uninstall|status`: a git pre-commit hook that runs `memcli check --staged`
(what the commit holds: the index, not the working tree).

The hooks folder is the one git uses (`git rev-parse --git-path hooks`: core.hooksPath and
linked worktrees are honoured), found from the workspace, which must be inside a git
repository. A hook that is not memcli's is never replaced without --force, and then it is
kept as pre-commit.memcli-backup (a free name: an older backup is never overwritten).

This module parses the options, decides and prints; git and the hooks folder are reached
only through memcli/workspace/githooks.py, and the hook's text comes from
memcli/core/automation.py.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from memcli.cli.common import options, output
from memcli.cli.output import Output
from memcli.core.automation import hook_script
from memcli.errors import ConflictError, UsageError
from memcli.workspace.githooks import (
    Existing,
    Repo,
    find_repo,
    is_runnable,
    keep_backup,
    kept_backup,
    make_hooks_folder,
    read_existing,
    remove_hook,
    replace_hook,
    reset_hook_mode,
)
from memcli.workspace.layout import discover

hook_app = typer.Typer(
    name="hook",
    help="Install, remove or inspect the git pre-commit hook that runs `memcli check`.",
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)

INSTALLED = {"none": "installed", "memcli": "updated", "other": "replaced"}
INSTALL_VERBS = {
    "installed": "installed",
    "updated": "updated",
    "unchanged": "kept (already up to date)",
    "replaced": "installed",
}


def _workspace(ctx: typer.Context) -> Path:
    opts = options(ctx)
    return discover(opts.workspace, os.environ, Path.cwd(), Path.home())


def _python() -> str:
    if not sys.executable:
        raise UsageError("cannot tell which Python runs memcli", "run memcli as `python -m memcli`")
    return os.path.abspath(sys.executable)


def _refuse_foreign_hook(repo: Repo) -> NoReturn:
    raise ConflictError(
        f"{repo.hook} is a pre-commit hook that is not memcli's; it was left alone",
        "rerun with --force to replace it (it is kept as pre-commit.memcli-backup and "
        "`memcli hook uninstall` puts it back), or call `memcli check` from it yourself",
    )


def _write_or_keep_hook(repo: Repo, existing: Existing, text: str, new_backup: Path | None) -> str:
    """The hook written unless memcli's is already `text`: what was done."""
    if existing.kind == "memcli" and existing.text == text:
        reset_hook_mode(repo.hook)
        return "unchanged"
    replace_hook(repo.hook, text, new_backup)
    return INSTALLED[existing.kind]


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
    """Install a git pre-commit hook that runs `memcli check --staged` on the staged memory files.

    The workspace must be inside a git repository; the hook goes where git looks for hooks
    (core.hooksPath is honoured). It checks MEMORY.md and memory.md anywhere,
    memory/**/*.md, sessions.json and memcli.toml when a commit adds or changes them, as
    they are staged (the index: what is committed, whatever the working tree holds), with
    the memcli that installed it, and stops the commit when check finds problems. Installing
    again updates memcli's own hook. Skip it once with `git commit --no-verify`.
    """
    out = output(ctx)
    repo = find_repo(_workspace(ctx))
    existing = read_existing(repo.hook)
    if existing.kind == "other" and not force:
        _refuse_foreign_hook(repo)
    backup = kept_backup(repo, existing.info.backup)
    python = _python()
    make_hooks_folder(repo)
    new_backup = keep_backup(repo.hook) if existing.kind == "other" else None
    if new_backup is not None:
        backup = new_backup
    text = hook_script(python, backup.name if backup is not None else None)
    action = _write_or_keep_hook(repo, existing, text, new_backup)
    _report_install(out, repo, action, python, backup, new_backup)


def _report_install(
    out: Output, repo: Repo, action: str, python: str, backup: Path | None, new_backup: Path | None
) -> None:
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
    out.line(f"{INSTALL_VERBS[action]} the memcli pre-commit hook: {repo.hook}")
    if new_backup is not None:
        out.line(f"the previous hook was kept as {new_backup}; it no longer runs")
        out.line("(`memcli hook uninstall` puts it back)")
    out.note(
        f"commits in {repo.top} that add or change memory files now run `memcli check --staged` on "
        f"what they stage (with {python}); `git commit --no-verify` skips it once"
    )


@hook_app.command("uninstall")
def uninstall(ctx: typer.Context) -> None:
    """Remove memcli's pre-commit hook (a hook that is not memcli's is left alone).

    The hook that --force replaced, kept as pre-commit.memcli-backup, is put back.
    """
    out = output(ctx)
    repo = find_repo(_workspace(ctx))
    existing = read_existing(repo.hook)
    if existing.kind == "other":
        raise ConflictError(
            f"{repo.hook} is not memcli's pre-commit hook; it was left alone",
            "remove it yourself if you must",
        )
    restored = remove_hook(repo, existing.info.backup) if existing.kind == "memcli" else None
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
        kept = kept_backup(repo, existing.info.backup)
        current = existing.text == hook_script(_python(), kept.name if kept is not None else None)
    data: dict[str, Any] = {
        "hook": str(repo.hook),
        "installed": existing.kind,
        "python": python,
        "python_found": is_runnable(python),
        "current": current,
        "backup": str(repo.hooks / existing.info.backup) if existing.info.backup else None,
    }
    _report_status(out, repo, existing, data)


def _report_status(out: Output, repo: Repo, existing: Existing, data: dict[str, Any]) -> None:
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
    out.line(f"python:    {data['python']}" + ("" if data["python_found"] else "  (missing!)"))
    if data["backup"]:
        out.line(f"backup:    {data['backup']}")
    if not data["current"]:
        out.note("the hook differs from what this memcli would write; `memcli hook install` updates it")
