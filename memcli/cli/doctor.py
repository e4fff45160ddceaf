"""`memcli doctor`: one screen that says whether memcli can do its job here."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from memcli.cli.common import options, output
from memcli.cli.layout import BOLD, DIM, GREEN, RED, YELLOW, hanging, paint

LABELS = {
    "workspace": "workspace",
    "config": "config",
    "memory": "MEMORY.md",
    "writable": "writable",
    "sessions": "sessions",
    "hook": "git hook",
    "schedule": "schedule",
    "timezone": "time zone",
    "index": "index",
    "cache": "cache",
    "state": "runs",
}
STYLES = {"ok": GREEN, "info": DIM, "warning": f"{BOLD};{YELLOW}", "problem": f"{BOLD};{RED}"}
STATUS_WIDTH = max(len(s) for s in STYLES)
LABEL_WIDTH = max(len(label) for label in LABELS.values())


def doctor(ctx: typer.Context) -> None:
    """Say whether memcli can do its job here, and what to do about each problem. Reads only.

    It looks at: how the workspace was found (and whose OpenClaw agent's it is); memcli.toml;
    MEMORY.md against its budget (core_max_chars) and the 20,000 characters OpenClaw loads;
    whether memcli may write there; the session stores and the agent each belongs to; the git
    pre-commit hook or a pre-commit config that runs memcli-check; a cron line (`crontab -l`)
    or a systemd user timer (~/.config/systemd/user/memcli-*.timer) that runs gc and flush for
    this workspace; the time zone dates are kept in; the search index and the cache in
    .memcli/; a lock or a transaction a stopped run left. Each finding is ok, info, warning
    (memcli works, but something it is for is not done) or problem (memcli cannot do its job
    until it is acted on); warnings and problems come with a fix line.

    Exit 0 when nothing is a problem, 1 when one is. It takes no lock and writes nothing,
    not even the index or the cache.
    """
    from memcli.doctor import diagnose, plural

    out = output(ctx)
    found = diagnose(options(ctx), os.environ, Path.cwd(), Path.home())
    if out.json_mode:
        out.json(found.to_json())
    else:
        width = out.width
        indent = 2 + STATUS_WIDTH + 2 + LABEL_WIDTH + 2
        lines = [f"memcli doctor  {found.workspace or '(no workspace)'}", ""]
        for f in found.findings:
            head = (
                "  " + paint(f.status, STYLES.get(f.status), out.color) + " " * (STATUS_WIDTH - len(f.status))
            )
            head += f"  {LABELS.get(f.check, f.check):<{LABEL_WIDTH}}  "
            for n, piece in enumerate(hanging(f.summary, width, indent)):
                lines.append((head if n == 0 else " " * indent) + piece)
            if f.fix:
                for n, piece in enumerate(hanging(f"fix: {f.fix}", width, indent)):
                    lines.append(" " * indent + (paint(piece, BOLD, out.color) if n == 0 else piece))
        problems, warnings = found.count("problem"), found.count("warning")
        lines.append("")
        if problems:
            lines.append(
                f"{plural(problems, 'problem')}, {plural(warnings, 'warning')}: memcli cannot do all of its "
                "job here until the fix lines above are followed"
            )
        elif warnings:
            lines.append(
                f"no problem, {plural(warnings, 'warning')}: memcli works here; "
                "the fix lines say what it lacks"
            )
        else:
            lines.append("all is well: memcli can do its job here")
        out.lines(lines)
    if not found.ok:
        raise typer.Exit(1)
