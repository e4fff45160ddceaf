"""`memcli status`: what the workspace holds and how close MEMORY.md is to its cap."""

from __future__ import annotations

from typing import Any

import typer

from memcli.cli.common import output, runtime
from memcli.cli.layout import BOLD, DIM, RED, YELLOW, Column, hanging, paint
from memcli.core.inventory import core_budget, tally_by_role
from memcli.core.roles import Role
from memcli.flush import overview
from memcli.phases import phase
from memcli.services import snapshot_everything


def status(ctx: typer.Context) -> None:
    """Files by role, entry counts, size in characters and tokens, MEMORY.md against its budget,
    and file names that are not valid daily-note names. Reads only."""
    run = runtime(ctx)
    out = output(ctx)
    snap = snapshot_everything(run)
    tallies = tally_by_role((p.file, p.doc) for p in snap.files)
    core = next((p for p in snap.files if p.file.role is Role.CORE), None)
    budget = core_budget(core.file, core.doc, run.policy.core_max_chars) if core else None
    bootstrap = [p for p in snap.files if p.file.role is Role.BOOTSTRAP]
    with phase(run.progress, "reading sessions"):
        sessions, problems = overview(run)

    if out.json_mode:
        data: dict[str, Any] = {
            "workspace": str(run.root),
            "config": str(run.config) if run.config else None,
            "now": run.now.isoformat(),
            "today": run.today.isoformat(),
            "roles": {
                role.value: {"files": t.files, "entries": t.entries, "chars": t.chars, "tokens": t.tokens}
                for role, t in tallies.items()
            },
            "core": None
            if budget is None
            else {
                "file": budget.file,
                "chars": budget.chars,
                "tokens": budget.tokens,
                "budget": budget.limit,
                "used": round(budget.used, 4),
                "over": budget.over,
            },
            "bootstrap": [{"file": p.file.rel, "chars": p.chars} for p in bootstrap],
            "bad_names": [{"file": b.rel, "reason": b.reason} for b in snap.layout.bad_names],
            "temp_files": list(snap.layout.temp_files),
            "sessions": [r.to_json() for r in sessions],
            "session_problems": problems,
        }
        out.json(data)
        return

    out.line(f"workspace  {run.root}")
    out.line(f"today      {run.today.isoformat()}  ({run.now.isoformat(timespec='minutes')})")
    out.line("")
    rows = [
        [role.value, str(t.files), str(t.entries), f"{t.chars:,}", f"{t.tokens:,}"]
        for role, t in tallies.items()
    ]
    out.table(
        [
            Column("role"),
            Column("files", numeric=True),
            Column("entries", numeric=True),
            Column("chars", numeric=True),
            Column("~tokens", numeric=True),
        ],
        rows,
    )
    out.line("")
    if budget is None:
        out.line("MEMORY.md  missing (create it with `memcli init`)")
    else:
        state = (
            paint("OVER BUDGET: OpenClaw will truncate it", f"{BOLD};{RED}", out.color)
            if budget.over
            else "within budget"
        )
        out.line(
            f"{budget.file}  {budget.chars:,} / {budget.limit:,} chars ({budget.used:.0%}), "
            f"~{budget.tokens:,} tokens, {state}"
        )
    if sessions or problems:
        out.line("")
        rows = [
            [
                r.key,
                f"{r.decision.tokens:,}",
                f"{r.decision.window:,}",
                f"{r.decision.threshold:,}",
                "due" if r.decision.due else "no",
                r.last_flush or "never",
                str(r.compactions),
                r.decision.why,
            ]
            for r in sessions
        ]
        out.table(
            [
                Column("session", key_min=16),
                Column("tokens", numeric=True),
                Column("window", numeric=True, drop=1),
                Column("flush at", numeric=True),
                Column("flush", style=lambda v: f"{BOLD};{YELLOW}" if v == "due" else None),
                Column("last flush"),
                Column("compactions", numeric=True),
                Column("why", text=True, beneath=True, style=lambda v: DIM),
            ],
            rows,
        )
        for problem in problems:
            out.lines(["sessions: " + "\n    ".join(hanging(problem, out.width and out.width - 6, 4))])
    if snap.layout.bad_names:
        out.line("")
        out.line(f"{len(snap.layout.bad_names)} file name(s) that are not valid daily-note names:")
        for bad in snap.layout.bad_names:
            out.line(f"  {bad.rel}: {bad.reason}")
    if snap.layout.temp_files:
        out.line("")
        out.line(
            f"{len(snap.layout.temp_files)} leftover temp file(s) of an interrupted write; "
            "the next writing command removes them"
        )
