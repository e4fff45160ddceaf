"""`memcli check`: a fast health check for pre-commit hooks and CI (read-only unless --fix)."""

from __future__ import annotations

import time
from collections import Counter
from pathlib import Path
from typing import Annotated

import typer

from memcli.cli.common import options, output
from memcli.errors import UsageError

WARNINGS_SHOWN = 10  # of each kind, unless -v


def check(
    ctx: typer.Context,
    files: Annotated[
        list[Path] | None,
        typer.Argument(help="Files to check, as pre-commit passes them (default: the whole workspace)."),
    ] = None,
    fix: Annotated[
        bool,
        typer.Option("--fix", help="Remove exact copies within a note (never today's or yesterday's)."),
    ] = False,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail too (exit 1).")] = False,
    staged: Annotated[
        bool,
        typer.Option(
            "--staged",
            help="Check what the next commit holds: the memory files it adds or changes, as staged "
            "(the index, not the working tree). What the hook of `memcli hook install` runs.",
        ),
    ] = False,
) -> None:
    """Check memory before it is committed: errors exit 1, warnings only inform.

    Errors: secrets (keys and tokens with a known prefix: OpenAI, Anthropic, GitHub, GitLab,
    Slack, Stripe, AWS, Google, Telegram bot, JWT, SendGrid, Hugging Face; private keys;
    passwords in URLs; password assignments in English and Chinese; random-looking tokens
    given as a key or token); merge conflict markers; front matter that does not parse; files
    that are not UTF-8 text, or not files at all (a FIFO, socket or device named like a
    note, a folder named like one, memory/ linked out of the workspace, a path that does
    not exist); daily notes whose name is not a date; MEMORY.md past the
    20,000 characters OpenClaw loads; a broken sessions.json or memcli.toml. Warnings:
    MEMORY.md over core_max_chars; an entry repeated in its file; entries of MEMORY.md
    about a date that has passed, or that contradict each other.

    With FILES each is checked against the workspace it lies in. With --staged the files
    are those the next commit adds or changes in the git repository of the current folder
    (or of -w), read from the index: a secret staged and then deleted or edited away on
    disk is still found. --fix applies the safe fixes only, as one transaction `memcli
    undo` reverts. A line that must keep a secret can carry <!-- memcli: allow-secret -->.
    """
    from memcli.check import check_files, check_staged, check_workspace

    started = time.perf_counter()
    out = output(ctx)
    if staged and files:
        raise UsageError(
            "--staged checks what the next commit holds; it takes no FILES",
            "run `memcli check --staged` alone, or `memcli check FILES` for files as they are on disk",
        )
    if staged and fix:
        raise UsageError(
            "--fix edits the working tree, not what is staged",
            "run `memcli check --fix`, then `git add` the fixed notes and commit again",
        )
    if staged:
        report = check_staged(options(ctx))
    else:
        report = check_files(files, options(ctx), fix) if files else check_workspace(options(ctx), fix)
    if out.json_mode:
        out.json(report.to_json())
    else:
        shown: Counter[str] = Counter()
        hidden: Counter[str] = Counter()
        for f in sorted(report.findings, key=lambda f: (f.severity != "error", f.file, f.line or 0)):
            shown[f.check] += 1
            if f.severity != "error" and shown[f.check] > WARNINGS_SHOWN and not out.verbose:
                hidden[f.check] += 1
                continue
            out.line(f"{f.where()}: {f.severity}: {f.message} [{f.check}]")
            if f.hint and (f.severity == "error" or out.verbose):
                out.line(f"    fix: {f.hint}")
        for kind, n in sorted(hidden.items()):
            out.line(f"… and {n} more {kind} warning(s) (-v or --json shows them all)")
        for note in report.notes:
            out.note(note)
        for f in report.fixed:
            out.line(f"{f.where()}: fixed: removed ({f.message})")
        took = (time.perf_counter() - started) * 1000
        verdict = "ok" if report.errors == 0 else "failed"
        scope = "staged file(s) (the index)" if report.staged else "file(s)"
        out.note(
            f"check {verdict}: {report.errors} error(s), {report.warnings} warning(s) in "
            f"{len(report.files)} {scope}, {took:.0f} ms"
            + (f"; fixed {len(report.fixed)} (undo with `memcli undo`)" if report.fixed else "")
        )
    if report.errors or (strict and report.warnings):
        raise typer.Exit(1)
