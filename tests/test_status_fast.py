"""`memcli status` from its cache of each file's counts (issue 20, point 2): the same bytes,
text and --json, as counting every parsed note, in every state of the workspace."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from contextlib import AbstractContextManager
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner, Result

from conftest import NOW, Invoke
from memcli.cli import status as status_module
from memcli.cli.app import app
from memcli.core.inventory import Tally, tally_by_role
from memcli.flush import overview
from memcli.workspace import cache as note_cache
from memcli.workspace import tally
from memcli.workspace.snapshot import Parser, take_snapshot

MAX_BYTES = 8 * 1024 * 1024


def age(*paths: Path, seconds: int = 3600) -> None:
    """Make files look written `seconds` ago: status stores no count of a file modified
    within tally.RACY_SECONDS of reading it."""
    when = os.stat(paths[0]).st_mtime_ns - seconds * 10**9 if paths else 0
    for path in paths:
        os.utime(path, ns=(when, when))


def reference_count(
    root: Path,
    max_bytes: int,
    parser: Callable[[int], AbstractContextManager[Parser]],
    progress: Callable[[int, int], None] | None = None,
) -> tally.Counted:
    """What status counted before its cache: every file parsed, each counted by
    core.inventory, no cache read or written."""
    snap = take_snapshot(root, max_bytes, lambda f: True)
    files = []
    for p in snap.files:
        t = Tally().plus(p.doc)
        files.append((p.file, tally.FileTally(t.entries, t.chars, t.tokens)))
    assert tally.by_role(files) == tally_by_role((p.file, p.doc) for p in snap.files)
    return tally.Counted(snap.layout, tuple(files), len(files))


def both(cli: Invoke, root: Path) -> tuple[str, str]:
    text = cli("-w", str(root), "--now", NOW, "status")
    data = cli("-w", str(root), "--now", NOW, "--json", "status")
    assert text.exit_code == data.exit_code == 0, (text.stderr, data.stderr)
    return str(text.stdout), str(data.stdout)


def same_as_parsing(cli: Invoke, root: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """status, from the cache, byte for byte as from parsing every note; what it printed."""
    fast = both(cli, root)
    with monkeypatch.context() as m:
        m.setattr(status_module, "count_files", reference_count)
        m.setattr(status_module, "_sessions", overview)
        slow = both(cli, root)
    assert fast == slow
    return fast


def cached(root: Path) -> dict[str, tuple[int, int, int]]:
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:
        rows = db.execute(
            f"SELECT path, entries, chars, tokens FROM {tally.TABLE} WHERE stamp = ?", (tally.code_stamp(),)
        )
        return {path: (e, c, t) for path, e, c, t in rows}


def read_now(root: Path) -> int:
    """How many files a status would read and parse now."""
    return tally.count_files(root, MAX_BYTES, tally.plain_parser).read


@pytest.fixture
def warm(sample: Path) -> Path:
    (sample / ".memcli").mkdir()
    return sample


def test_the_constants_it_stands_in_for() -> None:
    assert tally.CACHE_NAME == note_cache.CACHE_NAME


def test_sample_workspace_from_the_cache(cli: Invoke, warm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text, data = same_as_parsing(cli, warm, monkeypatch)  # the first run fills the cache
    assert "daily" in text and '"roles"' in data
    files = {f.rel for f in take_snapshot(warm, MAX_BYTES, lambda f: True).layout.files}
    assert set(cached(warm)) == files
    assert read_now(warm) == 0
    assert same_as_parsing(cli, warm, monkeypatch) == (text, data)


def test_appending_in_place_is_seen(cli: Invoke, warm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    before = same_as_parsing(cli, warm, monkeypatch)
    folder = warm / "memory"
    note = folder / "2026-10-30.md"
    kept_folder = os.stat(folder)
    kept = os.stat(note)
    with open(note, "a", encoding="utf-8") as f:
        f.write("- **23:50** — appended in place: 补充一条 note about the deploy\n")
    os.utime(folder, ns=(kept_folder.st_atime_ns, kept_folder.st_mtime_ns))  # the folder looks untouched
    assert os.stat(folder).st_mtime_ns == kept_folder.st_mtime_ns
    after = same_as_parsing(cli, warm, monkeypatch)
    assert after != before
    # the same once more with the note's mtime put back: its size still tells
    with open(note, "a", encoding="utf-8") as f:
        f.write("- one more line\n")
    os.utime(note, ns=(kept.st_atime_ns, kept.st_mtime_ns))
    assert same_as_parsing(cli, warm, monkeypatch) != after


def test_a_rewrite_of_the_same_size_and_mtime_is_seen(
    cli: Invoke, warm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    note = warm / "memory" / "2026-10-30.md"
    same_as_parsing(cli, warm, monkeypatch)
    kept = os.stat(note)
    text = note.read_text(encoding="utf-8")
    changed = text.replace("- ", "  ", 1) if "- " in text else text  # one entry fewer, same size
    assert len(changed.encode()) == kept.st_size and changed != text
    note.write_text(changed, encoding="utf-8")
    os.utime(note, ns=(kept.st_atime_ns, kept.st_mtime_ns))  # ctime still moves
    assert read_now(warm) == 1
    same_as_parsing(cli, warm, monkeypatch)


def test_adding_and_removing_notes(cli: Invoke, warm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    same_as_parsing(cli, warm, monkeypatch)
    new = warm / "memory" / "2026-10-31.md"
    new.write_text("# 2026-10-31\n\n- 新的一天: deployed atlas-web 2.1\n- 好的\n", encoding="utf-8")
    same_as_parsing(cli, warm, monkeypatch)
    assert "memory/2026-10-31.md" not in cached(warm)  # written just now: counted, not stored
    age(new)
    same_as_parsing(cli, warm, monkeypatch)
    assert "memory/2026-10-31.md" in cached(warm)
    gone = sorted((warm / "memory").glob("2026-10-0*.md"))[0]
    gone.unlink()
    same_as_parsing(cli, warm, monkeypatch)
    assert gone.relative_to(warm).as_posix() not in cached(warm)  # forgotten with its file
    (warm / "MEMORY.md").unlink()
    text, _ = same_as_parsing(cli, warm, monkeypatch)
    assert "MEMORY.md  missing" in text


def test_bad_names_temp_files_and_a_bootstrap_link(
    cli: Invoke, warm: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shared = tmp_path / "shared-AGENTS.md"
    shared.write_text("# Agents\n\n- be brief\n", encoding="utf-8")
    (warm / "AGENTS.md").symlink_to(shared)
    (warm / "memory" / "2026-13-01.md").write_text("# bad date\n\n- x\n", encoding="utf-8")
    (warm / "memory" / ".2026-10-29.md.999999.deadbeef.memcli-tmp").write_text("half", encoding="utf-8")
    text, data = same_as_parsing(cli, warm, monkeypatch)
    assert '"bootstrap": [' in data and "AGENTS.md" in data and "leftover temp file" in text
    assert "AGENTS.md" not in cached(warm)  # a link is read each time
    shared.write_text("# Agents\n\n- be brief\n- and kind\n", encoding="utf-8")
    same_as_parsing(cli, warm, monkeypatch)


def test_a_note_that_cannot_be_read_fails_as_before(cli: Invoke, warm: Path) -> None:
    assert cli("-w", str(warm), "--now", NOW, "status").exit_code == 0
    note = warm / "memory" / "2026-10-30.md"
    note.write_bytes(note.read_bytes() + b"\n- \xff broken\n")
    result = cli("-w", str(warm), "--now", NOW, "status")
    assert result.exit_code == 3 and "invalid UTF-8" in result.stderr
    with pytest.MonkeyPatch.context() as m:
        m.setattr(status_module, "count_files", reference_count)
        assert cli("-w", str(warm), "--now", NOW, "status").stderr == result.stderr


def test_over_the_size_limit_fails_even_when_cached(cli: Invoke, warm: Path) -> None:
    assert cli("-w", str(warm), "--now", NOW, "status").exit_code == 0
    (warm / "memcli.toml").write_text(
        (warm / "memcli.toml").read_text(encoding="utf-8") + "\nmax_file_bytes = 200\n", encoding="utf-8"
    )
    result = cli("-w", str(warm), "--now", NOW, "status")
    assert result.exit_code == 3 and "over the limit" in result.stderr


def test_another_memcli_recounts(warm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert read_now(warm) > 10
    assert read_now(warm) == 0
    monkeypatch.setattr(tally, "code_stamp", lambda: "another memcli")
    assert read_now(warm) > 10
    with sqlite3.connect(warm / ".memcli" / "cache.sqlite") as db:
        assert {s for (s,) in db.execute(f"SELECT DISTINCT stamp FROM {tally.TABLE}")} == {"another memcli"}


def test_a_file_written_just_now_is_not_stored(warm: Path) -> None:
    note = warm / "memory" / "2026-10-30.md"
    note.write_text(note.read_text(encoding="utf-8") + "- just now\n", encoding="utf-8")
    assert read_now(warm) > 10
    assert read_now(warm) == 1  # the others were stored; this one may still change in its tick
    old = os.stat(note).st_mtime_ns - 10**10
    os.utime(note, ns=(old, old))
    assert read_now(warm) == 1
    assert read_now(warm) == 0


def test_no_state_folder_no_cache(cli: Invoke, sample: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    same_as_parsing(cli, sample, monkeypatch)
    assert not (sample / ".memcli").exists()  # status makes no .memcli/


def test_a_broken_cache_is_only_a_slower_run(
    cli: Invoke, warm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (warm / ".memcli" / "cache.sqlite").write_bytes(b"not a database at all" * 100)
    same_as_parsing(cli, warm, monkeypatch)
    (warm / ".memcli" / "cache.sqlite").unlink()
    with sqlite3.connect(warm / ".memcli" / "cache.sqlite") as db:
        db.execute(f"CREATE TABLE {tally.TABLE}(stamp TEXT, path TEXT)")
        db.execute(f"INSERT INTO {tally.TABLE} VALUES (?, 'MEMORY.md')", (tally.code_stamp(),))
    same_as_parsing(cli, warm, monkeypatch)  # a table of another shape: not known, not written
    assert read_now(warm) == len(take_snapshot(warm, MAX_BYTES, lambda f: True).files)


def test_the_note_cache_lives_beside_it(cli: Invoke, warm: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """status's table and list's rows in one file, neither disturbing the other."""
    before = same_as_parsing(cli, warm, monkeypatch)
    listed = cli("-w", str(warm), "--now", NOW, "--json", "list")
    assert listed.exit_code == 0
    state = note_cache.cache_state(warm, None)
    assert cached(warm) and state.notes + state.other > 10
    assert same_as_parsing(cli, warm, monkeypatch) == before


def test_many_notes_to_read_use_the_note_cache(
    cli: Invoke, warm: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert cli("-w", str(warm), "--now", NOW, "--json", "list").exit_code == 0  # outlines cached
    monkeypatch.setattr(status_module, "FEW_TO_READ", 0)
    same_as_parsing(cli, warm, monkeypatch)


LINES = st.sampled_from(
    [
        "- deployed atlas-api on port 8080",
        "- 我喜欢用 pnpm，不要用 npm",
        "- [ ] 评审定在 11 月 12 日",
        "- **09:10** — 好的",
        "  - nested detail 细节",
        "## Decisions",
        "",
        "| a | b |",
        "|---|---|",
        "| 1 | 二 |",
        "```",
        "code line 代码",
        "1. first step",
        "plain paragraph text",
        "- a\r",
        "\ufeff- bom",
    ]
)
NOTE = st.lists(LINES, max_size=12).map(lambda lines: "\n".join(lines))
NOTES = st.dictionaries(st.integers(1, 28), NOTE, max_size=6)


def write_notes(root: Path, notes: dict[int, str], seconds: int) -> None:
    for day, text in notes.items():
        path = root / "memory" / f"2026-09-{day:02d}.md"
        path.write_text(text, encoding="utf-8", newline="")
        age(path, seconds=seconds)


@settings(max_examples=25)
@given(first=NOTES, second=NOTES, core=NOTE)
def test_generated_notes(
    first: dict[int, str], second: dict[int, str], core: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """Notes written, counted twice (cold, then from the cache), then some rewritten (each
    with another mtime, as a later day gives it), added and removed, and counted again."""
    runner = CliRunner()

    def cli(*args: str, input: str | None = None, env: dict[str, str] | None = None) -> Result:
        return runner.invoke(app, list(args), input=input, env=env)

    root = tmp_path_factory.mktemp("generated")
    (root / "memory").mkdir()
    (root / ".memcli").mkdir()
    (root / "MEMORY.md").write_text(core, encoding="utf-8", newline="")
    age(root / "MEMORY.md")
    write_notes(root, first, 7200)
    with pytest.MonkeyPatch.context() as monkeypatch:
        same_as_parsing(cli, root, monkeypatch)
        assert read_now(root) == 0
        same_as_parsing(cli, root, monkeypatch)
        for day in set(first) - set(second):
            (root / "memory" / f"2026-09-{day:02d}.md").unlink()
        write_notes(root, second, 3600)
        same_as_parsing(cli, root, monkeypatch)
        assert read_now(root) == 0
