"""memcli search (SPEC §10): the index, Chinese and English words, incremental refresh, ranking."""

from __future__ import annotations

import os
import sqlite3
import stat
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from conftest import NOW, Invoke, as_json
from memcli.cli.contract import ENTRY_KEYS
from memcli.core.recall import index_terms, query_terms


def search(cli: Invoke, root: Path, *args: str) -> dict[str, object]:
    return as_json(cli("--json", "-w", str(root), "--now", NOW, "search", *args))  # type: ignore[no-any-return]


def texts(report: dict[str, object]) -> list[str]:
    return [str(h["text"]) for h in report["hits"]]  # type: ignore[attr-defined]


def test_chinese_two_character_words_and_english_words_are_found(cli: Invoke, sample: Path) -> None:
    meeting = search(cli, sample, "周会")
    assert meeting["hits"] and all("周会" in t for t in texts(meeting))
    hit = meeting["hits"][0]  # type: ignore[index]
    assert set(hit) == {*ENTRY_KEYS, "end_line", "rank"} and hit["end_line"] >= hit["line"]
    assert any("Asia/Shanghai" in t for t in texts(search(cli, sample, "时区")))
    assert any("8080" in t for t in texts(search(cli, sample, "port 8080")))
    assert texts(search(cli, sample, "nosuchwordanywhere")) == []
    assert len(texts(search(cli, sample, "pnpm", "--limit", "2"))) == 2


def test_touching_one_file_reindexes_that_file_alone(cli: Invoke, sample: Path) -> None:
    first = search(cli, sample, "pnpm")
    assert len(first["reindexed"]) > 50  # type: ignore[arg-type]
    assert search(cli, sample, "pnpm")["reindexed"] == []
    note = sample / "memory" / "2026-10-21.md"
    with open(note, "a", encoding="utf-8") as f:
        f.write("- 新的周会纪要：改到周四\n")
    again = search(cli, sample, "周四")
    assert again["reindexed"] == ["memory/2026-10-21.md"]
    assert any("改到周四" in t for t in texts(again))
    os.utime(sample / "MEMORY.md")  # a new mtime, the same bytes: read, not re-indexed
    assert search(cli, sample, "pnpm")["reindexed"] == []


def test_files_added_or_removed_in_subfolders_are_seen(cli: Invoke, sample: Path) -> None:
    assert search(cli, sample, "zanzibar")["hits"] == []
    extra = sample / "memory" / "projects" / "trip.md"
    extra.parent.mkdir()
    extra.write_text("# Trip\n\n- Zanzibar offsite in March\n", encoding="utf-8")
    found = search(cli, sample, "zanzibar")
    assert found["reindexed"] == ["memory/projects/trip.md"] and texts(found)
    extra.unlink()
    assert search(cli, sample, "zanzibar")["hits"] == []


def test_the_index_is_safe_to_delete_and_rebuilt_when_its_schema_changes(cli: Invoke, sample: Path) -> None:
    search(cli, sample, "pnpm")
    index = sample / ".memcli" / "index.sqlite"
    assert index.exists()
    for suffix in ("", "-wal", "-shm"):
        Path(f"{index}{suffix}").unlink(missing_ok=True)
    assert texts(search(cli, sample, "周会"))
    with sqlite3.connect(index) as db:
        db.execute("UPDATE meta SET value = 'old' WHERE key = 'schema'")
    rebuilt = search(cli, sample, "周会")
    assert len(rebuilt["reindexed"]) > 50 and texts(rebuilt)  # type: ignore[arg-type]


def test_one_fact_said_on_ten_days_takes_one_slot(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "w"
    (root / "memory").mkdir(parents=True)
    (root / "MEMORY.md").write_text("# M\n\n- atlas-api runs on port 8080 in staging\n", encoding="utf-8")
    for day in range(10, 20):
        (root / "memory" / f"2026-10-{day}.md").write_text(
            f"# 2026-10-{day}\n\n- deployed atlas-api to staging\n", encoding="utf-8"
        )
    (root / "memory" / "2026-10-25.md").write_text(
        "# 2026-10-25\n\n- atlas-api staging database moved to PostgreSQL 16\n", encoding="utf-8"
    )
    found = texts(search(cli, root, "atlas-api staging", "--limit", "3"))
    assert sum("deployed atlas-api to staging" in t for t in found) == 1
    assert len(found) == 3


def test_importance_ranks_equally_relevant_entries(cli: Invoke, tmp_path: Path) -> None:
    root = tmp_path / "w"
    (root / "memory").mkdir(parents=True)
    (root / "memory" / "2026-10-30.md").write_text(
        "# 2026-10-30\n\n- deploy window friday\n- deploy window friday <!-- importance: 9 -->\n"
        "- deploy window friday ok\n",
        encoding="utf-8",
    )
    hits = search(cli, root, "deploy window", "--limit", "3")["hits"]
    assert hits[0]["line"] == 4  # type: ignore[index]
    assert hits[0]["rank"] > hits[1]["rank"]  # type: ignore[index]
    assert hits[0]["score"] == 9  # type: ignore[index]


def test_a_read_only_workspace_is_searched_with_an_index_in_memory(cli: Invoke, sample: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(sample):
        for name in filenames + dirnames:
            os.chmod(os.path.join(dirpath, name), stat.S_IREAD | (stat.S_IEXEC if name in dirnames else 0))
    os.chmod(sample, stat.S_IREAD | stat.S_IEXEC)
    try:
        assert texts(search(cli, sample, "周会"))
        assert not (sample / ".memcli").exists()
    finally:
        for dirpath, _, filenames in os.walk(sample):
            os.chmod(dirpath, 0o755)
            for name in filenames:
                os.chmod(os.path.join(dirpath, name), 0o644)


@given(
    st.text(alphabet=st.sampled_from("周会时区改到上午十点 ab8080-_.，"), min_size=1, max_size=30), st.data()
)
def test_every_piece_of_an_entry_is_a_query_that_finds_it(text: str, data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(text) - 1))
    piece = text[start : data.draw(st.integers(start + 1, len(text)))]
    indexed = set(index_terms(text).split())
    wanted = query_terms(piece)
    # a piece cut inside a word of another script may not be a whole word; Chinese pieces always are
    if all(ord(ch) > 0x2E80 for ch in piece):
        assert set(wanted) <= indexed, (text, piece)
