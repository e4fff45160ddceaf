"""`memcli schedule`: cron lines or systemd user timers for a nightly gc and a frequent flush.

Prints only; installs nothing. Every path is absolute: the Python that runs this memcli,
the workspace, the log files.
"""

from __future__ import annotations

import os
import sys
import textwrap
from dataclasses import replace
from typing import Annotated, Any

import typer

from memcli.cli.common import output, runtime
from memcli.cli.output import Output
from memcli.core.automation import (
    UNIT_DIR,
    Job,
    check_flush_every,
    cron_line,
    jobs,
    parse_time_of_day,
    shell_command,
    systemd_commands,
    systemd_units,
)
from memcli.core.roles import STATE_DIR
from memcli.errors import UsageError

HEREDOC_END = "MEMCLI_UNIT"


def lock_note(timeout: float) -> str:
    """What the workspace lock does to overlapping runs (memcli/workspace/lock.py)."""
    return (
        f"Overlapping runs are kept apart by locks: gc holds the workspace lock ({STATE_DIR}/lock) "
        f"for its whole run; flush holds OpenClaw's lock on sessions.json while it flushes the "
        f"sessions that are due (an OpenClaw 2026.8+ database is only read; memcli's record of it "
        f"has its own lock) and takes the workspace lock to append to today's note. A run that "
        f"finds a lock held waits up "
        f"to lock_timeout_seconds ({timeout:g} s here), then gives up with exit 4 before writing what "
        f"the lock guards; the next run catches up. A lock left by a process that died is taken over."
    )


def schedule(
    ctx: typer.Context,
    cron: Annotated[bool, typer.Option("--cron", help="Crontab lines (the default).")] = False,
    systemd: Annotated[
        bool,
        typer.Option("--systemd", help="A .service and a .timer per job, as systemd user units."),
    ] = False,
    gc_at: Annotated[
        str,
        typer.Option(
            "--gc-at", metavar="HH:MM", help="When the nightly gc runs (local time of the machine)."
        ),
    ] = "03:00",
    flush_every: Annotated[
        int,
        typer.Option(
            "--flush-every",
            metavar="MINUTES",
            help="Minutes between flushes: a divisor of 60 (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60); "
            "0 leaves the flush job out.",
        ),
    ] = 15,
) -> None:
    """Print ready-to-paste cron lines (or systemd user timers) for a nightly `memcli gc` and a
    `memcli flush` every 15 minutes, for this workspace.

    The jobs run this very memcli by absolute path (its Python, `-P -m memcli`), with the
    workspace as -w and OpenClaw's state folder as --state-dir (cron knows no
    OPENCLAW_STATE_DIR), and --agent when one was chosen. cron appends each job's output to
    <workspace>/.memcli/gc.log and flush.log; systemd keeps it in the journal. Nothing is
    installed: paste the lines with `crontab -e`, or paste the --systemd snippet into a shell
    (it writes the units to ~/.config/systemd/user/ and enables the timers).
    """
    if cron and systemd:
        raise UsageError("--cron and --systemd exclude each other", "pick one (cron is the default)")
    at = parse_time_of_day(gc_at)
    every = check_flush_every(flush_every)
    run = runtime(ctx)
    out = output(ctx)
    if not sys.executable:
        raise UsageError("cannot tell which Python runs memcli", "run memcli as `python -m memcli`")
    python = os.path.abspath(sys.executable)
    workspace = str(run.root)
    openclaw = run.openclaw()
    # cron and systemd run without the shell's OPENCLAW_STATE_DIR: the state folder (and the
    # agent chosen) go into the lines themselves
    where = ["--state-dir", str(openclaw.state)] + (["--agent", run.agent] if run.agent else [])
    job_list = [with_options(j, workspace, where) for j in jobs(python, workspace, at, every)]
    note = lock_note(run.policy.lock_timeout_seconds)
    if systemd:
        _systemd(out, job_list, workspace, python, note)
    else:
        _cron(out, job_list, workspace, python, note)


def with_options(job: Job, workspace: str, extra: list[str]) -> Job:
    """The job with `extra` global options after its `-w WORKSPACE`."""
    argv = list(job.argv)
    at = argv.index(workspace, argv.index("-w")) + 1
    return replace(job, argv=(*argv[:at], *extra, *argv[at:]))


def _job_json(job: Job) -> dict[str, Any]:
    return {"name": job.name, "when": job.what, "argv": list(job.argv)}


def _cron(out: Output, job_list: list[Job], workspace: str, python: str, note: str) -> None:
    lines = [cron_line(j, workspace) for j in job_list]
    if out.json_mode:
        out.json(
            {
                "format": "cron",
                "workspace": workspace,
                "python": python,
                "jobs": [
                    {
                        **_job_json(j),
                        "schedule": j.cron,
                        "command": shell_command(j, workspace),
                        "line": line,
                        "log": j.log,
                    }
                    for j, line in zip(job_list, lines, strict=True)
                ],
                "lock": note,
            }
        )
        return
    out.line(f"# memcli for {workspace}: paste these lines into `crontab -e`.")
    for j in job_list:
        out.line(f"# {j.name} {j.what}; its output is appended to {j.log}")
    _comment(out, note)
    for line in lines:
        out.line(line)


def _systemd(out: Output, job_list: list[Job], workspace: str, python: str, note: str) -> None:
    units = [(j, name, text) for j in job_list for name, text in systemd_units(j, workspace)]
    commands = systemd_commands(job_list)
    if out.json_mode:
        out.json(
            {
                "format": "systemd",
                "workspace": workspace,
                "python": python,
                "jobs": [{**_job_json(j), "on_calendar": j.calendar} for j in job_list],
                "units": [
                    {"job": j.name, "name": name, "path": f"{UNIT_DIR}/{name}", "text": text}
                    for j, name, text in units
                ],
                "commands": commands,
                "lock": note,
            }
        )
        return
    out.line(f"# memcli for {workspace}: systemd user units.")
    out.line(f"# Paste this into a shell: it writes the units to {UNIT_DIR}/ and enables the timers.")
    for j in job_list:
        out.line(f"# {j.name} {j.what}")
    names = " ".join(f"-u memcli-{j.name}.service" for j in job_list)
    out.line(f"# Output goes to the journal: journalctl --user {names}")
    out.line('# User timers run only while you are logged in, unless: loginctl enable-linger "$USER"')
    _comment(out, note)
    out.line(f"mkdir -p {UNIT_DIR}")
    for _, name, text in units:
        out.line(f"cat > {UNIT_DIR}/{name} <<'{HEREDOC_END}'")
        out.line(text.rstrip("\n"))
        out.line(HEREDOC_END)
    for command in commands:
        out.line(command)


def _comment(out: Output, text: str) -> None:
    for line in textwrap.wrap(text, 96):
        out.line(f"# {line}")
