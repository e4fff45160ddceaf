"""`memcli gc`: plan the memory lifecycle and apply it as one reversible transaction."""

from __future__ import annotations

import difflib
from collections import Counter
from typing import Annotated, Any

import typer

from memcli.cli.common import output, runtime
from memcli.cli.output import Output, one_line
from memcli.core.lifecycle import ACTIONS, FileWrite, Plan
from memcli.errors import ConflictError
from memcli.services import plan_gc
from memcli.workspace.lock import WorkspaceLock
from memcli.workspace.transaction import apply_plan, record_events, recover

SHOWN_PER_KIND = 15


def gc(
    ctx: typer.Context,
    dry_run: Annotated[bool, typer.Option("--dry-run", "-n", help="Show the plan; change nothing.")] = False,
    diff: Annotated[
        bool, typer.Option("--diff", help="Show the plan as unified diffs; change nothing (a preview).")
    ] = False,
    force: Annotated[
        bool, typer.Option("--force", help="Apply even when a file would lose more than max_removal_share.")
    ] = False,
    fit: Annotated[
        bool,
        typer.Option(
            "--fit",
            help="Bring an over-budget MEMORY.md within core_max_chars by demoting its least valuable "
            "unpinned entries (lowest score, least recently mentioned) to memory/archive/core-cold.md.",
        ),
    ] = False,
) -> None:
    """Merge duplicates, drop noise, promote durable facts to MEMORY.md, retire superseded and
    unused ones, summarise finished weeks and archive their notes, in one transaction.

    Nothing is deleted: noise and merged copies go to .memcli/trash/, retired entries to
    memory/archive/, whole notes to memory/archive/YYYY/MM/. `memcli undo` reverts the run.
    Today's and yesterday's notes are never rewritten. Run it nightly from cron. A MEMORY.md
    over its budget gets a warning with the figures; --fit demotes until it fits.
    --dry-run and --diff are previews: they take no lock and write nothing (but memcli's
    cache in .memcli/); applying is `memcli gc` alone.
    """
    run = runtime(ctx)
    out = output(ctx)
    if dry_run or diff:
        _, plan = plan_gc(run, fit)
        show(out, plan, diff, applied=None)
        return
    with WorkspaceLock(run.root, "gc", run.policy.lock_timeout_seconds) as lock:
        if lock.stale is not None:
            out.note(f"took over the lock left by {lock.stale.describe()}, which no longer runs")
        for done in recover(run.root, run.now):
            out.note(done.describe())
        _, plan = plan_gc(run, fit)
        if plan.over_share and not force:
            files = ", ".join(f"{rel} ({gone} of {total})" for rel, gone, total in plan.over_share)
            raise ConflictError(
                f"gc would remove more than {run.policy.max_removal_share:.0%} of the entries of {files}",
                "review with `memcli gc --dry-run`, then run `memcli gc --force`",
            )
        applied = None
        if plan.writes:
            applied = apply_plan(run.root, plan, "gc", run.now, run.policy.max_file_bytes).tx
        elif plan.events:  # nothing changes: no transaction, nothing for undo to revert
            record_events(run.root, plan.events, run.now)
    show(out, plan, diff, applied=applied)


def show(out: Output, plan: Plan, diff: bool, applied: str | None) -> None:
    if out.json_mode:
        data: dict[str, Any] = {
            "actions": [a.to_json() for a in plan.actions],
            "counts": plan.counts(),
            "notes": list(plan.notes),
            "over_share": [{"file": f, "removed": r, "entries": t} for f, r, t in plan.over_share],
            "applied": applied is not None,
            "transaction": applied,
        }
        if diff:
            data["diff"] = "".join(_diff(w) for w in plan.writes)
        out.json(data)
        return
    if diff:
        for write in plan.writes:
            out.line(_diff(write).rstrip("\n"))
    elif not plan.empty and not out.quiet:
        _table(out, plan)
    counts = Counter(a.action for a in plan.actions)
    summary = ", ".join(f"{counts[k]} {k}" for k in ACTIONS if counts[k]) or "nothing to do"
    for note in plan.notes:
        out.note(f"note: {note}")
    for rel, gone, total in plan.over_share:
        out.warn(f"{rel}: {gone} of {total} entries would be removed (needs --force)")
    if applied is not None:
        out.note(f"applied {summary} as transaction {applied}; `memcli undo` reverts it")
    else:
        out.note(f"plan: {summary}" + ("" if plan.empty else " (dry run, nothing changed)"))


def _table(out: Output, plan: Plan) -> None:
    rows = []
    shown: Counter[str] = Counter()
    hidden: Counter[str] = Counter()
    for a in plan.actions:
        if shown[a.action] >= SHOWN_PER_KIND and not out.verbose:
            hidden[a.action] += 1
            continue
        shown[a.action] += 1
        where = a.source or (a.files[0] + (f" (+{len(a.files) - 1})" if len(a.files) > 1 else ""))
        target = a.into or a.to or ""
        rows.append([a.action, where, target, one_line(a.reason, 60), one_line(a.text or "", 70)])
    out.table(["action", "from", "to", "why", "text"], rows)
    for kind, n in hidden.items():
        out.note(f"… and {n} more {kind} (all with -v or --json)")


def _diff(write: FileWrite) -> str:
    if write.move_to is not None:
        return f"rename from {write.path}\nrename to {write.move_to}\n"
    before = (write.before or "").splitlines(keepends=True)
    after = (write.after or "").splitlines(keepends=True)
    old = f"a/{write.path}" if write.before is not None else "/dev/null"
    lines = difflib.unified_diff(before, after, old, f"b/{write.path}")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
