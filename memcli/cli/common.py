"""What every command handler needs from the root: options, output, runtime."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from memcli.cli.output import Output
from memcli.cli_options import GlobalOptions
from memcli.runtime import Runtime, open_runtime


def options(ctx: typer.Context) -> GlobalOptions:
    obj = ctx.find_root().obj
    return obj if isinstance(obj, GlobalOptions) else GlobalOptions()


def output(ctx: typer.Context) -> Output:
    opts = options(ctx)
    return Output(opts.json, opts.quiet, opts.verbose)


def runtime(ctx: typer.Context) -> Runtime:
    return open_runtime(options(ctx))


# the options flush and compact share
SessionKey = Annotated[str | None, typer.Option("--session", help="Only this session key.")]
SessionStore = Annotated[
    Path | None, typer.Option("--sessions", help="The session store (default: <workspace>/sessions.json).")
]
