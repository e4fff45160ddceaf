"""`memcli watch`: flush sessions as they become due and gc every few turns, as things change."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from memcli.cli.common import options, output, runtime
from memcli.cli.output import write_stdout
from memcli.core.watching import DEBOUNCE_SECONDS
from memcli.errors import UsageError


def watch(
    ctx: typer.Context,
    once: Annotated[
        bool,
        typer.Option(
            "--once",
            help="One pass without watching: flush the sessions that are due, gc if gc_every_turns "
            "turns were said since the last pass recorded its count, then exit (for cron).",
        ),
    ] = False,
    debounce: Annotated[
        float,
        typer.Option(
            "--debounce",
            min=0.0,
            max=60.0,
            metavar="SECONDS",
            help="Act this long after the last change of a burst (a burst that never stops is "
            "acted on after 10 s anyway).",
        ),
    ] = DEBOUNCE_SECONDS,
    sessions: Annotated[
        Path | None,
        typer.Option(
            "--sessions",
            metavar="PATH",
            help="Watch this session store (default: <workspace>/sessions.json and the stores of "
            "the OpenClaw agents whose workspace this is, under --state-dir, $OPENCLAW_STATE_DIR "
            "or ~/.openclaw).",
        ),
    ] = None,
) -> None:
    """Watch the workspace and the session stores; flush sessions that become due and run a
    light gc every gc_every_turns user turns. Ctrl-C or SIGTERM stops it cleanly.

    The sessions are those `memcli flush` sees; OpenClaw 2026.8+ databases are watched with
    their WAL. With no session store at all it exits 3, saying where it looked.

    A burst of changes (notes, sessions.json, transcripts, databases) is acted on once, --debounce
    seconds after its last event. Each action is one log line on stdout ("09:12:03 flushed
    agent:main:main → memory/2026-10-31.md (3 items)"); with --json, one JSON object per
    line, or with --once one JSON document {"actions": [...]}.

    The light gc is `memcli gc` (one transaction, `memcli undo` reverts it), never --force:
    when it would remove too much it is refused and logged (and tried after the next
    gc_every_turns turns); when another memcli holds the lock it is tried again on the next
    pass. Turns are user messages appended to the transcripts (heartbeat and cron sessions
    left out), counted across runs in .memcli/watch.json; a first run counts from now.
    On SIGINT or SIGTERM the action under way finishes, then the watcher stops.

    Watching runs on the real clock (notes are dated by it), so --now / MEMCLI_NOW is
    refused unless --once is given, where it dates that one pass like any other command.
    """
    opts = options(ctx)
    pinned = opts.now or os.environ.get("MEMCLI_NOW")
    if pinned and not once:
        raise UsageError(
            "watch runs on the real clock; --now (or MEMCLI_NOW) only goes with --once",
            "drop --now, or add --once for a single pass at that time",
        )
    from memcli.watch import Action, Watcher, search

    run = runtime(ctx)
    out = output(ctx)
    found = search(run, Path(os.path.abspath(sessions)) if sessions is not None else None)
    if not found.stores:
        raise found.nowhere(run.root)
    if once:
        actions: list[Action] = []
        watcher = Watcher(run, actions.append, sessions, debounce, fixed_now=run.now if pinned else None)
        watcher.once()
        if out.json_mode:
            out.json(
                {
                    "actions": [a.to_json() for a in actions],
                    "turns": watcher.turns.count,
                    "gc_every_turns": run.policy.gc_every_turns,
                }
            )
            return
        for action in actions:
            out.line(action.line())
        out.note(
            f"{watcher.turns.count} of {run.policy.gc_every_turns} turns counted towards the next gc"
            + ("" if actions else "; nothing else to do")
        )
        return

    def log(action: Action) -> None:
        if out.json_mode:
            write_stdout(json.dumps(action.to_json(), ensure_ascii=False, default=str) + "\n")
        else:
            write_stdout(action.line() + "\n")
        sys.stdout.flush()

    Watcher(run, log, sessions, debounce).run()
