"""What the reliability tests share: memcli run as a real process and killed with SIGKILL at
a write seam or at an instant, the workspace with a session store they run on, and the
run counts.

Seams (counted across the whole run; a run is killed on the k-th pass of one of them):
- `locked`: just after a lock is taken (OpenClaw's `sessions.json.lock`, a transcript's
  `<file>.lock`, or the workspace lock `.memcli/lock`);
- `before_append` / `after_append`: around each append (`files.append_bytes`: a flushed
  block added to today's note, a compaction entry added to a transcript, lines carried);
- `before_replace` / `after_replace`: around each rename over a file (the session store's
  temp file renamed over `sessions.json`, a note or MEMORY.md rewritten by
  `files.atomic_write`); `before_replace` also comes before the link that creates a new
  file (today's note made by a flush);
- `after_link`: just after each hard link memcli makes (a note moved to or from the
  archive is linked, then unlinked; a replaced file is linked under `.memcli/carry/`; a new
  file is linked into place).
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from typer.testing import Result

from conftest import NOW, SAMPLE, copy_tree, tree_bytes
from memcli.core.roles import TEMP_SUFFIX

# CI's short mode runs this many killed runs per command; the long run sets it to 300.
RUNS = int(os.environ.get("RELIABILITY_RUNS", "12"))
NOW_MS = int(datetime.fromisoformat(NOW).timestamp() * 1000)
TODAY_NOTE = "memory/2026-10-31.md"  # NOW in the sample's time zone (Asia/Shanghai)
YESTERDAY_NOTE = "memory/2026-10-30.md"
STORE = "sessions.json"
MAIN = "agent:main:main"
TELEGRAM = "agent:main:telegram:direct:5550123"
SUBAGENT = "agent:main:subagent:7f3a2b"
MAIN_TRANSCRIPT = "sessions/557162e6-8f6b-408f-b841-b47d8b9a3652.jsonl"
STATE = ".memcli/"
SEAMS = ("locked", "before_append", "after_append", "before_replace", "after_replace")
LINK_SEAM = "after_link"

KILLER = r"""
import contextlib, json, os, signal, sys

seam, k = sys.argv[1], int(sys.argv[2])
counts = {}


def hit(name):
    counts[name] = counts.get(name, 0) + 1
    if name == seam and counts[name] == k:
        os.kill(os.getpid(), signal.SIGKILL)


import memcli.compact
import memcli.flush
from memcli.workspace import files, lock, notes, session_store, transaction, transcripts

real_store_lock = session_store.store_lock


@contextlib.contextmanager
def store_lock(*args, **kwargs):
    with real_store_lock(*args, **kwargs):
        hit("locked")
        yield


session_store.store_lock = store_lock
memcli.compact.store_lock = store_lock
real_acquire = lock.WorkspaceLock.acquire


def acquire(self):
    held = real_acquire(self)
    hit("locked")
    return held


lock.WorkspaceLock.acquire = acquire
real_append = files.append_bytes


def append_bytes(path, data):
    hit("before_append")
    real_append(path, data)
    hit("after_append")


for module in (files, notes, transcripts):
    module.append_bytes = append_bytes


class Os:
    # the view of os of the modules that rename: every rename over a file passes the seams
    def __getattr__(self, name):
        return getattr(os, name)

    def replace(self, src, dst):
        hit("before_replace")
        os.replace(src, dst)
        hit("after_replace")

    def link(self, src, dst, **kwargs):
        os.link(src, dst, **kwargs)
        hit("after_link")


def before_link(temp, target):
    # atomic_write's own seam comes before its rename (counted above) and before the link
    # that creates a new file: only the link is counted here
    if not os.path.lexists(target):
        hit("before_replace")


files.os = session_store.os = transaction.os = Os()
files.before_replace = before_link
from memcli.cli.app import app

try:
    app(sys.argv[3:], prog_name="memcli")
finally:
    sys.stderr.write("\nSEAMS " + json.dumps(counts) + "\n")
"""


def memcli_args(root: Path, args: Sequence[str]) -> list[str]:
    return ["-w", str(root), "--now", NOW, "-q", *args]


@dataclass(frozen=True)
class Run:
    rc: int
    stderr: str
    seams: dict[str, int]  # how often each seam was passed (a killed run: until the kill)

    @property
    def killed(self) -> bool:
        return self.rc == -signal.SIGKILL


def _start(argv: Sequence[str], err: IO[bytes]) -> subprocess.Popen[bytes]:
    # stderr to a file, not a pipe: a killed run's forked workers may outlive it holding the
    # pipe, and reading it to its end would wait for them (see orphans())
    return subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=err)


def _finish(proc: subprocess.Popen[bytes], err: IO[bytes]) -> tuple[int, str]:
    rc = proc.wait(timeout=120)
    err.seek(0)
    return rc, err.read().decode("utf-8", "replace")


def run_at_seam(root: Path, args: Sequence[str], seam: str, k: int) -> Run:
    """memcli in a subprocess, killed on the k-th pass of `seam` (k = 0: never)."""
    with tempfile.TemporaryFile() as err:
        proc = _start([sys.executable, "-c", KILLER, seam, str(k), *memcli_args(root, args)], err)
        rc, text = _finish(proc, err)
    found = re.findall(r"^SEAMS (\{.*\})$", text, re.MULTILINE)
    return Run(rc, text, json.loads(found[-1]) if found else {})


def run_killed_after(root: Path, args: Sequence[str], delay: float, trigger: Path | None = None) -> Run:
    """`python -m memcli` in a subprocess, SIGKILLed `delay` seconds after `trigger` appears
    (after the start when None, or when it never appears). A run that ends first is not
    killed: its exit code is returned."""
    with tempfile.TemporaryFile() as err:
        proc = _start([sys.executable, "-m", "memcli", *memcli_args(root, args)], err)
        start = time.monotonic()
        if trigger is not None:
            while not trigger.exists() and proc.poll() is None and time.monotonic() - start < 60:
                time.sleep(0.0005)
            start = time.monotonic()
        while proc.poll() is None and time.monotonic() - start < delay:
            time.sleep(min(0.001, max(0.0, delay - (time.monotonic() - start))))
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
        rc, text = _finish(proc, err)
    return Run(rc, text, {})


def lock_to_exit_seconds(root: Path, args: Sequence[str], trigger: Path) -> float:
    """An uncrashed run: the time from `trigger` appearing to its end (0 if it was missed)."""
    with tempfile.TemporaryFile() as err:
        proc = _start([sys.executable, "-m", "memcli", *memcli_args(root, args)], err)
        while not trigger.exists() and proc.poll() is None:
            time.sleep(0.0005)
        seen = time.monotonic() if proc.poll() is None else None
        rc, text = _finish(proc, err)
    assert rc == 0, text
    return time.monotonic() - seen if seen is not None else 0.0


def orphans(root: Path) -> list[int]:
    """memcli processes still at work on `root` (`-w ROOT` in their arguments) once the run
    is over: the fork-started workers (memcli.parallel) of a run that was killed."""
    want = os.fsencode(str(root))
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            argv = Path(entry.path, "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if any(a == b"-w" and b == want for a, b in itertools.pairwise(argv)):
            found.append(int(entry.name))
    return found


DYING_SECONDS = 2.0  # a worker the kernel sent SIGKILL (its parent died) is gone by then


def reap(root: Path) -> int:
    """SIGKILL the orphans of a killed run on `root` (they are this test's own processes);
    return how many there were. A worker still exiting when its killed parent has been
    waited for (the parent-death signal is on its way; a big heap takes a while to free on
    a loaded machine) is given DYING_SECONDS to go by itself before it counts: an orphan
    that outlives its parent waits for work for ever."""
    pids = orphans(root)
    deadline = time.monotonic() + DYING_SECONDS
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.01)
    pids = [pid for pid in pids if _running(pid)]
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.01)
    return len(pids)


def _running(pid: int) -> bool:
    """Alive and not a zombie waiting for init to reap it."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


# --- what a workspace holds ---------------------------------------------------------------


def user_bytes(root: Path) -> dict[str, bytes]:
    """Every file outside .memcli/, without memcli's temp files and lock files."""
    return {
        rel: data
        for rel, data in tree_bytes(root).items()
        if not rel.startswith(STATE) and not rel.endswith(TEMP_SUFFIX) and not rel.endswith(".lock")
    }


def temp_files(root: Path) -> list[str]:
    return sorted(rel for rel in tree_bytes(root) if not rel.startswith(STATE) and rel.endswith(TEMP_SUFFIX))


def lock_files(root: Path) -> list[str]:
    return sorted(rel for rel in tree_bytes(root) if not rel.startswith(STATE) and rel.endswith(".lock"))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def lock_holder(path: Path) -> int | None:
    """The pid in an OpenClaw-style lock file; None when it is empty or torn (another
    writer's, between its exclusive creation and its write: memcli takes such a lock as live
    until it is 30 s old; memcli's own lock appears with its record in it)."""
    try:
        return int(json.loads(path.read_text(encoding="utf-8"))["pid"])
    except (ValueError, KeyError, TypeError):
        return None


def store_of(root: Path) -> dict[str, Any]:
    data = json.loads((root / STORE).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


# --- the workspace ------------------------------------------------------------------------

# Fields of a session memcli may change; every other one must stay as it is, in its place.
MEMCLI_FIELDS = frozenset(
    {"memoryFlushAt", "memoryFlushCompactionCount", "compactionCount", "totalTokens", "totalTokensFresh"}
)
UNKNOWN = {
    "x-test-nested": {"list": [1, "二", None, True, 2.5, {"deep": ["€", "𝄞"]}], "empty": {}},
    "skillsSnapshot": {"prompt": "工具：read, write\n\tline two", "version": 7},
}
TODAY_TEXT = (
    "# 2026-10-31\n\n- **08:40** — deployed atlas-api on port 8080\n"
    "- 早上跟 Priya 对了一下 v3.1 的范围\n- [ ] 下午看一下 staging 的告警\n"
)


def copy_workspace(src: Path, dst: Path) -> Path:
    """A copy (conftest.copy_tree makes every file 0644), the store back to OpenClaw's 0600."""
    copy_tree(src, dst)
    os.chmod(dst / STORE, 0o600)
    return dst


def sessions_workspace(root: Path, today: bool) -> Path:
    """The sample workspace (two due sessions with transcripts, a cron one), where the
    store also holds fields memcli does not know and a session without a transcript, is
    mode 0600 as OpenClaw writes it, and (with `today`) today's note exists already."""
    copy_tree(SAMPLE, root)
    shutil.rmtree(root / ".memcli", ignore_errors=True)
    store = json.loads((root / STORE).read_text(encoding="utf-8"))
    store[MAIN].update(UNKNOWN)
    # due for a compaction, already flushed in this compaction cycle
    store[TELEGRAM].update(
        totalTokens=186_000, memoryFlushAt=NOW_MS - 3_600_000, memoryFlushCompactionCount=0
    )
    store[SUBAGENT] = {
        "sessionId": "0b8e2f5c-1d7a-4c3e-9f00-7f3a2b000000",
        "updatedAt": 1793320000000,
        "spawnedBy": MAIN,
        "label": "子任务：导出报表",
        "totalTokens": 1200,
        "contextTokens": 200000,
        "abortedLastRun": True,
        **UNKNOWN,
    }
    (root / STORE).write_text(json.dumps(store, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.chmod(root / STORE, 0o600)
    if today:
        (root / TODAY_NOTE).write_text(TODAY_TEXT, encoding="utf-8")
    return root


def assert_clean(result: Result, allowed: tuple[int, ...], *named: str) -> None:
    """Exit code among `allowed`; never a traceback; an error is one line naming what it is about."""
    assert result.exit_code in allowed, (
        result.exit_code,
        result.stdout[-500:],
        result.stderr[-2000:],
        result.exception,
    )
    assert "Traceback" not in result.stderr + result.stdout
    if result.exit_code in (2, 3, 4):
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("memcli: error: "), result.stderr
        for name in named:
            assert name in lines[0], (name, lines[0])


class BackgroundWriter:
    """A separate process running `script` (argv: workspace, stop file, *args) that appends
    numbered lines until the stop file appears, then prints how many it appended to each
    file; it has started once MEMORY.md holds its fifth line."""

    def __init__(self, root: Path, stop_file: Path, script: str, *args: str) -> None:
        self.root = root
        self.stop_file = stop_file
        self.proc = subprocess.Popen(
            [sys.executable, "-c", script, str(root), str(stop_file), *args],
            stdout=subprocess.PIPE,
            text=True,
        )

    def wait_started(self) -> None:
        deadline = time.monotonic() + 30
        while "core append 000005" not in (self.root / "MEMORY.md").read_text(encoding="utf-8"):
            assert self.proc.poll() is None and time.monotonic() < deadline, "the writer did not start"
            time.sleep(0.01)

    def stop(self) -> int:
        self.stop_file.touch()
        out, _ = self.proc.communicate(timeout=60)
        assert self.proc.returncode == 0
        return int(out.split()[-1])

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def report(test: str, **counts: int) -> None:
    """Print a test's counts (`pytest -s`) and append them as a JSON line to the file
    RELIABILITY_REPORT names, if any."""
    print(f"\n{test}: " + ", ".join(f"{v} {k}" for k, v in counts.items()))
    named = os.environ.get("RELIABILITY_REPORT")
    if named:
        with open(named, "a", encoding="utf-8") as f:
            f.write(json.dumps({"test": test, **counts}) + "\n")
