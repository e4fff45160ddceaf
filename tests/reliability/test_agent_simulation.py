"""An agent at work while memcli runs (SPEC §7, §9, §14): a separate process appends, every
20-50 ms, a numbered line to yesterday's note, to today's note and to MEMORY.md (open, append,
close, as an agent does), and a JSON message line to the main session's transcript (one
write per line, in append mode, hung on the branch's leaf, as OpenClaw does), while gc,
flush and compact run in turn as real processes, a good share of them killed with SIGKILL
at a write seam or at an instant.

Afterwards (one last uncrashed gc finishes what the killed runs left) every appended line
must be there exactly once: in the notes where it was appended, in order (gc never rewrites
today's and yesterday's notes); MEMORY.md's anywhere memory lives (gc rewrites MEMORY.md
and may demote); in the transcript, in order (compact only appends).

RELIABILITY_RUNS sets the rounds of each command (12 by default, so one simulation of 36
rounds); from 24 on, they are spread over simulations of 36 rounds each, each on a fresh
workspace (300: 25 simulations).
"""

from __future__ import annotations

import itertools
import json
import os
import random
import re
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import date, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from conftest import NOW
from memcli.cli.app import app
from memcli.workspace.files import CARRY_DIR
from memcli.workspace.session_store import store_lock
from memcli.workspace.transaction import trash_records

from .kit import (
    MAIN,
    MAIN_TRANSCRIPT,
    NOW_MS,
    RUNS,
    SEAMS,
    STORE,
    TODAY_NOTE,
    UNKNOWN,
    YESTERDAY_NOTE,
    BackgroundWriter,
    Run,
    alive,
    lock_files,
    lock_holder,
    orphans,
    reap,
    run_at_seam,
    run_killed_after,
    sessions_workspace,
    store_of,
    temp_files,
    user_bytes,
)

ROUNDS = 12  # of each command, in one simulation
SIMULATIONS = max(1, RUNS // ROUNDS)
KILL_SHARE = 0.4
COMMANDS = {
    "gc": ("gc", "--force"),
    "flush": ("flush", "--session", MAIN, "--force"),
    "compact": ("compact", "--session", MAIN, "--force", "--keep-recent-tokens", "100"),
}
NOTES = {YESTERDAY_NOTE: "yesterday append", TODAY_NOTE: "today append", "MEMORY.md": "core append"}
RUNNER = CliRunner()

AGENT = r"""
import json, os, random, sys, time
from datetime import datetime, timezone

root, stop, transcript, first_ms = sys.argv[1:5]
first_ms = int(first_ms)
notes = [(os.path.join(root, rel), tag) for rel, tag in zip(sys.argv[5::2], sys.argv[6::2])]
path = os.path.join(root, transcript)
rng = random.Random(11)


def leaf():
    # the id of the transcript's last entry: where OpenClaw hangs the next one
    with open(path, "rb") as f:
        f.seek(0, 2)
        f.seek(max(0, f.tell() - 65536))
        lines = f.read().splitlines()
    for line in reversed(lines):
        try:
            return json.loads(line).get("id")
        except ValueError:
            continue
    return None


n = 0
while not os.path.exists(stop):
    n += 1
    for note, tag in notes:
        with open(note, "a", encoding="utf-8") as f:  # as an agent does: open, append, close
            f.write(f"- {tag} {n:06d} qzx\n")
    ms = first_ms + 1000 * n
    if n % 10 == 1:  # a preference: the next flush appends it to today's note
        text = f"I prefer retry policy {n} for the export queue, never more than {n % 7 + 2} attempts"
    elif n % 2:
        text = f"status of export batch {n}: still running qzx"
    else:
        text = f"batch {n} is still running; I will check again qzx"
    entry = {
        "type": "message",
        "id": f"{0xA0000000 + n:08x}",
        "parentId": leaf(),
        "timestamp": datetime.fromtimestamp(ms / 1000, timezone.utc).isoformat(timespec="milliseconds"),
        "message": {"role": "user" if n % 2 else "assistant", "content": [{"type": "text", "text": text}],
                    "timestamp": ms},
    }
    with open(path, "a", encoding="utf-8") as f:  # one write per line
        f.write(json.dumps(entry, ensure_ascii=False) + "\n")
    # (every 20-50 ms: each run still meets dozens of appends, and the notes stay a size
    # that a run reads in seconds; at every 2-5 ms they grew by 250 lines a second, so
    # that a slow machine's runs read more and were slower still: 86,000 lines a note
    # and 60 s a gc after 7 minutes)
    time.sleep(rng.uniform(0.02, 0.05))
print(n, flush=True)
"""


def memcli(root: Path, *args: str) -> Result:
    return RUNNER.invoke(app, ["-w", str(root), "--now", NOW, *args])


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr, result.exception)
    return result


def start_agent(root: Path, tmp: Path) -> BackgroundWriter:
    """The agent: appends to every note of NOTES and to the transcript; `stop()` returns how
    many lines it appended to each."""
    notes = [x for pair in NOTES.items() for x in pair]
    # the messages come after the last flush: each flush has new ones
    return BackgroundWriter(root, tmp / "stop-the-agent", AGENT, MAIN_TRANSCRIPT, str(NOW_MS), *notes)


def fresh_week(root: Path, n: int) -> None:
    """Work for the next gc: a finished week long ago, with a fact to promote (so that
    MEMORY.md is rewritten) and noise to drop."""
    day = date(2025, 11, 3) + timedelta(weeks=n)
    (root / "memory" / f"{day}.md").write_text(
        f"# {day}\n\n- 记住：第 {n} 轮发布的检查清单在 `docs/release-{n}.md`\n"
        f"- deployed atlas-api build {n} on port 8080\n- reviewed PR {100 + n} with Priya\n- 好的\n",
        encoding="utf-8",
    )


# --- a simulation ------------------------------------------------------------------------------


@dataclass
class Simulation:
    """One workspace, one agent, 3 x ROUNDS rounds; what happened."""

    root: Path
    rng: random.Random
    rounds: Counter[str] = field(default_factory=Counter)
    kills: Counter[str] = field(default_factory=Counter)
    seams: dict[str, dict[str, int]] = field(default_factory=dict)  # most passes seen, per command
    seconds: dict[str, float] = field(default_factory=dict)  # longest uncrashed run, per command
    fresh: int = 0
    core_rewrites: int = 0  # uncrashed gc runs that replaced MEMORY.md
    orphaned: int = 0  # kills that left forked workers running (they held the workspace lock)

    def round(self, command: str) -> None:
        args = COMMANDS[command]
        if command == "gc":
            self.fresh += 1
            fresh_week(self.root, self.fresh)
        self.rounds[command] += 1
        known = self.seams.get(command)
        run: Run
        if known is None or self.rng.random() >= KILL_SHARE:
            inode = os.stat(self.root / "MEMORY.md").st_ino
            started = time.monotonic()
            run = run_at_seam(self.root, args, "none", 0)
            self.seconds[command] = max(self.seconds.get(command, 0.0), time.monotonic() - started)
            assert run.rc == 0, (command, run.rc, run.stderr)
            assert orphans(self.root) == [], f"{command} left processes running"
            self.core_rewrites += os.stat(self.root / "MEMORY.md").st_ino != inode
            seen = self.seams.setdefault(command, {})
            for seam, n in run.seams.items():
                seen[seam] = max(seen.get(seam, 0), n)
            return
        seams = [s for s in SEAMS if known.get(s)]
        if self.rng.random() < 0.5 and seams:
            seam = self.rng.choice(seams)
            run = run_at_seam(self.root, args, seam, self.rng.randint(1, known[seam]))
            how = f"{seam}"
        else:
            delay = self.rng.uniform(0.1, 1.0) * self.seconds[command]
            run = run_killed_after(self.root, args, delay)
            how = f"{delay * 1000:.0f} ms"
        # a seam not reached this time, or an instant after the end: the run finished
        assert run.rc in (0, -signal.SIGKILL), (command, how, run.rc, run.stderr)
        if run.killed:
            self.kills[command] += 1
        # workers forked by a killed gc must die with it (before 4cf5bf0 they lived on holding
        # the workspace lock); any left are counted, failing the simulation, and ended here so
        # that it does not hang
        self.orphaned += reap(self.root) > 0

    def settle(self) -> None:
        """The agent has stopped: one uncrashed run of each command, gc last (it finishes or
        rolls back what a killed gc left, carries back what was being carried, and removes
        the temp files of killed runs)."""
        for command in ("flush", "compact", "gc"):
            run = run_at_seam(self.root, COMMANDS[command], "none", 0)
            assert run.rc == 0, (command, run.stderr)
            assert orphans(self.root) == [], f"{command} left processes running"


def carried_but_kept(root: Path) -> list[str]:
    """Carry records (.memcli/carry/) whose late lines are in their file already: a kill came
    after the carry, before the record was removed."""
    found = []
    for record in sorted((root / CARRY_DIR).glob("*.json")):
        try:
            info = json.loads(record.read_text(encoding="utf-8"))
            late = record.with_suffix(".old").read_bytes()[int(info["offset"]) :]
            current = (root / info["target"]).read_bytes()
        except (OSError, ValueError, KeyError):
            continue
        if late and late in current:
            found.append(str(info["target"]))
    return found


def compaction_entries(data: bytes) -> int:
    return sum(1 for line in data.splitlines() if json.loads(line).get("type") == "compaction")


def numbers(text: str, tag: str) -> list[int]:
    return [int(n) for n in re.findall(rf"^- {tag} (\d{{6}}) qzx$", text, re.MULTILINE)]


@dataclass
class Tally:
    appended: int = 0
    lost: int = 0
    doubled: int = 0
    out_of_order: int = 0

    def add(self, count: int, found: list[int]) -> None:
        seen = Counter(found)
        self.appended += count
        self.lost += sum(1 for n in range(1, count + 1) if not seen[n])
        self.doubled += sum(c - 1 for c in seen.values() if c > 1)
        self.out_of_order += sum(1 for a, b in itertools.pairwise(found) if b < a)


def tally(root: Path, original: dict[str, bytes], count: int) -> dict[str, Tally]:
    out = {rel: Tally() for rel in (*NOTES, MAIN_TRANSCRIPT)}
    files = user_bytes(root)
    for rel in (YESTERDAY_NOTE, TODAY_NOTE):
        out[rel].add(count, numbers(files[rel].decode("utf-8"), NOTES[rel]))
    # MEMORY.md's lines: once, in MEMORY.md or (demoted, merged, dropped) wherever memory lives
    core = numbers(files["MEMORY.md"].decode("utf-8"), NOTES["MEMORY.md"])
    found = list(core)
    for rel, data in files.items():
        if rel.endswith(".md") and rel != "MEMORY.md":
            found += numbers(data.decode("utf-8"), NOTES["MEMORY.md"])
    for record in trash_records(root):
        found += numbers(str(record.get("text", "")), NOTES["MEMORY.md"])
    out["MEMORY.md"].add(count, found)
    # lines carried onto MEMORY.md after a rename land after later ones: not a loss, shown
    out["MEMORY.md"].out_of_order = sum(1 for a, b in itertools.pairwise(core) if b < a)
    # the transcript: its old bytes, then every line appended, whole and in order
    data = files[MAIN_TRANSCRIPT]
    assert data.startswith(original[MAIN_TRANSCRIPT]), "the transcript's old bytes changed"
    entries = [json.loads(line) for line in data[len(original[MAIN_TRANSCRIPT]) :].splitlines()]
    ids = [int(e["id"], 16) - 0xA0000000 for e in entries if e.get("type") == "message"]
    out[MAIN_TRANSCRIPT].add(count, ids)
    return out


STATS: Counter[str] = Counter()


@pytest.fixture(scope="module", autouse=True)
def report() -> Iterator[None]:
    yield
    if STATS["simulations"]:
        s = STATS
        line = (
            f"agent simulation: {s['simulations']} simulations, {s['rounds']} rounds "
            f"(gc {s['rounds_gc']}, flush {s['rounds_flush']}, compact {s['rounds_compact']}), "
            f"{s['kills']} killed (gc {s['kills_gc']}, flush {s['kills_flush']}, "
            f"compact {s['kills_compact']}); "
            f"lines appended {s['appended']}, lost {s['lost']}, doubled {s['doubled']}; "
            f"{s['orphaned_workers']} killed runs left forked workers behind; "
            f"{s['locks_left']} dead holders' transcript locks left at the end"
        )
        print("\n" + line)
        named = os.environ.get("RELIABILITY_REPORT")
        if named:
            with open(named, "a", encoding="utf-8") as f:
                f.write(json.dumps({"test": "agent-simulation", **s}) + "\n")


@pytest.mark.parametrize("sim", range(SIMULATIONS))
def test_lines_an_agent_appends_while_gc_flush_and_compact_run_and_die_are_kept(
    sim: int, tmp_path: Path
) -> None:
    root = sessions_workspace(tmp_path / "ws", today=False)
    with open(root / "memcli.toml", "a", encoding="utf-8") as f:
        f.write("core_max_chars = 1000000\n")  # every round's fact has room: nothing demoted
    ok(memcli(root, "flush", "--session", MAIN))  # today's note exists; main is flushed
    original = user_bytes(root)
    simulation = Simulation(root, random.Random(f"memcli-agent-{sim}"))
    agent = start_agent(root, tmp_path)
    try:
        agent.wait_started()
        for n in range(3 * ROUNDS):
            simulation.round(("gc", "flush", "compact")[n % 3])
        count = agent.stop()
    finally:
        agent.kill()
    simulation.settle()

    results = tally(root, original, count)
    appended = sum(t.appended for t in results.values())
    lost = sum(t.lost for t in results.values())
    doubled = sum(t.doubled for t in results.values())
    left_locks = lock_files(root)
    for key, n in {
        "simulations": 1,
        "rounds": sum(simulation.rounds.values()),
        "kills": sum(simulation.kills.values()),
        "appended": appended,
        "lost": lost,
        "doubled": doubled,
        "locks_left": len(left_locks),
        "orphaned_workers": simulation.orphaned,
    }.items():
        STATS[key] += n
    for command in COMMANDS:
        STATS[f"rounds_{command}"] += simulation.rounds[command]
        STATS[f"kills_{command}"] += simulation.kills[command]
    detail = {rel: vars(t) for rel, t in results.items()}
    print(
        f"\nsimulation {sim}: {count} lines appended to each of {len(results)} files, "
        f"{sum(simulation.kills.values())} of {sum(simulation.rounds.values())} runs killed: {detail}"
    )

    files_now = user_bytes(root)
    compactions = compaction_entries((root / MAIN_TRANSCRIPT).read_bytes()) - compaction_entries(
        original[MAIN_TRANSCRIPT]
    )
    # what flush took from the transcript: each preference once in today's note, never twice
    flushed = Counter(
        re.findall(r"^- I prefer retry policy (\d+) ", files_now[TODAY_NOTE].decode("utf-8"), re.MULTILINE)
    )
    print(
        f"gc replaced MEMORY.md {simulation.core_rewrites} times, compact appended {compactions} entries, "
        f"flush appended {len(flushed)} preferences to today's note"
    )
    assert flushed and max(flushed.values()) == 1, [n for n, c in flushed.items() if c > 1]
    assert sum(simulation.kills.values()) >= 3, simulation.kills
    assert simulation.core_rewrites >= 3 and compactions >= 3, (simulation.core_rewrites, compactions)
    assert lost == 0, detail
    assert doubled == 0, detail
    assert simulation.orphaned == 0  # a killed gc's workers die with it (they held its lock)
    for rel in (YESTERDAY_NOTE, TODAY_NOTE, MAIN_TRANSCRIPT):
        assert results[rel].out_of_order == 0, (rel, detail)
    # the store: valid, every session and every field memcli does not own still there
    store = store_of(root)
    assert list(store) == list(json.loads(original[STORE]))
    assert all(store[MAIN][k] == v for k, v in UNKNOWN.items())
    assert temp_files(root) == []
    # a lock a killed compact held on the transcript stays when the next runs do not need it
    # (one that records the killed run's compaction takes no transcript lock): a dead
    # holder's, which the next writer takes over at once
    for rel in left_locks:
        assert rel.endswith(".jsonl.lock") and (pid := lock_holder(root / rel)) is not None and not alive(pid)
        with store_lock(root / rel.removesuffix(".lock"), wait=1.0):
            pass


# --- bugs the simulation found (all fixed), one deterministic test each ------------------------

CARRY_KILLER = r"""
import os, signal, sys
from memcli.workspace import files

late, meanwhile = sys.argv[1].encode(), sys.argv[2].encode()


def before_replace(temp, target):
    if target.name == "MEMORY.md":
        with open(target, "ab") as f:  # the agent appends to the file about to be replaced
            f.write(late)


real_append = files.append_bytes


def append_bytes(path, data):
    if path.name == "MEMORY.md" and data == late and meanwhile:
        with open(path, "ab") as f:  # the agent appends while memcli is about to carry
            f.write(meanwhile)
    real_append(path, data)
    if path.name == "MEMORY.md" and data == late:
        os.kill(os.getpid(), signal.SIGKILL)  # carried onto the new file; the record not yet removed


files.before_replace = before_replace
files.append_bytes = append_bytes
from memcli.cli.app import app

app(sys.argv[3:], prog_name="memcli")
"""


def carried_twice(sample: Path, meanwhile: str) -> str:
    """gc killed just after carrying a line the agent appended to MEMORY.md during its rename
    (with `meanwhile` appended by the agent just before that carry), the agent appending once
    more, then the next gc: return MEMORY.md."""
    late = "- appended while gc renamed MEMORY.md qzx\n"
    proc = subprocess.run(
        [sys.executable, "-c", CARRY_KILLER, late, meanwhile, "-w", str(sample), "--now", NOW, "-q", "gc"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stderr
    assert carried_but_kept(sample) == ["MEMORY.md"]
    with open(sample / "MEMORY.md", "a", encoding="utf-8") as f:  # the agent goes on
        f.write("- appended after the kill qzx\n")
    ok(memcli(sample, "gc"))  # recovers: rolls the killed gc back, carries what it left
    core = (sample / "MEMORY.md").read_text(encoding="utf-8")
    assert core.count(late) >= 1 and core.count("- appended after the kill qzx\n") == 1
    return core.replace(late, "LATE\n")


def test_lines_carried_by_a_killed_gc_are_not_carried_twice(sample: Path) -> None:
    """Found by the simulation, fixed in bb8e87e: killed after atomic_write carried the lines
    appended during its rename but before it removed its carry record, the next run carried
    them again unless the file still ended with them (the agent had appended since)."""
    assert carried_twice(sample, "").count("LATE\n") == 1


def test_lines_carried_while_the_agent_appends_are_not_carried_twice(sample: Path) -> None:
    """Found by the simulation after bb8e87e, fixed in 4cf5bf0: the same, with the agent
    appending between the moment the carry record noted where the lines would go (the file's
    size) and the append that put them after the agent's line: they were not found there."""
    assert carried_twice(sample, "- appended just before the carry qzx\n").count("LATE\n") == 1


POOL_KILLER = r"""
import os, signal, sys
from concurrent.futures import ProcessPoolExecutor

real_submit = ProcessPoolExecutor.submit


def submit(self, *args, **kwargs):
    future = real_submit(self, *args, **kwargs)  # the fork-started workers run now
    os.kill(os.getpid(), signal.SIGKILL)
    return future


ProcessPoolExecutor.submit = submit
from memcli.cli.app import app

app(sys.argv[1:], prog_name="memcli")
"""


def test_a_killed_gc_leaves_no_worker_holding_the_lock(sample: Path) -> None:
    """Found by the simulation, fixed in 4cf5bf0: a gc killed while its fork-started workers
    ran left them running for ever, sharing its flock on .memcli/lock, so that every later
    writing command waited and exited 4 naming the dead gc. A workspace over
    memcli.parallel.PARALLEL_FROM entry texts, so that gc reads them on workers; gc is killed
    once they run."""
    lines = "".join(
        f"- reading {n}: latency {n % 97} ms on host-{n % 13} after deploy {n // 7}\n" for n in range(9000)
    )
    (sample / "memory" / "2026-09-01.md").write_text(f"# 2026-09-01\n\n{lines}", encoding="utf-8")
    with open(sample / "memcli.toml", "a", encoding="utf-8") as f:
        f.write("lock_timeout_seconds = 1\n")
    try:
        proc = subprocess.run(
            [sys.executable, "-c", POOL_KILLER, "-w", str(sample), "--now", NOW, "-q", "gc", "--force"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            timeout=120,
        )
        assert proc.returncode == -signal.SIGKILL
        result = memcli(sample, "add", "written after the crash")
        assert result.exit_code == 0, result.stderr  # not: exit 4, locked by the dead gc
        assert orphans(sample) == []
    finally:
        reap(sample)
