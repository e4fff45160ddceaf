"""What `memcli doctor` reads beyond the workspace's notes: the user's crontab and systemd
timers, the host's time zone, memcli's lock and journals, a pre-commit config. Every
function only reads, and none fails when what it looks for is absent."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

from memcli.core.roles import STATE_DIR
from memcli.workspace.files import pid_alive, possible_pid

CRONTAB_SECONDS = 5.0
MAX_READ = 1 << 20
UNIT_FOLDER = Path(".config") / "systemd" / "user"
PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"


@dataclass(frozen=True, slots=True)
class Crontab:
    available: bool  # a `crontab` command is on PATH
    lines: tuple[str, ...] = ()  # the user's crontab, comments and blank lines left out
    problem: str | None = None  # `crontab -l` failed for another reason than an empty table


def read_crontab() -> Crontab:
    """`crontab -l`, when there is a crontab command; none installed is no problem."""
    command = shutil.which("crontab")
    if command is None:
        return Crontab(False)
    try:
        done = subprocess.run(
            [command, "-l"],
            capture_output=True,
            timeout=CRONTAB_SECONDS,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return Crontab(True, problem=f"`crontab -l` failed: {exc}")
    err = os.fsdecode(done.stderr).strip()
    if done.returncode != 0:
        if "no crontab" in err.lower() or not err:
            return Crontab(True)
        return Crontab(True, problem=f"`crontab -l` failed: {err.splitlines()[0]}")
    text = os.fsdecode(done.stdout)
    lines = tuple(
        line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")
    )
    return Crontab(True, lines)


@dataclass(frozen=True, slots=True)
class Timer:
    name: str  # memcli-gc.timer
    path: Path
    enabled: bool  # linked from timers.target.wants/ (what `systemctl --user enable` does)
    service: str  # the text of the service it starts ("" when there is none)


def systemd_timers(home: Path) -> list[Timer]:
    """memcli's systemd user timers, ~/.config/systemd/user/memcli-*.timer, with the
    service each starts."""
    folder = home / UNIT_FOLDER
    try:
        names = sorted(p.name for p in folder.glob("memcli-*.timer"))
    except OSError:
        return []
    found = []
    for name in names:
        path = folder / name
        text = _small_text(path)
        unit = re.search(r"(?m)^\s*Unit\s*=\s*(\S+)", text)
        service = unit.group(1) if unit else name.removesuffix(".timer") + ".service"
        enabled = (folder / "timers.target.wants" / name).exists()
        found.append(Timer(name, path, enabled, _small_text(folder / service)))
    return found


def _small_text(path: Path) -> str:
    try:
        with open(path, "rb") as f:
            return f.read(MAX_READ).decode("utf-8", "replace")
    except OSError:
        return ""


def host_timezone() -> str:
    """The host's zone by name when it can be told ($TZ, /etc/timezone, the /etc/localtime
    link), else its abbreviation."""
    named = os.environ.get("TZ", "").strip().lstrip(":")
    if named:
        return named
    text = _small_text(Path("/etc/timezone")).strip()
    if text:
        return text.splitlines()[0]
    with contextlib.suppress(OSError):
        target = os.path.realpath("/etc/localtime")
        if "zoneinfo/" in target:
            return target.split("zoneinfo/", 1)[1]
    import time

    return time.tzname[0]


@dataclass(frozen=True, slots=True)
class LockState:
    held: bool  # a live process holds it
    stale: bool  # its record names a process that is gone: the next run takes it over
    holder: str | None  # "`memcli gc` (pid 12 on host)"


def lock_state(root: Path) -> LockState:
    """memcli's workspace lock, from its record (never taken: that would be a write)."""
    text = _small_text(root / STATE_DIR / "lock").strip()
    if not text:
        return LockState(False, False, None)
    try:
        data = json.loads(text)
        pid, host, command = int(data["pid"]), str(data["host"]), str(data["command"])
    except (ValueError, KeyError, TypeError):
        return LockState(False, False, None)
    who = f"`memcli {command}` (pid {pid} on {host})"
    if host != socket.gethostname():
        return LockState(True, False, who)  # another machine's: it cannot be told
    alive = possible_pid(pid) and pid_alive(pid)
    return LockState(alive, not alive, who)


@dataclass(frozen=True, slots=True)
class Pending:
    tx: str
    state: str  # "prepared" (a run stopped half way) or "undoing" (an undo stopped half way)
    command: str


def pending_transactions(root: Path) -> list[Pending]:
    """Transactions a killed run left unfinished (the next writing run repairs them)."""
    folder = root / STATE_DIR / "journal"
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    found = []
    for name in names:
        text = _small_text(folder / name / "journal.json")
        if not text:
            continue
        try:
            data = json.loads(text)
        except ValueError:
            continue
        state = str(data.get("state"))
        if state in ("prepared", "undoing"):
            found.append(Pending(name, state, str(data.get("command", "?"))))
    return found


def pre_commit_config(top: Path) -> tuple[Path, bool] | None:
    """The repository's pre-commit framework config, and whether it runs memcli-check."""
    path = top / PRE_COMMIT_CONFIG
    if not path.is_file():
        return None
    return path, bool(re.search(r"\bid:\s*['\"]?memcli-check\b", _small_text(path)))
