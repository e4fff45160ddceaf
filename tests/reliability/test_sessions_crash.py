"""Crash safety of `memcli flush` and `memcli compact` (SPEC §9, §14): each is run as a real
process on a workspace whose sessions are due, and killed with SIGKILL at a write seam
(kit.SEAMS: just after a lock is taken, around each append, around each rename) or at a
random instant after it took OpenClaw's lock; then the next run must finish the work.

Right after the kill: sessions.json is valid JSON holding every session and every field
memcli does not own, in its place, with its mode; every transcript holds its old bytes
(compact only appends, whole lines); today's note holds its old bytes; nothing else changed.

After the next run (it exits 0): no lock is left (a killed run's lock is taken over), no
temp file, and the workspace is what one uncrashed run makes of it: the same store, every
flushed line once, one compaction entry per session and cycle. A third run changes nothing.

RELIABILITY_RUNS (12 by default, the CI run) killed runs per command; the long run sets 300.
The bugs these found (fixed in 0769824 and f975b7c) each keep a deterministic test at
the end.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from conftest import NOW
from memcli.cli.app import app
from memcli.workspace.session_store import store_lock

from .kit import (
    MAIN,
    MAIN_TRANSCRIPT,
    MEMCLI_FIELDS,
    RUNS,
    SEAMS,
    STORE,
    TODAY_NOTE,
    Run,
    alive,
    copy_workspace,
    lock_files,
    lock_holder,
    lock_to_exit_seconds,
    memcli_args,
    orphans,
    run_at_seam,
    run_killed_after,
    sessions_workspace,
    store_of,
    temp_files,
    user_bytes,
)

COMMANDS = {"flush": ("flush",), "compact": ("compact", "--keep-recent-tokens", "100")}
RUNNER = CliRunner()
STORE_LOCK = STORE + ".lock"


def memcli(root: Path, *args: str) -> Result:
    return RUNNER.invoke(app, ["-w", str(root), "--now", NOW, *args])


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr, result.exception)
    assert "Traceback" not in result.stderr, result.stderr
    return result


# --- what one uncrashed run does -----------------------------------------------------------


@dataclass
class Pristine:
    """A workspace before the command, and what one uncrashed run makes of it."""

    root: Path
    files: dict[str, bytes]  # every user file before the run
    store: dict[str, Any]
    expected: dict[str, bytes]
    expected_store: dict[str, Any]
    seams: dict[str, int]  # how often the run passes each seam
    lock_to_exit: float  # seconds from OpenClaw's lock appearing to the end of the run


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, bool], Pristine]:
    """For each command and each start: today's note absent (the flush creates it) or there
    (the flush appends to it)."""
    base = tmp_path_factory.mktemp("pristine")
    out: dict[tuple[str, bool], Pristine] = {}
    for command, args in COMMANDS.items():
        for today in (False, True):
            name = f"{command}-{'today' if today else 'fresh'}"
            root = sessions_workspace(base / name, today)
            clean = copy_workspace(root, base / f"{name}-clean")
            run = run_at_seam(clean, args, "none", 0)
            assert run.rc == 0, run.stderr
            assert user_bytes(clean) != user_bytes(root), f"{name}: nothing to do, nothing to crash"
            timed = [copy_workspace(root, base / f"{name}-t{n}") for n in range(2)]
            seconds = max(lock_to_exit_seconds(t, args, t / STORE_LOCK) for t in timed)
            out[(command, today)] = Pristine(
                root, user_bytes(root), store_of(root), user_bytes(clean), store_of(clean), run.seams, seconds
            )
    return out


# --- the report ------------------------------------------------------------------------------

STATS: dict[str, Counter[str]] = {command: Counter() for command in COMMANDS}


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    lines = []
    for command, s in STATS.items():
        if s["runs"]:
            lines.append(
                f"{command}: {s['runs']} runs, {s['kills']} killed ({s['seam_kills']} at seams, "
                f"{s['time_kills']} at instants; {s['finished']} finished before the kill), "
                f"{s['stale_locks']} stale locks taken over ({s['stale_locks_left']} not needed, left), "
                f"{s['appended']} lines appended by the runs, "
                f"{s['lost']} lost, {s['doubled']} doubled; {s['temps']} temp files and "
                f"{s['unrecorded']} unrecorded compactions left by a kill, finished by the next run"
            )
            named = os.environ.get("RELIABILITY_REPORT")
            if named:
                with open(named, "a", encoding="utf-8") as f:
                    f.write(json.dumps({"test": f"sessions-crash-{command}", **s}) + "\n")
    if lines:
        print("\n" + "\n".join(lines))


# --- the kill ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Crash:
    command: str
    today: bool  # today's note exists before the run
    how: str  # a seam of kit.SEAMS, or "time"
    k: int  # killed on the k-th pass of the seam
    delay: float  # "time": seconds after OpenClaw's lock appeared

    def __str__(self) -> str:
        at = f"{self.delay * 1000:.1f} ms after the lock" if self.how == "time" else f"{self.how} #{self.k}"
        start = "today's note there" if self.today else "no today's note"
        return f"{self.command} ({start}): SIGKILL at {at}"


def crash_for(command: str, run: int, pristine: dict[tuple[str, bool], Pristine]) -> Crash:
    rng = random.Random(f"memcli-{command}-crash-{run}")
    today = run % 2 == 1
    p = pristine[(command, today)]
    how = rng.choice([s for s in SEAMS if p.seams.get(s)] + ["time", "time"])
    if how == "time":
        return Crash(command, today, how, 0, rng.uniform(0, p.lock_to_exit))
    return Crash(command, today, how, rng.randint(1, p.seams[how]), 0.0)


def kill(root: Path, crash: Crash) -> Run:
    args = COMMANDS[crash.command]
    if crash.how == "time":
        run = run_killed_after(root, args, crash.delay, root / STORE_LOCK)
        assert run.rc in (0, -signal.SIGKILL), (str(crash), run.rc, run.stderr)
        return run
    run = run_at_seam(root, args, crash.how, crash.k)
    assert run.killed, (str(crash), run.rc, run.stderr)
    return run


# --- the checks ----------------------------------------------------------------------------


def check_store(p: Pristine, root: Path) -> dict[str, Any]:
    """sessions.json: valid JSON, every session in its place, every field memcli does not
    own unchanged and in its place, none added but memcli's, the file's mode kept."""
    store = store_of(root)
    assert list(store) == list(p.store)
    for key, was in p.store.items():
        now = store[key]
        assert [f for f in now if f not in MEMCLI_FIELDS] == [f for f in was if f not in MEMCLI_FIELDS], key
        assert {f: v for f, v in now.items() if f not in MEMCLI_FIELDS} == {
            f: v for f, v in was.items() if f not in MEMCLI_FIELDS
        }, key
    assert stat.S_IMODE(os.stat(root / STORE).st_mode) == 0o600
    return store


def appended_entries(before: bytes, now: bytes, rel: str) -> list[dict[str, Any]]:
    """The entries appended to a transcript: its old bytes untouched, whole JSON lines after."""
    assert now.startswith(before), f"{rel}: the transcript's old bytes changed"
    tail = now[len(before) :]
    assert not tail or tail.endswith(b"\n"), f"{rel}: a torn line was appended"
    entries = [json.loads(line) for line in tail.splitlines()]
    assert all(e.get("type") == "compaction" for e in entries), entries
    return entries


def check_intact(p: Pristine, root: Path) -> dict[str, Any]:
    """What must hold at any instant, killed or not."""
    store = check_store(p, root)
    now = user_bytes(root)
    for rel, data in p.files.items():
        if rel.endswith(".jsonl"):
            appended_entries(data, now[rel], rel)
        elif rel == TODAY_NOTE:
            assert now[rel].startswith(data), "today's note lost bytes"
        elif rel != STORE:
            assert now.get(rel) == data, f"{rel} changed"
    assert set(now) - set(p.files) <= {TODAY_NOTE}, sorted(set(now) - set(p.files))
    if TODAY_NOTE in now and TODAY_NOTE not in p.files:
        assert now[TODAY_NOTE].startswith(b"# 2026-10-31\n"), now[TODAY_NOTE][:100]
    return store


def unrecorded(p: Pristine, root: Path) -> list[str]:
    """Sessions whose transcript got more compaction entries than sessions.json counts."""
    store = store_of(root)
    now = user_bytes(root)
    found = []
    for key, entry in p.store.items():
        rel = entry.get("sessionFile")
        if isinstance(rel, str) and rel in p.files:
            added = len(appended_entries(p.files[rel], now[rel], rel))
            counted = store[key].get("compactionCount", 0) - entry.get("compactionCount", 0)
            if added > counted:
                found.append(key)
    return found


def without_id(entry: dict[str, Any]) -> str:
    return json.dumps({k: v for k, v in entry.items() if k != "id"}, sort_keys=True, ensure_ascii=False)


def lines_of(data: bytes) -> Counter[str]:
    return Counter(line for line in data.decode("utf-8").splitlines() if line.strip())


@dataclass
class Outcome:
    appended: int = 0
    lost: list[str] = field(default_factory=list)
    doubled: list[str] = field(default_factory=list)


def compare(p: Pristine, root: Path) -> Outcome:
    """Against one uncrashed run: every line there before is still there; what the runs
    appended is what one run appends, each line as often (no line lost, none doubled)."""
    out = Outcome()
    now = user_bytes(root)
    for rel, data in p.files.items():
        if rel == STORE:
            continue
        have = Counter(now.get(rel, b"").splitlines())
        out.lost += [f"{rel}: {line!r}" for line, n in Counter(data.splitlines()).items() if have[line] < n]
    for rel, want in p.expected.items():
        before = p.files.get(rel, b"")
        if rel == STORE:
            continue
        if rel.endswith(".jsonl"):
            wanted = Counter(without_id(e) for e in appended_entries(before, want, rel))
            got = Counter(without_id(e) for e in appended_entries(before, now.get(rel, b""), rel))
        else:
            old = lines_of(before)
            wanted = lines_of(want) - old
            got = lines_of(now.get(rel, b"")) - old
        out.appended += sum(got.values())
        out.lost += [f"{rel}: {str(x)[:120]}" for x in (wanted - got).elements()]
        out.doubled += [f"{rel}: {str(x)[:120]}" for x in (got - wanted).elements()]
    return out


@pytest.mark.parametrize("run", range(RUNS))
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_killed_at_any_instant_loses_nothing_and_the_next_run_finishes(
    command: str, run: int, pristine: dict[tuple[str, bool], Pristine], tmp_path: Path
) -> None:
    crash = crash_for(command, run, pristine)
    p = pristine[(command, crash.today)]
    root = copy_workspace(p.root, tmp_path / "ws")
    stats = STATS[command]
    stats["runs"] += 1

    killed = kill(root, crash)
    if killed.killed:
        stats["kills"] += 1
        stats["time_kills" if crash.how == "time" else "seam_kills"] += 1
    else:
        stats["finished"] += 1
    assert orphans(root) == [], f"{crash}: the killed run left processes running"
    check_intact(p, root)
    left_locks, left_temps = lock_files(root), temp_files(root)
    not_recorded = unrecorded(p, root)

    # the next run takes over a lock the killed one left, and finishes the work
    started = time.monotonic()
    ok(memcli(root, *COMMANDS[command]))
    assert time.monotonic() - started < 5, f"{crash}: the next run waited for a dead process's lock"
    # a lock the killed run left is taken over when the next run needs it; one it does not need
    # (nothing left to do under it: the transcript's lock of a session not compacted again, the
    # store's lock when no session is due any more) stays until someone needs it: OpenClaw waits
    # for it up to its 30 s unless it checks the pid
    left = lock_files(root)
    assert set(left) <= set(left_locks), f"{crash}: {left}"
    for rel in left:
        assert (pid := lock_holder(root / rel)) is None or not alive(pid), rel
    stats["stale_locks"] += len(left_locks) - len(left)
    stats["stale_locks_left"] += len(left)
    for rel in left:  # and the next writer takes it over at once
        with store_lock(root / rel.removesuffix(".lock"), wait=1.0):
            pass
        assert not (root / rel).exists()
    store = check_intact(p, root)
    outcome = compare(p, root)
    stats["appended"] += outcome.appended
    stats["lost"] += len(outcome.lost)

    stats["doubled"] += len(outcome.doubled)
    assert outcome.lost == [], f"{crash}: lost {outcome.lost}"
    assert outcome.doubled == [], f"{crash}: doubled {outcome.doubled}"
    # the store is what one uncrashed run makes of it; a compaction the killed run appended
    # but did not record is recorded by the next run, with the tokens it counts then
    stats["unrecorded"] += len(not_recorded)
    for key in not_recorded:
        assert store[key]["compactionCount"] == p.expected_store[key]["compactionCount"], (str(crash), key)
        assert store[key]["totalTokens"] < 180_000, (str(crash), key, store[key]["totalTokens"])
        store[key]["totalTokens"] = p.expected_store[key]["totalTokens"]
    assert store == p.expected_store, crash
    # the temp files a killed run left are removed by the next one
    stats["temps"] += len(left_temps)
    assert temp_files(root) == [], f"{crash}: {temp_files(root)}"
    # a third run has nothing left to do
    before = user_bytes(root)
    ok(memcli(root, *COMMANDS[command]))
    assert user_bytes(root) == before, f"{crash}: a third run changed the workspace"


# --- locks a killed run left ------------------------------------------------------------------


def fresh_workspace(tmp_path: Path) -> Path:
    return sessions_workspace(tmp_path / "ws", today=False)


def test_openclaws_lock_left_by_a_killed_flush_is_taken_over_at_once(tmp_path: Path) -> None:
    root = fresh_workspace(tmp_path)
    assert run_at_seam(root, ("flush",), "locked", 1).killed  # holding sessions.json.lock
    holder = json.loads((root / STORE_LOCK).read_text(encoding="utf-8"))
    assert set(holder) == {"pid", "createdAt"} and not alive(holder["pid"])
    started = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "memcli", *memcli_args(root, ["--json", "flush"])],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert time.monotonic() - started < 5  # not the 10 s a live holder is waited for
    assert not (root / STORE_LOCK).exists()
    main = next(s for s in json.loads(proc.stdout)["sessions"] if s["session"] == MAIN)
    assert main["due"] and main["recorded"] and main["note"] == TODAY_NOTE


def test_a_transcript_lock_left_by_a_killed_compact_is_taken_over(tmp_path: Path) -> None:
    root = fresh_workspace(tmp_path)
    before = (root / MAIN_TRANSCRIPT).read_bytes()
    # locks: the store (flush), the workspace (the flushed block), then the transcript
    assert run_at_seam(root, COMMANDS["compact"], "locked", 3).killed
    lock = root / (MAIN_TRANSCRIPT + ".lock")
    assert lock.exists() and (root / MAIN_TRANSCRIPT).read_bytes() == before
    ok(memcli(root, *COMMANDS["compact"]))
    assert not lock.exists()
    assert len(appended_entries(before, (root / MAIN_TRANSCRIPT).read_bytes(), MAIN_TRANSCRIPT)) == 1
    assert store_of(root)[MAIN]["compactionCount"] == 3


def test_a_live_holder_of_openclaws_lock_gets_a_clear_error(tmp_path: Path) -> None:
    """Not a crash: the error a run gives while the lock is really held (exit 4, the lock
    named, nothing written), which is what a takeover must not be mistaken for."""
    root = fresh_workspace(tmp_path)
    (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\nlock_timeout_seconds = 0.3\n')
    before = user_bytes(root)
    (root / STORE_LOCK).write_text(json.dumps({"pid": os.getpid(), "createdAt": int(time.time() * 1000)}))
    result = memcli(root, "flush")
    assert result.exit_code == 4
    assert "sessions.json.lock is held by another process" in result.stderr
    assert "nothing was written" in result.stderr and "Traceback" not in result.stderr
    assert user_bytes(root) == before


# --- bugs this suite found, one deterministic test each (all fixed) -----------------------------


def test_flush_appends_to_a_todays_note_that_exists(tmp_path: Path) -> None:
    """Found by this suite (fixed in 0769824): flush could not append to today's note once it
    existed; the crash runs above start from both."""
    root = sessions_workspace(tmp_path / "ws", today=True)
    before = (root / TODAY_NOTE).read_bytes()
    ok(memcli(root, "flush", "--session", MAIN))
    after = (root / TODAY_NOTE).read_bytes()
    assert after.startswith(before) and b"## Flushed from agent:main:main (09:00)" in after


def test_the_next_flush_removes_the_temp_file_a_killed_flush_left(tmp_path: Path) -> None:
    """Fixed in f975b7c: only notes.add_entry (when a flush had something new to append) and
    gc removed the store's temp file a killed flush or compact left."""
    root = fresh_workspace(tmp_path)
    # renames: the new today's note (a link, counted as before_replace #1), then the store
    assert run_at_seam(root, ("flush", "--session", MAIN), "before_replace", 2).killed
    (left,) = temp_files(root)
    assert left.startswith(".sessions.json.")
    ok(memcli(root, "flush", "--session", MAIN))  # appends nothing: the block is in the note
    assert store_of(root)[MAIN]["memoryFlushAt"] is not None
    assert temp_files(root) == []


def compaction_count(root: Path) -> int:
    return sum(
        1
        for line in (root / MAIN_TRANSCRIPT).read_text(encoding="utf-8").splitlines()
        if json.loads(line).get("type") == "compaction"
    )


def kill_compact_before_it_records(root: Path) -> int:
    """Kill compact of the main session between its append to the transcript and its write
    of sessions.json; return the compaction entries the transcript held before."""
    entries = compaction_count(root)
    args = ("compact", "--session", MAIN, "--keep-recent-tokens", "100")
    # renames: today's note (a link), the store (flush), flushed.json, the store again (compaction)
    assert run_at_seam(root, args, "before_replace", 4).killed
    assert compaction_count(root) == entries + 1
    assert store_of(root)[MAIN]["compactionCount"] == 2
    return entries


def test_the_next_compact_records_the_compaction_a_killed_one_appended(tmp_path: Path) -> None:
    """Fixed in f975b7c: the next run never recorded it (compactionCount stayed behind for
    good, totalTokens kept saying the session was due)."""
    root = fresh_workspace(tmp_path)
    entries = kill_compact_before_it_records(root)
    ok(memcli(root, "compact", "--session", MAIN, "--keep-recent-tokens", "100"))
    assert compaction_count(root) == entries + 1
    entry = store_of(root)[MAIN]
    assert entry["compactionCount"] == 3 and entry["totalTokens"] < 180_000


def append_messages(root: Path, count: int) -> None:
    """What OpenClaw appends meanwhile: turns of the conversation, each on the branch's leaf."""
    path = root / MAIN_TRANSCRIPT
    leaf = json.loads(path.read_text(encoding="utf-8").splitlines()[-1])["id"]
    with open(path, "a", encoding="utf-8") as f:
        for n in range(count):
            entry = {
                "type": "message",
                "id": f"b{n:07x}",
                "parentId": leaf,
                "timestamp": f"2026-10-31T01:00:{n + 1:02d}.000Z",
                "message": {
                    "role": "user" if n % 2 == 0 else "assistant",
                    "content": [{"type": "text", "text": f"turn {n}: the export queue on Redis " * 6}],
                    "timestamp": 1793408400000 + 1000 * (n + 1),
                },
            }
            f.write(json.dumps(entry) + "\n")
            leaf = entry["id"]


def test_a_killed_compact_is_not_followed_by_a_second_compaction_in_the_same_cycle(tmp_path: Path) -> None:
    """Fixed in f975b7c: with turns appended since, the next run compacted the same cycle
    again (two entries, compactionCount one higher)."""
    root = fresh_workspace(tmp_path)
    entries = kill_compact_before_it_records(root)
    append_messages(root, 6)
    ok(memcli(root, "compact", "--session", MAIN, "--keep-recent-tokens", "100"))
    # one compaction entry per compaction cycle: as many new entries as compactionCount rose
    assert compaction_count(root) - entries == store_of(root)[MAIN]["compactionCount"] - 2


def test_the_reproductions_start_from_a_fresh_workspace(tmp_path: Path) -> None:
    """The reproductions above rely on this start: no today's note, main due for both."""
    root = fresh_workspace(tmp_path)
    assert not (root / TODAY_NOTE).exists() and not (root / ".memcli").exists()
    report = json.loads(ok(memcli(root, "--json", *COMMANDS["compact"], "--dry-run")).stdout)
    due = {s["session"] for s in report["sessions"] if s["due"] and s["compaction"]}
    assert MAIN in due
    shutil.rmtree(root)
