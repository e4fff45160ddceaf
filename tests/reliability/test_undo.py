"""`memcli undo` loses nothing (issue 15, points 1, 2 and 4).

1. A note gc archived comes back to its place even when the agent has written a new file
   there since: both texts survive, the archived note first, the new lines after it.
2. `undo --force` overwrites a file changed since only after its current text is kept in
   `.memcli/trash/` (a record naming the file), always.
3. undo is a journaled transaction: killed at any seam or instant (while an agent appends),
   the next run finishes it; a second name of a file that a move killed half way left is
   memcli's own and is removed; no run after it is locked out.

Each test runs memcli on real files in a temporary workspace with a fixed --now; kills are
real SIGKILLs of `python -m memcli` (kit.py).
"""

from __future__ import annotations

import json
import os
import random
import shutil
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from conftest import NOW, SAMPLE, copy_tree
from memcli.cli.app import app
from memcli.workspace.transaction import APPLIED, UNDOING, Journal, journals, trash_records

from .kit import (
    LINK_SEAM,
    RUNS,
    SEAMS,
    STATE,
    BackgroundWriter,
    lock_to_exit_seconds,
    report,
    run_at_seam,
    run_killed_after,
    temp_files,
    user_bytes,
)

RUNNER = CliRunner()
ARCHIVED = "memory/2026-09-09.md"  # a finished week's note: gc --force archives it
ARCHIVE_PLACE = "memory/archive/2026/09/2026-09-09.md"
LATE = b"- late\n"


def memcli(root: Path, *args: str) -> Result:
    return RUNNER.invoke(app, ["-w", str(root), "--now", NOW, *args])


def ok(result: Result) -> Result:
    assert result.exit_code == 0, (result.exit_code, result.stdout, result.stderr, result.exception)
    return result


@pytest.fixture
def gced(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """The sample after `gc --force`, with the bytes it held before."""
    root = copy_tree(SAMPLE, tmp_path / "ws")
    shutil.rmtree(root / STATE, ignore_errors=True)
    original = user_bytes(root)
    ok(memcli(root, "gc", "--force"))
    assert not (root / ARCHIVED).exists() and (root / ARCHIVE_PLACE).is_file()
    return root, original


def second_names(root: Path) -> list[str]:
    """Files of the workspace (outside .memcli/) with more than one name."""
    return sorted(rel for rel in user_bytes(root) if os.stat(root / rel).st_nlink > 1)


def last_journal(root: Path) -> Journal:
    return journals(root)[-1]


# --- 1. a note re-created at its old place -------------------------------------------------


def test_undo_puts_an_archived_note_back_before_the_lines_written_at_its_place_since(
    gced: tuple[Path, dict[str, bytes]],
) -> None:
    root, original = gced
    (root / ARCHIVED).write_bytes(LATE)  # the agent appends to the note of that day again
    result = ok(memcli(root, "undo"))
    assert "restored" in result.stdout
    assert (root / ARCHIVED).read_bytes() == original[ARCHIVED] + LATE
    assert not (root / ARCHIVE_PLACE).exists()
    now = user_bytes(root)
    assert {rel: data for rel, data in now.items() if rel != ARCHIVED} == {
        rel: data for rel, data in original.items() if rel != ARCHIVED
    }


def test_undo_joins_an_archived_note_without_a_final_newline_on_a_line_of_its_own(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    (root / "memory").mkdir(parents=True)
    (root / "memcli.toml").write_text('timezone = "Asia/Shanghai"\n', encoding="utf-8")
    (root / "MEMORY.md").write_text("# MEMORY\n", encoding="utf-8")
    note = root / "memory" / "2026-08-03.md"
    note.write_bytes(b"# 2026-08-03\n\n- deployed atlas-api build 7 on port 8080")
    ok(memcli(root, "gc", "--force"))
    assert not note.exists(), "gc should archive a note this old"
    note.write_bytes(LATE)
    ok(memcli(root, "undo"))
    assert note.read_bytes() == b"# 2026-08-03\n\n- deployed atlas-api build 7 on port 8080\n" + LATE
    assert (
        not list((root / "memory" / "archive").rglob("*.md")) if (root / "memory/archive").exists() else True
    )


def test_undo_keeps_an_archived_note_edited_since(gced: tuple[Path, dict[str, bytes]]) -> None:
    root, original = gced
    with open(root / ARCHIVE_PLACE, "ab") as f:
        f.write(b"- added to the archived copy\n")
    (root / ARCHIVED).write_bytes(LATE)
    ok(memcli(root, "undo"))
    assert (root / ARCHIVED).read_bytes() == original[ARCHIVED] + b"- added to the archived copy\n" + LATE


# --- 2. undo --force keeps what it overwrites ------------------------------------------------


def rewritten_note(root: Path, original: dict[str, bytes]) -> str:
    """A note gc rewrote in place (not moved, not created)."""
    now = user_bytes(root)
    found = sorted(
        rel
        for rel in original
        if rel.startswith("memory/") and rel in now and now[rel] != original[rel] and rel != "MEMORY.md"
    )
    assert found, "gc rewrote no note in place"
    return found[0]


def test_undo_force_keeps_a_line_inserted_in_a_rewritten_note_in_the_trash(
    gced: tuple[Path, dict[str, bytes]],
) -> None:
    root, original = gced
    rel = rewritten_note(root, original)
    lines = (root / rel).read_bytes().splitlines(keepends=True)
    inserted = "- 用户在中间插入的一行 inserted by hand\n"
    lines.insert(len(lines) // 2, inserted.encode("utf-8"))
    (root / rel).write_bytes(b"".join(lines))
    refused = memcli(root, "undo")
    assert refused.exit_code == 4 and rel in refused.stderr
    forced = json.loads(ok(memcli(root, "--json", "undo", "--force")).stdout)
    assert rel in forced["conflicts"] and forced["kept"]
    assert (root / rel).read_bytes() == original[rel]
    kept = [r for r in trash_records(root) if r.get("from") == rel]
    assert len(kept) == 1 and inserted in kept[0]["text"], kept
    assert kept[0]["file"] == forced["kept"]


def test_undo_force_keeps_an_edited_summary_in_the_trash(gced: tuple[Path, dict[str, bytes]]) -> None:
    root, _ = gced
    summary = sorted((root / "memory" / "summaries").glob("*.md"))[0]
    rel = summary.relative_to(root).as_posix()
    with open(summary, "a", encoding="utf-8") as f:
        f.write("\n我手写的总结补充\n")
    assert memcli(root, "undo").exit_code == 4
    ok(memcli(root, "undo", "--force"))
    assert not summary.exists()
    kept = [r for r in trash_records(root) if r.get("from") == rel]
    assert len(kept) == 1 and "我手写的总结补充" in kept[0]["text"]


def test_a_refused_undo_writes_nothing(gced: tuple[Path, dict[str, bytes]]) -> None:
    root, original = gced
    rel = rewritten_note(root, original)
    (root / rel).write_bytes(b"# replaced by hand\n")
    before = user_bytes(root)
    journal_before = (last_journal(root).folder / "journal.json").read_bytes()
    assert memcli(root, "undo").exit_code == 4
    assert user_bytes(root) == before
    assert (last_journal(root).folder / "journal.json").read_bytes() == journal_before


# --- 4. undo killed, and finished by the next run ---------------------------------------------


def test_an_undo_killed_in_a_move_is_finished_and_its_second_name_removed(
    gced: tuple[Path, dict[str, bytes]],
) -> None:
    """The state an undo killed between the link and the unlink of a move leaves (the
    archived note under both names) while the agent appends to the note: the next gc
    finishes the undo, removes memcli's second name, and is not locked out."""
    root, original = gced
    journal = last_journal(root)
    journal.data["undo"] = {"force": False, "time": NOW}
    journal.save(UNDOING)
    os.link(root / ARCHIVE_PLACE, root / ARCHIVED)
    with open(root / ARCHIVED, "ab") as f:
        f.write(LATE)
    result = ok(memcli(root, "gc", "--dry-run"))  # a preview repairs nothing, and is not refused
    assert (root / ARCHIVE_PLACE).exists()
    result = ok(memcli(root, "undo"))
    assert "finished undoing" in result.stderr
    assert second_names(root) == []
    assert (root / ARCHIVED).read_bytes() == original[ARCHIVED] + LATE
    ok(memcli(root, "gc", "--force"))


def test_a_gc_move_killed_while_the_agent_appends_is_rolled_back_to_one_name(tmp_path: Path) -> None:
    """gc killed between the link and the unlink of an archive move (the note under two
    names), the agent appending to the note: the next run rolls back to one name, keeping
    the appended line."""
    root = copy_tree(SAMPLE, tmp_path / "ws")
    shutil.rmtree(root / STATE, ignore_errors=True)
    probe = run_at_seam(root, ["gc", "--force"], LINK_SEAM, 0)
    assert probe.rc == 0
    moves = [e for e in last_journal(root).data["files"] if e["op"] == "move"]
    links = probe.seams[LINK_SEAM]
    assert moves and links >= len(moves)
    shutil.rmtree(root)
    root = copy_tree(SAMPLE, tmp_path / "ws")
    shutil.rmtree(root / STATE, ignore_errors=True)
    original = user_bytes(root)
    killed = run_at_seam(root, ["gc", "--force"], LINK_SEAM, links)  # the last link: a move
    assert killed.rc == -9
    assert second_names(root), "the kill should come between a move's link and its unlink"
    doubled = second_names(root)[0]
    with open(root / doubled, "ab") as f:
        f.write(LATE)
    ok(memcli(root, "gc", "--dry-run"))  # a preview repairs nothing, and is not refused
    result = memcli(root, "undo")  # the next writing run rolls the gc back: nothing left to undo
    assert "rolled back transaction" in result.stderr and "nothing to undo" in result.stderr
    assert second_names(root) == []
    for rel, data in original.items():
        assert (root / rel).read_bytes().startswith(data), rel
    assert LATE in b"".join(user_bytes(root).values())


def _kill_plan(rng: random.Random, seams: dict[str, int]) -> tuple[str, int]:
    choices = [s for s in (*SEAMS, LINK_SEAM) if seams.get(s)] + ["time", "time"]
    how = rng.choice(choices)
    return how, (rng.randint(1, seams[how]) if how != "time" else 0)


APPEND_TO_NOTES = r"""
import os, random, sys, time

root, stop = sys.argv[1], sys.argv[2]
targets = [(os.path.join(root, rel), tag) for rel, tag in zip(sys.argv[3::2], sys.argv[4::2])]
rng = random.Random(11)
n = 0
while not os.path.exists(stop):
    n += 1
    for path, tag in targets:
        with open(path, "a", encoding="utf-8") as f:  # creates the file when it was moved away
            f.write(f"- {tag} {n:06d} qzx\n")
    time.sleep(rng.uniform(0.002, 0.005))
print(n, flush=True)
"""
TARGETS = {"MEMORY.md": "core append", ARCHIVED: "archived append"}


def tagged(data: bytes, tag: str) -> Counter[int]:
    found: Counter[int] = Counter()
    for line in data.decode("utf-8").splitlines():
        if line.startswith(f"- {tag} ") and line.endswith(" qzx"):
            found[int(line.split()[-2])] += 1
    return found


@pytest.mark.parametrize("agent", [False, True], ids=["quiet", "agent-appending"])
def test_undo_killed_at_any_instant_is_finished_by_the_next_run(tmp_path: Path, agent: bool) -> None:
    """RUNS undo runs of an applied gc, each SIGKILLed at a seam (renames, appends, links,
    the lock) or at an instant. Quiet: the next gc finishes the undo first and then does
    exactly what the first gc did; undo then gives back every byte. With `agent`, an agent
    appends to MEMORY.md and to a note gc archived while undo runs, and the next `undo`
    finishes (or does) the undo: every file is back to its bytes before gc, with the
    agent's lines after them, once each. No file is left with two names, no temp file is
    left, no later gc is locked out."""
    rng = random.Random(1515 + agent)
    template = copy_tree(SAMPLE, tmp_path / "template")
    shutil.rmtree(template / STATE, ignore_errors=True)
    original = user_bytes(template)
    ok(memcli(template, "gc", "--force"))
    gced = user_bytes(template)
    probe_root = copy_tree(template, tmp_path / "probe")
    probe = run_at_seam(probe_root, ["undo"], "never", 0)
    assert probe.rc == 0, probe.stderr
    span = lock_to_exit_seconds(
        copy_tree(template, tmp_path / "timed"), ["undo"], tmp_path / "timed" / STATE / "lock"
    )
    killed = appended = lost = doubled = 0
    for n in range(RUNS):
        root = tmp_path / f"run{n}"
        copy_tree(template, root)
        how, k = _kill_plan(rng, probe.seams)
        writer = (
            BackgroundWriter(
                root, tmp_path / f"stop{n}", APPEND_TO_NOTES, *(x for p in TARGETS.items() for x in p)
            )
            if agent
            else None
        )
        try:
            if writer is not None:
                writer.wait_started()
            if how == "time":
                run = run_killed_after(root, ["undo"], rng.uniform(0.0, span), root / STATE / "lock")
            else:
                run = run_at_seam(root, ["undo"], how, k)
            killed += run.killed
            assert run.rc in (0, -9), run.stderr
            if agent:
                # the next run is the undo again: it finishes the one killed, or does it
                if last_journal(root).state in (APPLIED, UNDOING):
                    ok(memcli(root, "undo"))
            else:
                if last_journal(root).state == APPLIED:
                    assert user_bytes(root) == gced, (how, k)  # killed before it began
                    ok(memcli(root, "undo"))
                # the next run is the nightly gc: it must finish the undo before it plans, so
                # that it plans on the workspace as it was before the first gc, and does
                # exactly what that gc did
                ok(memcli(root, "gc", "--force"))
                assert user_bytes(root) == gced, (how, k)
                assert second_names(root) == [] and temp_files(root) == [], (how, k)
                ok(memcli(root, "undo"))
        finally:
            count = writer.stop() if writer is not None else 0
        appended += count * len(TARGETS)
        assert last_journal(root).state == "undone", (how, k)
        assert second_names(root) == [], (how, k)
        assert temp_files(root) == [], (how, k)
        now = user_bytes(root)
        for rel, data in original.items():
            got = now.get(rel, b"")
            if rel in TARGETS and agent:
                assert got.startswith(data), (how, k, rel)
            else:
                assert got == data, (how, k, rel)
        if agent:
            everywhere: dict[str, Counter[int]] = {tag: Counter() for tag in TARGETS.values()}
            for data in now.values():
                for tag in TARGETS.values():
                    everywhere[tag] += tagged(data, tag)
            for seen in everywhere.values():
                lost += sum(1 for i in range(1, count + 1) if not seen[i])
                doubled += sum(1 for i in range(1, count + 1) if seen[i] > 1)
        if agent:
            ok(memcli(root, "gc", "--force"))  # not locked out by anything the kill left
    report(
        f"undo-killed-{'agent' if agent else 'quiet'}",
        runs=RUNS,
        kills=killed,
        appended=appended,
        lost=lost,
        doubled=doubled,
    )
    assert (lost, doubled) == (0, 0)
    assert killed >= RUNS // 3
