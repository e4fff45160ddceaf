"""The root of the command line: global options, command registry, error boundary.

Global options work before and after the command name (`memcli --json status`
and `memcli status --json`): they are moved in front of the command before
parsing. Every error leaves through `MemcliGroup.main` as one line on stderr
and an exit code of SPEC §13.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from enum import StrEnum
from typing import Annotated, Any

import typer
from typer._click import exceptions as click_exceptions
from typer.core import TyperGroup

from memcli import __version__
from memcli.cli_options import GlobalOptions
from memcli.errors import MemcliError, UsageError

GLOBAL_FLAGS = frozenset({"--json", "-q", "--quiet", "-v", "-vv", "-vvv", "--verbose"})
GLOBAL_VALUED = frozenset({"-w", "--workspace", "--config", "--now", "--state-dir", "--agent", "--color"})
GLOBAL_ASSIGNED = ("--workspace=", "--config=", "--now=", "--state-dir=", "--agent=", "--color=")

EXIT_INTERNAL = 70


class ColorMode(StrEnum):
    AUTO = "auto"
    ALWAYS = "always"
    NEVER = "never"


def hoist_global_options(args: Sequence[str]) -> list[str]:
    """Move global options that follow the command name in front of it."""
    args = list(args)
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            return args
        if arg in GLOBAL_VALUED:
            i += 2
        elif arg.startswith("-"):
            i += 1
        else:
            break
    if i >= len(args):
        return args
    moved: list[str] = []
    kept: list[str] = []
    rest = args[i + 1 :]
    j = 0
    while j < len(rest):
        arg = rest[j]
        if arg == "--":
            kept.extend(rest[j:])
            break
        if arg in GLOBAL_FLAGS or arg.startswith(GLOBAL_ASSIGNED):
            moved.append(arg)
        elif arg in GLOBAL_VALUED and j + 1 < len(rest):
            moved.extend(rest[j : j + 2])
            j += 1
        else:
            kept.append(arg)
        j += 1
    return [*args[:i], *moved, args[i], *kept]


def error_line(text: str) -> None:
    sys.stderr.write(f"memcli: error: {' '.join(text.split())}\n")


def error_json(message: str, fix: str | None, code: int) -> None:
    """Under --json an error is also a JSON object on stdout (SPEC §13), on one line, so a
    reader of JSON lines (`watch --json`) takes it too; only when the run printed nothing
    else there (flush and compact print their sessions, refused ones named, then fail)."""
    import json

    data = {"error": " ".join(message.split()), "fix": " ".join(fix.split()) if fix else None, "exit": code}
    try:
        sys.stdout.write(json.dumps(data, ensure_ascii=False) + "\n")
        sys.stdout.flush()
    except (BrokenPipeError, ValueError):  # nobody reads stdout any more
        pass


def _written() -> Any:
    """Whether data went to stdout this run, if the module that writes it was loaded."""
    return getattr(sys.modules.get("memcli.cli.output"), "Written", None)


def _changes() -> Any:
    """The record of files this run changed, if the module that writes was loaded."""
    files = sys.modules.get("memcli.workspace.files")
    return getattr(files, "CHANGES", None)


def stopped_line(exc: BaseException) -> str:
    """What Ctrl-C left: nothing changed, rolled back, or the (whole) files written."""
    outcome = getattr(exc, "outcome", None)
    if outcome:
        return f"memcli: stopped (Ctrl-C); {outcome}\n"
    changes = _changes()
    if changes is None or not changes.count:
        return "memcli: stopped (Ctrl-C); nothing was changed\n"
    return (
        f"memcli: stopped (Ctrl-C) after it wrote {changes.count} file(s), last {changes.last}; "
        "each write is whole (nothing was half-written)\n"
    )


# name -> (module, attribute, one-line help). Modules load only when their command runs,
# so `memcli --help` and a pre-commit hook do not pay for the others.
COMMANDS: dict[str, tuple[str, str, str]] = {
    "init": ("memcli.cli.init", "init", "Create MEMORY.md, memory/ and memcli.toml; never overwrites."),
    "status": ("memcli.cli.status", "status", "Files by role, sizes, tokens; MEMORY.md against its budget."),
    "doctor": (
        "memcli.cli.doctor",
        "doctor",
        "Whether memcli can do its job here, and what to do about each problem (read-only).",
    ),
    "add": ("memcli.cli.add", "add", "Append an entry to today's note (append-only)."),
    "score": ("memcli.cli.score", "score", "Score a text 0-10 and show the rules that fired."),
    "list": ("memcli.cli.listing", "list_entries", "List entries with tier, score, decay and mentions."),
    "dedupe": ("memcli.cli.dedupe", "dedupe", "Show groups of duplicate entries (read-only)."),
    "gc": ("memcli.cli.gc", "gc", "Plan and apply the memory lifecycle as one reversible transaction."),
    "summarize": (
        "memcli.cli.summarize",
        "summarize",
        "Summarise a week of notes or a session from a template (extractive, offline).",
    ),
    "flush": (
        "memcli.cli.flush",
        "flush",
        "Append durable notes of sessions near compaction to today's note (OpenClaw's store).",
    ),
    "compact": (
        "memcli.cli.compact",
        "compact",
        "Replace a session's older turns by a summary entry (flushing first), as OpenClaw does.",
    ),
    "search": ("memcli.cli.search", "search", "Ranked hits from the full-text index (Chinese and English)."),
    "context": (
        "memcli.cli.context",
        "context",
        "The memory to load at session start, within a token budget.",
    ),
    "entities": (
        "memcli.cli.entities",
        "entities",
        "The people, projects, tools and places that recur, with counts and dates.",
    ),
    "check": (
        "memcli.cli.check",
        "check",
        "Check memory before a commit: secrets, conflicts, budget, names, duplicates (exit 1 on errors).",
    ),
    "undo": ("memcli.cli.history", "undo", "Revert the last applied gc, restore or summarize."),
    "restore": ("memcli.cli.history", "restore", "Bring back an archived or dropped entry."),
    "purge": (
        "memcli.cli.history",
        "purge",
        "Delete trash and undo data older than N days (the only deletion).",
    ),
    "show": ("memcli.cli.history", "show", "An entry's provenance and history from the ledger."),
    "watch": (
        "memcli.cli.watch",
        "watch",
        "Watch notes and sessions: flush sessions as they become due, a light gc every few turns.",
    ),
    "hook": (
        "memcli.cli.hook",
        "hook_app",
        "Install or remove the git pre-commit hook that runs `memcli check` on memory files.",
    ),
    "schedule": (
        "memcli.cli.schedule",
        "schedule",
        "Print cron lines or systemd timers for a nightly gc and a frequent flush.",
    ),
}


def load_command(name: str) -> Any:
    """The click command for `name`, built from its module on first use."""
    import importlib

    from typer.main import get_command

    from memcli.cli.help import teach

    module, attribute, _ = COMMANDS[name]
    target = getattr(importlib.import_module(module), attribute)
    if isinstance(target, typer.Typer):
        command = get_command(target)
    else:
        single = typer.Typer(add_completion=False, rich_markup_mode=None)
        single.command(name, context_settings={"help_option_names": ["-h", "--help"]})(target)
        command = get_command(single)
    command.name = name
    teach(command, name)
    return command


class StoppedRun(Exception):
    """Ctrl-C in a command, carried past typer (which would end the run with 130 silently)
    to the error boundary, which says what the interrupt left."""

    def __init__(self, interrupt: BaseException) -> None:
        super().__init__("stopped")
        self.interrupt = interrupt


class MemcliGroup(TyperGroup):
    def list_commands(self, ctx: Any) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        return load_command(cmd_name) if cmd_name in COMMANDS else None

    def invoke(self, ctx: Any) -> Any:
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            raise StoppedRun(exc) from exc

    def resolve_command(self, ctx: Any, args: list[str]) -> Any:
        name = args[0] if args else ""
        if name and name not in COMMANDS and not name.startswith("-") and not ctx.resilient_parsing:
            from difflib import get_close_matches

            close = get_close_matches(name, list(COMMANDS), n=2, cutoff=0.6)
            hint = (
                "did you mean " + " or ".join(f"`memcli {c}`" for c in close) + "?"
                if close
                else "`memcli --help` lists the commands"
            )
            raise UsageError(f"no such command {name!r}", hint)
        return super().resolve_command(ctx, args)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(name, short) for name, (_, _, short) in COMMANDS.items()])

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        argv = hoist_global_options(sys.argv[1:] if args is None else args)
        verbose = any(a in ("-v", "-vv", "-vvv", "--verbose") for a in argv)
        as_json = "--json" in (argv[: argv.index("--")] if "--" in argv else argv)
        changes = _changes()
        if changes is not None:
            changes.reset()
        written = _written()
        if written is not None:
            written.data = False
        failure: tuple[str, str | None] | None = None  # what went wrong and how to fix it
        try:
            result = super().main(
                argv,
                prog_name=prog_name or "memcli",
                complete_var=complete_var,
                standalone_mode=False,
                windows_expand_args=windows_expand_args,
                **extra,
            )
            code = result if isinstance(result, int) else 0
        except MemcliError as exc:
            error_line(exc.one_line())
            failure, code = (exc.message, exc.hint), exc.exit_code
        except click_exceptions.NoArgsIsHelpError as exc:
            sys.stdout.write(exc.ctx.get_help() + "\n" if exc.ctx else "")
            code = 0
        except click_exceptions.ClickException as exc:
            ctx = getattr(exc, "ctx", None)
            fix = f"see `{ctx.command_path} --help`" if ctx is not None else None
            error_line(exc.format_message() + (f" ({fix})" if fix else ""))
            failure, code = (exc.format_message(), fix), exc.exit_code
        except StoppedRun as exc:
            said = stopped_line(exc.interrupt)
            sys.stderr.write(said)
            failure, code = (said.removeprefix("memcli: ").strip(), None), 130
        except (typer.Abort, KeyboardInterrupt) as exc:
            said = stopped_line(exc)
            sys.stderr.write(said)
            failure, code = (said.removeprefix("memcli: ").strip(), None), 130
        except OSError as exc:
            where = f" {exc.filename}" if exc.filename else ""
            message = f"cannot use{where}: {exc.strerror or exc}; nothing more was written"
            error_line(message)
            failure, code = (message, None), 3
        except Exception as exc:  # the last line of defence: one line, not a traceback
            if verbose:
                raise
            message = f"internal error ({type(exc).__name__}: {exc})"
            error_line(f"{message}; run with -v for details")
            failure, code = (message, "run with -v for details"), EXIT_INTERNAL
        written = _written()
        if failure is not None and as_json and not (written is not None and written.data):
            error_json(*failure, code)
        if standalone_mode:
            sys.exit(code)
        return code


app = typer.Typer(
    cls=MemcliGroup,
    name="memcli",
    help=(
        "Keep an AI agent's file-based memory healthy: MEMORY.md, daily notes in "
        "memory/YYYY-MM-DD.md and session transcripts.\n\n"
        "Global options (-w, --config, --now, --state-dir, --agent, --json, -q, -v, --color) "
        "may come before or after the command. Exit codes: 0 ok, 1 problems found, 2 usage, "
        "3 bad data, 4 conflict or lock, 130 stopped by Ctrl-C.\n\n"
        "Start with `memcli status`, then `memcli gc --dry-run`; `memcli COMMAND --help` shows "
        "each command's options and examples."
    ),
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"memcli {__version__}\n")
        raise typer.Exit(0)


@app.callback()
def root(
    ctx: typer.Context,
    workspace: Annotated[
        str | None,
        typer.Option(
            "-w",
            "--workspace",
            metavar="PATH",
            help="Workspace folder. Default: $MEMCLI_WORKSPACE, the current folder if it holds "
            "MEMORY.md or memory/, then ~/.openclaw/workspace.",
        ),
    ] = None,
    config: Annotated[
        str | None,
        typer.Option("--config", metavar="FILE", help="Config file (default: <workspace>/memcli.toml)."),
    ] = None,
    now: Annotated[
        str | None,
        typer.Option(
            "--now",
            metavar="ISO",
            help="Pretend it is this time (also $MEMCLI_NOW); every age and date uses it.",
        ),
    ] = None,
    state_dir: Annotated[
        str | None,
        typer.Option(
            "--state-dir",
            metavar="PATH",
            help="OpenClaw's state folder, where its agents keep their sessions. Default: "
            "$OPENCLAW_STATE_DIR, then ~/.openclaw.",
        ),
    ] = None,
    agent: Annotated[
        str | None,
        typer.Option(
            "--agent",
            metavar="ID",
            help="The OpenClaw agent whose sessions to work on (one whose workspace this is); "
            "without -w, its workspace is the workspace.",
        ),
    ] = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")] = False,
    quiet: Annotated[
        bool, typer.Option("-q", "--quiet", help="Only data and errors: no notes, warnings or progress.")
    ] = False,
    verbose: Annotated[
        int,
        typer.Option(
            "-v",
            "--verbose",
            count=True,
            show_default=False,
            help="More detail on stderr, with the time of each phase.",
        ),
    ] = 0,
    color: Annotated[
        ColorMode,
        typer.Option(
            "--color",
            metavar="[auto|always|never]",
            help="Colour: auto (on a terminal, unless $NO_COLOR is set), always, or never.",
        ),
    ] = ColorMode.AUTO,
    version: Annotated[
        bool,
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version."),
    ] = False,
) -> None:
    ctx.obj = GlobalOptions(
        workspace, config, now, json_output, quiet, verbose, state_dir, agent, color.value
    )
