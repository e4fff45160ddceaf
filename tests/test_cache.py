"""The facts cache (.memcli/cache.sqlite): a run that uses it says exactly what a run
without it says, whatever changed in between; a broken cache is no cache."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

from conftest import NOW, Invoke, as_json, copy_tree
from memcli.workspace.cache import Shared

COMMANDS = (["list"], ["dedupe"], ["gc", "--dry-run"])


def outputs(cli: Invoke, root: Path) -> list[object]:
    return [as_json(cli("--json", "-w", str(root), "--now", NOW, *args)) for args in COMMANDS]


def uncached(cli: Invoke, root: Path, tmp_path: Path) -> list[object]:
    """The same workspace read without any cache: a copy without .memcli/."""
    plain = tmp_path / "plain"
    shutil.rmtree(plain, ignore_errors=True)
    copy_tree(root, plain)
    shutil.rmtree(plain / ".memcli", ignore_errors=True)
    return outputs(cli, plain)


def cached_files(root: Path) -> int:
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:
        return int(db.execute("SELECT count(*) FROM notes").fetchone()[0])


def test_warm_runs_say_what_cold_runs_say(cli: Invoke, sample: Path, tmp_path: Path) -> None:
    (sample / ".memcli").mkdir()
    cold = outputs(cli, sample)
    assert cached_files(sample) > 50
    assert outputs(cli, sample) == cold == uncached(cli, sample, tmp_path)


def test_a_changed_note_is_read_again(cli: Invoke, sample: Path, tmp_path: Path) -> None:
    (sample / ".memcli").mkdir()
    outputs(cli, sample)
    note = sample / "memory" / "2026-10-21.md"
    with open(note, "a", encoding="utf-8") as f:
        f.write("- 以后部署一律走 GitHub Actions，不要手动 scp\n- Lin prefers short commit messages\n")
    after = outputs(cli, sample)
    assert any("不要手动 scp" in e["text"] for e in after[0]["entries"])  # type: ignore[index]
    assert after == uncached(cli, sample, tmp_path)


def test_changed_rules_miss_the_cache(cli: Invoke, sample: Path, tmp_path: Path) -> None:
    (sample / ".memcli").mkdir()
    outputs(cli, sample)
    with open(sample / "memcli.toml", "a", encoding="utf-8") as f:
        f.write('\n[rules.routine]\nadd = ["checked the build"]\n')
    assert outputs(cli, sample) == uncached(cli, sample, tmp_path)


def test_a_broken_cache_is_no_cache(cli: Invoke, sample: Path, tmp_path: Path) -> None:
    (sample / ".memcli").mkdir()
    outputs(cli, sample)
    cache = sample / ".memcli" / "cache.sqlite"
    for suffix in ("-wal", "-shm"):
        Path(f"{cache}{suffix}").unlink(missing_ok=True)
    cache.write_bytes(b"not a database" * 100)
    expected = uncached(cli, sample, tmp_path)
    assert outputs(cli, sample) == expected
    assert cached_files(sample) > 50  # replaced by a sound one
    with sqlite3.connect(cache) as db:  # rows that do not decode are misses
        db.execute("UPDATE notes SET facts = '{not json'")
    assert outputs(cli, sample) == expected
    with sqlite3.connect(cache) as db:
        db.execute("UPDATE notes SET outline = '[1,2'")
    assert outputs(cli, sample) == expected


def test_an_outline_that_does_not_fit_its_note_is_parsed_again(
    cli: Invoke, sample: Path, tmp_path: Path
) -> None:
    (sample / ".memcli").mkdir()
    expected = outputs(cli, sample)
    cache = sample / ".memcli" / "cache.sqlite"
    with sqlite3.connect(cache) as db:  # every note given MEMORY.md's outline, then with its path
        first = db.execute("SELECT outline FROM notes WHERE outline LIKE '[\"MEMORY.md\"%'").fetchone()[0]
        db.execute("UPDATE notes SET outline = ?", (first,))
    assert outputs(cli, sample) == expected
    with sqlite3.connect(cache) as db:
        for sha, outline in db.execute("SELECT sha, outline FROM notes").fetchall():
            path, day, blocks = json.loads(outline)
            db.execute(
                "UPDATE notes SET outline = ? WHERE sha = ?", (json.dumps([path, day, blocks[:-1]]), sha)
            )
    assert outputs(cli, sample) == expected


def test_the_cache_holds_json_only_and_is_never_created_by_reading(cli: Invoke, sample: Path) -> None:
    outputs(cli, sample)
    assert not (sample / ".memcli").exists()
    (sample / ".memcli").mkdir()
    outputs(cli, sample)
    with sqlite3.connect(sample / ".memcli" / "cache.sqlite") as db:
        for facts, outline in db.execute("SELECT facts, outline FROM notes"):
            assert isinstance(json.loads(facts), list)
            assert isinstance(json.loads(outline), list)


def test_status_rebuilds_cached_notes_to_the_same_report(cli: Invoke, sample: Path, tmp_path: Path) -> None:
    (sample / ".memcli").mkdir()
    outputs(cli, sample)  # list, dedupe and gc leave every note's outline in the cache
    with sqlite3.connect(sample / ".memcli" / "cache.sqlite") as db:
        assert db.execute("SELECT count(DISTINCT sha) FROM notes").fetchone()[0] > 50
    warm = as_json(cli("--json", "-w", str(sample), "--now", NOW, "status"))
    plain = tmp_path / "plain"
    copy_tree(sample, plain)
    shutil.rmtree(plain / ".memcli")
    cold = as_json(cli("--json", "-w", str(plain), "--now", NOW, "status"))
    assert isinstance(warm, dict) and isinstance(cold, dict)
    for where in ("workspace", "config"):  # the copy's own paths
        assert warm.pop(where) != cold.pop(where)
    assert warm == cold and warm["roles"]
    assert not (plain / ".memcli").exists()  # status makes no .memcli/


def test_check_and_its_fix_read_cached_notes_as_parsed_ones(
    cli: Invoke, sample: Path, tmp_path: Path
) -> None:
    note = sample / "memory" / "2026-10-02.md"
    with open(note, "a", encoding="utf-8") as f:  # an exact copy within a closed note
        f.write(
            "\n- staging 的 Redis 升级到 7.2，周五之前完成\n- staging 的 Redis 升级到 7.2，周五之前完成\n"
        )
    plain = tmp_path / "plain"
    copy_tree(sample, plain)
    (sample / ".memcli").mkdir()
    outputs(cli, sample)  # the notes' outlines cached
    check = ("--json", "--now", NOW, "check")
    warm = as_json(cli("-w", str(sample), *check))
    cold = as_json(cli("-w", str(plain), *check))
    assert isinstance(warm, dict) and warm == cold and warm["warnings"] >= 1
    fixed_warm = cli("-w", str(sample), *check, "--fix")
    fixed_cold = cli("-w", str(plain), *check, "--fix")
    assert fixed_warm.exit_code == fixed_cold.exit_code == 0, fixed_warm.stderr
    assert note.read_bytes() == (plain / "memory" / "2026-10-02.md").read_bytes()
    assert note.read_text(encoding="utf-8").count("升级到 7.2，周五之前完成") == 1


def rows(root: Path) -> set[tuple[str, bytes]]:
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:
        return set(db.execute("SELECT stamp, sha FROM notes"))


def test_status_and_check_only_read_the_cache(cli: Invoke, sample: Path) -> None:
    with open(sample / "memcli.toml", "a", encoding="utf-8") as f:  # rules of the user's own
        f.write('\n[rules.routine]\nadd = ["checked the build"]\n')
    (sample / ".memcli").mkdir()
    cli("-w", str(sample), "--now", NOW, "check")
    assert not (sample / ".memcli" / "cache.sqlite").exists()  # not created by reading
    cli("-w", str(sample), "--now", NOW, "status")  # keeps its counts of each file, no outline
    with sqlite3.connect(sample / ".memcli" / "cache.sqlite") as db:
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"tallies"}
    outputs(cli, sample)
    before = rows(sample)
    assert len(before) > 50
    config = sample / "memcli.toml"
    kept = config.read_bytes()
    config.write_text("not = [toml\n", encoding="utf-8")  # check falls back to the default rules
    assert cli("-w", str(sample), "--now", NOW, "check").exit_code == 1
    config.write_bytes(kept)
    for command in ("status", "check"):
        cli("-w", str(sample), "--now", NOW, command)
    assert rows(sample) == before  # other rules' stamps did not make them forget the user's rows


def test_texts_facts_share_what_recurs_and_brief_ones_leave_out_the_scoring_text() -> None:
    """A run that holds every text's facts holds equal sets of values and equal signals once,
    the values as a sorted tuple; brief facts (what the Standing is worked out from) keep the
    signals' names only."""
    shared = Shared()
    signals = {"decision": "决定", "preference": "prefer"}
    values = frozenset({"atlas-api", "8080"})
    a = (("deployed atlas api", values, False), "Deployed atlas-api", False, signals)
    b = (
        ("决定 部署 atlas api", frozenset(["8080", "atlas-api"]), False),
        "决定部署 atlas-api",
        True,
        dict(signals),
    )
    fa, fb = shared.fields(a), shared.fields(b)
    held = ("8080", "atlas-api")
    assert fa == ((a[0][0], held, False), *a[1:]) and fb == ((b[0][0], held, False), *b[1:])
    assert fa[0][1] is fb[0][1] and fa[3] is fb[3]
    brief = shared.fields(a, brief=True)
    assert brief[0] == fa[0] and brief[2] == a[2] and brief[1] == ""
    assert brief[3] == {"decision": "", "preference": ""}
    assert shared.fields(b, brief=True)[3] is brief[3] and shared.names(brief[3]) is brief[3]
    plain = shared.fields((("note", frozenset(), False), "note", False, None), brief=True)
    assert plain == (("note", (), False), "", False, None)
