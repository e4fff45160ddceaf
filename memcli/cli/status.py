"""`memcli status`: what the workspace holds and how close MEMORY.md is to its cap."""

from __future__ import annotations

from typing import Any

import typer

from memcli.cli.common import output, runtime
from memcli.core.inventory import core_budget, tally_by_role
from memcli.core.roles import Role
from memcli.flush import overview
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
    out.table(["role", "files", "entries", "chars", "~tokens"], rows)
    out.line("")
    if budget is None:
        out.line("MEMORY.md  missing (create it with `memcli init`)")
    else:
        state = "OVER BUDGET: OpenClaw will truncate it" if budget.over else "within budget"
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
                ("due: " if r.decision.due else "no: ") + r.decision.why,
                r.last_flush or "never",
                str(r.compactions),
            ]
            for r in sessions
        ]
        out.table(["session", "tokens", "window", "flush at", "flush due", "last flush", "compactions"], rows)
        for problem in problems:
            out.line(f"sessions: {problem}")
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
