"""`memcli undo`, `restore`, `purge` and `show`: the history side of gc."""

from __future__ import annotations

from typing import Annotated

import typer

from memcli.cli.common import output, runtime
from memcli.cli.contract import action_json
from memcli.cli.layout import Column
from memcli.cli.output import one_line
from memcli.errors import DataError, UsageError
from memcli.services import restorable, restore_plan
from memcli.workspace.lock import WorkspaceLock
from memcli.workspace.transaction import apply_plan, ledger_events, recover
from memcli.workspace.transaction import purge as purge_old
from memcli.workspace.transaction import undo as undo_last


def undo(
    ctx: typer.Context,
    force: Annotated[
        bool, typer.Option("--force", help="Revert even files changed since (their text goes to the trash).")
    ] = False,
) -> None:
    """Revert the last applied gc or restore, byte for byte.

    Lines an agent appended since are kept. A file edited in another way stops the undo,
    naming the file, unless --force.
    """
    run = runtime(ctx)
    out = output(ctx)
    with WorkspaceLock(run.root, "undo", run.policy.lock_timeout_seconds):
        finished = None
        for done in recover(run.root, run.now):
            out.note(done.describe())
            finished = done if done.finished_undo else finished
        if finished is not None:
            # the undo asked for was this one, killed half way: finished, and nothing more
            if out.json_mode:
                out.json({"transaction": finished.tx, "finished": True, "restored": [], "conflicts": []})
            return
        result = undo_last(run.root, force, run.now)
    if result is None:
        if out.json_mode:
            out.json({"transaction": None, "restored": [], "conflicts": [], "nothing": True})
        else:
            out.note("nothing to undo: no applied transaction (runs that changed nothing record none)")
        return
    if out.json_mode:
        out.json(
            {
                "transaction": result.tx,
                "command": result.command,
                "time": result.time,
                "restored": list(result.restored),
                "conflicts": list(result.conflicts),
                "kept": result.kept,
            }
        )
        return
    for rel in result.restored:
        out.line(f"{'overwrote' if rel in result.conflicts else 'restored '}  {rel}")
    if result.kept is not None:
        out.note(f"the text undo --force overwrote is kept in {result.kept}")
    files = f"{len(result.restored)} file(s)" if result.restored else "no file (each was as before)"
    out.note(f"undid `memcli {result.command}` of {result.time[:16]} (transaction {result.tx}): {files}")


def restore(
    ctx: typer.Context,
    what: Annotated[
        str, typer.Argument(help="An entry id (from `list`, `gc --json`, `show`), or words of its text.")
    ],
) -> None:
    """Bring back an entry gc dropped, merged, demoted or superseded.

    An archived MEMORY.md entry returns to MEMORY.md; a dropped or merged one to the end of
    the note it left (or today's note). The restore is itself undoable.
    """
    run = runtime(ctx)
    out = output(ctx)
    with WorkspaceLock(run.root, "restore", run.policy.lock_timeout_seconds):
        recover(run.root, run.now)
        candidates = restorable(run)
        found = [c for c in candidates if c.id.startswith(what)] if len(what) >= 4 else []
        if not found:
            needle = what.casefold()
            found = [c for c in candidates if needle in c.text.casefold()]
        if not found:
            raise DataError(
                f"no dropped or archived entry matches {what!r}", "`memcli show` lists an entry's history"
            )
        if len({c.id for c in found}) > 1:
            listed = "; ".join(f"{c.id} {one_line(c.text, 40)}" for c in found[:5])
            raise UsageError(f"{len(found)} entries match {what!r}: {listed}", "restore one by its id")
        item = found[-1]
        plan = restore_plan(run, item)
        tx = apply_plan(run.root, plan, "restore", run.now, run.policy.max_file_bytes).tx
    target = plan.actions[0].to
    if out.json_mode:
        out.json({"restored": action_json(plan.actions[0]), "transaction": tx})
        return
    out.line(f"restored {item.id} to {target}: {one_line(item.text, 80)}")
    out.note(f"transaction {tx}; `memcli undo` takes it back")


def purge(
    ctx: typer.Context,
    older_than: Annotated[float, typer.Option("--older-than", metavar="DAYS", min=0, help="Age in days.")],
    dry_run: Annotated[bool, typer.Option("--dry-run", help="List what would go; delete nothing.")] = False,
) -> None:
    """Delete trash and undo data older than DAYS: the only command that deletes.

    The archive and the ledger are kept; transactions older than DAYS can no longer be undone.
    """
    run = runtime(ctx)
    out = output(ctx)
    if dry_run:  # a preview: no lock, nothing written
        result = purge_old(run.root, older_than, run.now, dry=True)
    else:
        with WorkspaceLock(run.root, "purge", run.policy.lock_timeout_seconds):
            result = purge_old(run.root, older_than, run.now)
    if out.json_mode:
        out.json({"trash": list(result.trash_files), "journals": list(result.journals), "dry_run": dry_run})
        return
    verb = "would delete" if dry_run else "deleted"
    out.line(f"{verb} {len(result.trash_files)} trash file(s) and {len(result.journals)} old transaction(s)")


def show(
    ctx: typer.Context,
    what: Annotated[str, typer.Argument(help="An entry id (or its first characters), or words of its text.")],
) -> None:
    """An entry's provenance and history: where it came from, and every change gc made to it."""
    run = runtime(ctx)
    out = output(ctx)
    events = list(ledger_events(run.root))
    mine = [e for e in events if len(what) >= 4 and str(e.get("id", "")).startswith(what)]
    if not mine:
        needle = what.casefold()
        mine = [e for e in events if e.get("id") != "-" and needle in str(e.get("text", "")).casefold()]
    undone = {e["tx"] for e in events if e.get("action") in ("undo", "rolled_back")}
    if out.json_mode:
        out.json({"events": [{**e, "undone": e.get("tx") in undone} for e in mine]})
        return
    if not mine:
        out.note(f"the ledger has no history for {what!r}")
        return
    rows = [
        [
            str(e.get("time", ""))[:19],
            str(e.get("action", "")) + (" (undone)" if e.get("tx") in undone else ""),
            str(e.get("id", "")),
            f"{e.get('from') or ''} → {e.get('to') or ''}".strip(" →"),
            one_line(str(e.get("reason", ""))),
        ]
        for e in mine
    ]
    out.table(
        [
            Column("time", drop=1),
            Column("action"),
            Column("id"),
            Column("from → to", key_min=24),
            Column("why", text=True, beneath=True),
        ],
        rows,
    )
