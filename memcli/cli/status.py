"""`memcli status`: what the workspace holds and how close MEMORY.md is to its cap."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import typer

from memcli.cli.common import output, runtime
from memcli.cli.layout import BOLD, DIM, RED, YELLOW, Column, hanging, paint
from memcli.core.inventory import Budget
from memcli.core.roles import Role
from memcli.errors import MemcliError
from memcli.phases import phase
from memcli.runtime import Runtime
from memcli.workspace.session_store import search_stores
from memcli.workspace.snapshot import Parser, parse_file
from memcli.workspace.tally import by_role, count_files

if TYPE_CHECKING:
    from memcli.flush import SessionRow

# Up to this many notes to read, status parses them; beyond, it loads the note cache and
# rebuilds those cached by list, dedupe or gc from their outlines (worth its import).
FEW_TO_READ = 64


def status(ctx: typer.Context) -> None:
    """Files by role, entry counts, size in characters and tokens, MEMORY.md against its budget,
    and file names that are not valid daily-note names. Reads only (its counts of each file are
    kept in memcli's cache)."""
    run = runtime(ctx)
    out = output(ctx)
    with phase(run.progress, "reading notes") as step:
        counted = count_files(run.root, run.policy.max_file_bytes, lambda n: _parser(run, n), step)
    tallies = by_role(counted.files)
    core = next(((f, t) for f, t in counted.files if f.role is Role.CORE), None)
    budget = Budget(core[0].rel, core[1].chars, core[1].tokens, run.policy.core_max_chars) if core else None
    bootstrap = [(f.rel, t.chars) for f, t in counted.files if f.role is Role.BOOTSTRAP]
    layout = counted.layout
    with phase(run.progress, "reading sessions"):
        sessions, problems = _sessions(run)

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
            "bootstrap": [{"file": rel, "chars": chars} for rel, chars in bootstrap],
            "bad_names": [{"file": b.rel, "reason": b.reason} for b in layout.bad_names],
            "temp_files": list(layout.temp_files),
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
    if layout.bad_names:
        out.line("")
        out.line(f"{len(layout.bad_names)} file name(s) that are not valid daily-note names:")
        for bad in layout.bad_names:
            out.line(f"  {bad.rel}: {bad.reason}")
    if layout.temp_files:
        out.line("")
        out.line(
            f"{len(layout.temp_files)} leftover temp file(s) of an interrupted write; "
            "the next writing command removes them"
        )


@contextlib.contextmanager
def _parser(run: Runtime, to_read: int) -> Iterator[Parser]:
    """How status reads the notes its cache does not know: a few are parsed; many (a first
    status) are rebuilt from the note cache where list, dedupe or gc left their outlines."""
    if to_read <= FEW_TO_READ:
        yield parse_file
        return
    from memcli.workspace.cache import outline_parser

    with outline_parser(run.root, run.policy.rules) as parser:
        yield parser


def _sessions(run: Runtime) -> tuple[list[SessionRow], list[str]]:
    """flush.overview, without loading the session machinery when the workspace has no
    session store: overview lists nothing then, and says nothing."""
    try:
        found = search_stores(run.root, None, run.openclaw(), run.agent)
    except MemcliError:
        found = None  # overview reports it
    if found is not None and not found.stores:
        return [], []
    from memcli.flush import overview

    return overview(run)
