"""What every command handler needs from the root: options, output, runtime."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Annotated, Any, Protocol, TypeVar

import typer

from memcli.cli.output import Output
from memcli.cli.progress import Reporter
from memcli.cli_options import GlobalOptions
from memcli.phases import silent
from memcli.runtime import Runtime, open_runtime


def options(ctx: typer.Context) -> GlobalOptions:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, GlobalOptions) else GlobalOptions()


def reporter(ctx: typer.Context) -> Reporter | None:
    """The run's progress reporter (one per run, closed with it): a bar on a terminal's
    stderr unless --json or -q, phase timings with -v; None when neither is wanted."""
    root = ctx.find_root()
    if "memcli.progress" not in root.meta:
        opts = options(ctx)
        show = not opts.json and not opts.quiet and sys.stderr.isatty()
        made = Reporter(show, opts.verbose > 0) if show or opts.verbose else None
        if made is not None:
            root.call_on_close(made.close)
        root.meta["memcli.progress"] = made
    found: Reporter | None = root.meta["memcli.progress"]
    return found


def output(ctx: typer.Context) -> Output:
    opts = options(ctx)
    return Output(opts.json, opts.quiet, opts.verbose, opts.color, reporter(ctx))


def runtime(ctx: typer.Context) -> Runtime:
    progress = reporter(ctx)
    return open_runtime(options(ctx), progress=progress if progress is not None else silent)


class SessionResult(Protocol):
    """What flush and compact say of one session (flush.Flushed, compact.Compacted)."""

    def to_json(self) -> dict[str, Any]: ...


S = TypeVar("S", bound=SessionResult)


class SessionsRun(Protocol[S]):
    """A flush or compact run (flush.FlushRun, compact.CompactRun)."""

    sessions: list[S]
    warnings: list[str]
    refused: list[str]


def print_sessions(
    out: Output, done: SessionsRun[S], dry_run: bool, lines: Callable[[S, bool], Iterable[str]]
) -> None:
    """The sessions a flush or compact handled: under --json one object (dry_run, sessions,
    warnings, refused), else each session's `lines`."""
    if out.json_mode:
        out.json(
            {
                "dry_run": dry_run,
                "sessions": [r.to_json() for r in done.sessions],
                "warnings": done.warnings,
                "refused": done.refused,
            }
        )
        return
    for r in done.sessions:
        for line in lines(r, dry_run):
            out.line(line)


# the options flush and compact share
SessionKey = Annotated[str | None, typer.Option("--session", help="Only this session key.")]
SessionStore = Annotated[
    Path | None,
    typer.Option(
        "--sessions",
        help="The session store: a sessions.json or an OpenClaw openclaw-agent.sqlite (default: "
        "<workspace>/sessions.json and the stores of the OpenClaw agents whose workspace this is).",
    ),
]
