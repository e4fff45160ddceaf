"""`memcli gc`: plan the memory lifecycle and apply it as one reversible transaction."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Sequence
from typing import Annotated, Any

import typer

from memcli.cli.common import output, runtime
from memcli.cli.contract import Entries, action_json
from memcli.cli.layout import BLUE, BOLD, CYAN, DIM, GREEN, MAGENTA, RED, YELLOW, hanging, paint
from memcli.cli.output import Output
from memcli.core.lifecycle import ACTIONS, Action, FileWrite, Plan
from memcli.errors import ConflictError
from memcli.phases import phase
from memcli.services import plan_gc_analysed
from memcli.workspace.lock import WorkspaceLock
from memcli.workspace.transaction import apply_plan, record_events, recover

SHOWN_PER_KIND = 15


def gc(
    ctx: typer.Context,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Show the plan; change nothing.")] = False,
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
        _, plan, analysis = plan_gc_analysed(run, fit)
        show(out, plan, diff, applied=None, entries=Entries(analysis.assessed))
        return
    with WorkspaceLock(run.root, "gc", run.policy.lock_timeout_seconds) as lock:
        if lock.stale is not None:
            out.note(f"took over the lock left by {lock.stale.describe()}, which no longer runs")
        for done in recover(run.root, run.now):
            out.note(done.describe())
        _, plan, analysis = plan_gc_analysed(run, fit)
        if plan.over_share and not force:
            files = ", ".join(f"{rel} ({gone} of {total})" for rel, gone, total in plan.over_share)
            raise ConflictError(
                f"gc would remove more than {run.policy.max_removal_share:.0%} of the entries of {files}",
                "review with `memcli gc --dry-run`, then run `memcli gc --force`",
            )
        applied = None
        if plan.writes:
            with phase(run.progress, "writing", len(plan.writes)):
                applied = apply_plan(run.root, plan, "gc", run.now, run.policy.max_file_bytes).tx
        elif plan.events:  # nothing changes: no transaction, nothing for undo to revert
            record_events(run.root, plan.events, run.now)
    show(out, plan, diff, applied=applied, entries=Entries(analysis.assessed))


def show(out: Output, plan: Plan, diff: bool, applied: str | None, entries: Entries | None = None) -> None:
    if out.json_mode:
        data: dict[str, Any] = {
            "actions": [action_json(a, entries) for a in plan.actions],
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
        text = "".join(_diff(w) for w in plan.writes)
        if text:
            out.page(color_diff(text) if out.color else text)
    elif not plan.empty:
        most = None if out.verbose else SHOWN_PER_KIND
        lines, hidden = plan_lines(plan.actions, out.width, out.color, most)
        out.lines(lines)
        for kind, n in hidden.items():
            out.note(f"… and {n} more {kind} (all with -v or --json)")
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


ACTION_STYLE = {
    "merge": CYAN,
    "drop": RED,
    "promote": GREEN,
    "supersede": YELLOW,
    "demote": YELLOW,
    "summarize": MAGENTA,
    "archive": BLUE,
}
ACTION_WIDTH = max(len(a) for a in ACTIONS)


def plan_lines(
    actions: Sequence[Action], width: int | None, color: bool, per_kind: int | None = None
) -> tuple[list[str], Counter[str]]:
    """The plan grouped by action, with counts: one action a line (action, from → to — why),
    the entry's text beneath it; wrapped at `width` (None: a pipe, nothing wrapped), never
    cut. At most `per_kind` actions of a kind are shown; the rest are counted."""
    kinds = [k for k in ACTIONS if any(a.action == k for a in actions)]
    kinds += sorted({a.action for a in actions} - set(kinds))
    lines: list[str] = []
    hidden: Counter[str] = Counter()
    indent = 2 + ACTION_WIDTH + 2
    for kind in kinds:
        group = [a for a in actions if a.action == kind]
        style = ACTION_STYLE.get(kind)
        if lines:
            lines.append("")
        lines.append(paint(f"{kind} ({len(group)})", f"{BOLD};{style}" if style else BOLD, color))
        for n, a in enumerate(group):
            if per_kind is not None and n >= per_kind:
                hidden[kind] += len(group) - n
                break
            where = a.source or (a.files[0] + (f" (+{len(a.files) - 1})" if len(a.files) > 1 else ""))
            target = a.into or a.to or ""
            head = f"{where} → {target}" if target else where
            first = "  " + paint(f"{kind:<{ACTION_WIDTH}}", style, color) + "  "
            dim = False  # the reason, after its dash, is dimmed
            said = f"{head} — {a.reason}" if a.reason else head
            for n_line, piece in enumerate(hanging(said, width, indent)):
                if not dim and "— " in piece:
                    at = piece.index("— ")
                    piece, dim = piece[:at] + paint(piece[at:], DIM, color), True
                elif dim:
                    piece = paint(piece, DIM, color)
                lines.append((first if n_line == 0 else " " * indent) + piece)
            if a.text:
                lines.extend(" " * indent + piece for piece in hanging(a.text.strip("\n"), width, indent))
    return lines, hidden


def color_diff(text: str) -> str:
    """A unified diff coloured as git colours it."""
    out = []
    for line in text.splitlines():
        if line.startswith(("--- ", "+++ ", "rename from ", "rename to ")):
            style: str | None = BOLD
        elif line.startswith("@@"):
            style = CYAN
        elif line.startswith("+"):
            style = GREEN
        elif line.startswith("-"):
            style = RED
        else:
            style = None
        out.append(paint(line, style, True))
    return "\n".join(out) + "\n"


def _diff(write: FileWrite) -> str:
    if write.move_to is not None:
        return f"rename from {write.path}\nrename to {write.move_to}\n"
    before = (write.before or "").splitlines(keepends=True)
    after = (write.after or "").splitlines(keepends=True)
    old = f"a/{write.path}" if write.before is not None else "/dev/null"
    lines = difflib.unified_diff(before, after, old, f"b/{write.path}")
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)
