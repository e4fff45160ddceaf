"""Automation text (SPEC §11): the git pre-commit hook script and the cron and systemd lines.

Pure rules, no disk and no processes: `memcli hook` and `memcli schedule` do the I/O.
Which files are memory files is decided here once, for the hook's git pathspecs and
for the `files` regex of `.pre-commit-hooks.yaml` (tests/test_precommit.py compares them).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from memcli.core.roles import CORE_NAMES, MEMORY_DIR, STATE_DIR
from memcli.errors import UsageError

# --- memory files ------------------------------------------------------------------

# Files whose name alone makes them memory, wherever they are in a repository.
MEMORY_FILE_NAMES = (*CORE_NAMES, "sessions.json", "memcli.toml")

# The `files` regex of `.pre-commit-hooks.yaml` (pre-commit applies it with re.search to
# paths relative to the repository root, "/"-separated).
MEMORY_FILES_REGEX = (
    r"(^|/)(" + "|".join(re.escape(n) for n in MEMORY_FILE_NAMES) + "|" + re.escape(MEMORY_DIR) + r"/.+\.md)$"
)
_MEMORY_FILES = re.compile(MEMORY_FILES_REGEX)

# The same selection as git pathspecs (the hook's filter, so that git does the matching
# and the shell never has to split file names).
GIT_PATHSPECS = (
    *(f":(glob)**/{name}" for name in MEMORY_FILE_NAMES),
    f":(glob)**/{MEMORY_DIR}/**/*.md",
)


def is_memory_path(rel: str) -> bool:
    """A repository-relative POSIX path the hook and the pre-commit hook check."""
    return _MEMORY_FILES.search(rel) is not None


# --- the pre-commit hook -------------------------------------------------------------

HOOK_NAME = "pre-commit"
HOOK_MARKER = "# memcli-hook: pre-commit"
HOOK_FORMAT = 2  # 2: `check --staged` reads the index (1 passed the working tree's files)
BACKUP_TAG = "# memcli-backup: "
PYTHON_VAR = "memcli_python="
BACKUP_BASE = HOOK_NAME + ".memcli-backup"
_BACKUP_NAME = re.compile(re.escape(BACKUP_BASE) + r"(\.[0-9]+)?")


def python_argv(python: str) -> list[str]:
    """How a hook or a job starts memcli: the interpreter that runs now, by absolute path.

    `-P` (Python 3.11+) keeps the current folder off sys.path, so a folder named memcli/
    in the repository being committed (or in $HOME, cron's folder) cannot stand in for it.
    """
    return [python, "-P", "-m", "memcli"]


# What the hook asks git for: the memory files a commit adds, copies, modifies, renames or
# retypes (a link turned into a file); a deleted file commits nothing to check.
STAGED_FILTER = "--diff-filter=ACMRT"


def hook_script(python: str, backup: str | None = None) -> str:
    """The POSIX sh pre-commit hook: `memcli check --staged`, the staged content (the index) of
    the memory files the commit adds or changes; a commit that stages none passes at once."""
    specs = " ".join(shlex.quote(s) for s in GIT_PATHSPECS)
    names = ", ".join([*CORE_NAMES, f"{MEMORY_DIR}/**/*.md", *MEMORY_FILE_NAMES[len(CORE_NAMES) :]])
    run = " ".join(['"$memcli_python"', *python_argv("")[1:]])
    lines = [
        "#!/bin/sh",
        f"{HOOK_MARKER} v{HOOK_FORMAT} (by `memcli hook install`; `memcli hook uninstall` removes it)",
    ]
    if backup is not None:
        lines.append(f"{BACKUP_TAG}{backup}")
    lines += [
        "#",
        "# Runs `memcli check --staged`: the memory files this commit adds or changes",
        f"# ({names}, anywhere in the repository),",
        "# as they are staged (the index, what is committed), not as the working tree holds them;",
        "# a commit that stages none of them passes at once. check's exit status decides the commit;",
        "# `git commit --no-verify` skips the hook once.",
        f"{PYTHON_VAR}{shlex.quote(python)}",
        f"set -- {specs}",
        "unset GIT_LITERAL_PATHSPECS GIT_GLOB_PATHSPECS GIT_NOGLOB_PATHSPECS GIT_ICASE_PATHSPECS",
        f'git diff --cached --quiet {STAGED_FILTER} -- "$@"',
        "case $? in",
        "    0) exit 0 ;;",
        "    1) ;;",
        '    *) echo "memcli pre-commit hook: git diff failed; the commit was stopped" >&2; exit 1 ;;',
        "esac",
        'if [ ! -x "$memcli_python" ]; then',
        '    echo "memcli pre-commit hook: $memcli_python is gone; run \\`memcli hook install\\` again'
        ' (or skip once with \\`git commit --no-verify\\`)" >&2',
        "    exit 1",
        "fi",
        f"{run} check --staged",
        "status=$?",
        'if [ "$status" -ne 0 ]; then',
        '    echo "memcli pre-commit hook: the commit was stopped (see \\`memcli check --staged\\` above);'
        ' fix the notes and \\`git add\\` them again, or skip once with \\`git commit --no-verify\\`" >&2',
        "    exit 1",
        "fi",
        "exit 0",
    ]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True, slots=True)
class HookInfo:
    ours: bool
    python: str | None
    backup: str | None  # a file name in the hooks folder


def read_hook(text: str) -> HookInfo:
    """What a pre-commit hook's text says about itself: memcli's or not, and its records."""
    ours = any(line.startswith(HOOK_MARKER) for line in text.splitlines()[:3])
    if not ours:
        return HookInfo(False, None, None)
    python = backup = None
    for line in text.splitlines():
        if line.startswith(BACKUP_TAG):
            name = line[len(BACKUP_TAG) :].strip()
            backup = name if _BACKUP_NAME.fullmatch(name) else None
        elif line.startswith(PYTHON_VAR):
            try:
                words = shlex.split(line[len(PYTHON_VAR) :])
            except ValueError:
                words = []
            python = words[0] if len(words) == 1 else None
    return HookInfo(True, python, backup)


def backup_name(taken: Iterable[str]) -> str:
    """The first free backup name: pre-commit.memcli-backup, then .1, .2, …"""
    used = set(taken)
    if BACKUP_BASE not in used:
        return BACKUP_BASE
    n = 1
    while f"{BACKUP_BASE}.{n}" in used:
        n += 1
    return f"{BACKUP_BASE}.{n}"


# --- schedules -----------------------------------------------------------------------

FLUSH_STEPS = (1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30, 60)
UNIT_DIR = "~/.config/systemd/user"


def parse_time_of_day(text: str, option: str = "--gc-at") -> tuple[int, int]:
    m = re.fullmatch(r"\s*([01]?[0-9]|2[0-3]):([0-5][0-9])\s*", text)
    if m is None:
        raise UsageError(
            f"{option} {text!r} is not a time of day", "use HH:MM from 00:00 to 23:59, e.g. 03:00"
        )
    return int(m.group(1)), int(m.group(2))


def check_flush_every(minutes: int, option: str = "--flush-every") -> int:
    if minutes != 0 and minutes not in FLUSH_STEPS:
        steps = ", ".join(str(s) for s in FLUSH_STEPS)
        raise UsageError(
            f"{option} {minutes} does not divide the hour, so the runs would not be evenly spaced",
            f"use one of {steps} (minutes), or 0 for no flush job",
        )
    return minutes


@dataclass(frozen=True, slots=True)
class Job:
    name: str  # the memcli command: gc, flush
    argv: tuple[str, ...]  # the command to run, absolute paths
    cron: str  # the five time fields
    calendar: str  # systemd OnCalendar=
    persistent: bool  # systemd Persistent= (run a missed nightly job at the next boot)
    log: str  # the file cron appends its output to
    what: str  # a human description of when


def jobs(python: str, workspace: str, gc_at: tuple[int, int], flush_every: int) -> list[Job]:
    """The nightly gc and, unless flush_every is 0, the frequent flush."""
    state = f"{workspace.rstrip('/')}/{STATE_DIR}"
    base = [*python_argv(python), "-w", workspace]
    hour, minute = gc_at
    out = [
        Job(
            "gc",
            (*base, "gc"),
            f"{minute} {hour} * * *",
            f"*-*-* {hour:02d}:{minute:02d}:00",
            True,
            f"{state}/gc.log",
            f"every night at {hour:02d}:{minute:02d}",
        )
    ]
    if flush_every:
        every = "hour" if flush_every == 60 else f"{flush_every} minutes"
        out.append(
            Job(
                "flush",
                (*base, "flush"),
                "0 * * * *" if flush_every == 60 else f"*/{flush_every} * * * *",
                "hourly" if flush_every == 60 else f"*:0/{flush_every}",
                False,
                f"{state}/flush.log",
                f"every {every}",
            )
        )
    return out


def shell_command(job: Job, workspace: str) -> str:
    """The sh command cron runs: memcli's output and errors appended to the job's log, each
    run headed by its time, the state folder created first if it is not there yet (in the
    workspace: a workspace that is gone makes the job fail, it is not created again)."""
    run = " ".join(shlex.quote(a) for a in job.argv)
    stamp = f'echo "--- $(date) memcli {job.name}"'
    return (
        f"cd {shlex.quote(workspace)} && mkdir -p {STATE_DIR} && {{ {stamp}; {run}; }} "
        f">> {shlex.quote(job.log)} 2>&1"
    )


def cron_escape(command: str) -> str:
    """cron turns an unescaped % into a newline (and feeds the rest to stdin)."""
    return command.replace("%", "\\%")


def cron_unescape(command: str) -> str:
    return command.replace("\\%", "%")


def cron_line(job: Job, workspace: str) -> str:
    return f"{job.cron} {cron_escape(shell_command(job, workspace))}"


_SYSTEMD_BARE = re.compile(r"[A-Za-z0-9_./:=+,@-]+")


def systemd_escape(text: str) -> str:
    """Specifiers (%) and variables ($) taken literally in a unit file value."""
    return text.replace("%", "%%").replace("$", "$$")


def systemd_word(word: str) -> str:
    """One ExecStart= argument: bare when safe, else in double quotes (C-style escapes)."""
    word = systemd_escape(word)
    if _SYSTEMD_BARE.fullmatch(word):
        return word
    escaped = word.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def systemd_unit_names(job: Job) -> tuple[str, str]:
    return f"memcli-{job.name}.service", f"memcli-{job.name}.timer"


def systemd_units(job: Job, workspace: str) -> list[tuple[str, str]]:
    """(file name, text) of the .service and the .timer of one job (user units)."""
    service, timer = systemd_unit_names(job)
    where = systemd_escape(workspace)
    service_text = "\n".join(
        [
            "[Unit]",
            f"Description=memcli {job.name} for {where}",
            "",
            "[Service]",
            "Type=oneshot",
            "ExecStart=" + " ".join(systemd_word(a) for a in job.argv),
            "",
        ]
    )
    timer_lines = [
        "[Unit]",
        f"Description=memcli {job.name} {job.what} for {where}",
        "",
        "[Timer]",
        f"OnCalendar={job.calendar}",
    ]
    if job.persistent:
        timer_lines.append("Persistent=true")
    timer_lines += [f"Unit={service}", "", "[Install]", "WantedBy=timers.target", ""]
    return [(service, service_text), (timer, "\n".join(timer_lines))]


def systemd_commands(job_list: Sequence[Job]) -> list[str]:
    timers = " ".join(systemd_unit_names(j)[1] for j in job_list)
    return ["systemctl --user daemon-reload", f"systemctl --user enable --now {timers}"]
