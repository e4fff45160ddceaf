"""The memo's tables as rows of .memcli/cache.sqlite (workspace.memo_store): a table is
stored and loaded a row at a time, and read back exactly as it was; rows that were not
stored together, or that this user did not make, are never read as a table."""

from __future__ import annotations

import os
import pickle
import sqlite3
from pathlib import Path

import pytest

from memcli.workspace.memo_store import ADDED, ADDED_MOST, MemoStore, _key, _mac, memo_state

STAMP = "stamp"


def rows(root: Path) -> list[tuple[str, bytes, bytes]]:
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:
        return [
            (n, bytes(m), bytes(d))
            for n, m, d in db.execute("SELECT name, mac, data FROM memo_tables ORDER BY name")
        ]


def workspace(tmp_path: Path) -> Path:
    (tmp_path / ".memcli").mkdir(parents=True)
    return tmp_path


def texts(n: int, tag: str = "") -> list[str]:
    return [f"- note {i} {tag} 第{i}条".strip() for i in range(n)]


def test_a_table_of_many_rows_is_read_back_as_it_was_stored(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    feature = "".join(["shared-", "feature"])  # one object in every row's values
    by_text = {t: (i % 3 == 0, (feature, f"own {i}")) for i, t in enumerate(texts(10))}
    pairs = {(a, b): (False, 0.0) for a, b in zip(texts(10), texts(10)[1:], strict=False)}
    other = {7: "not a text", "x": 1}  # keys that are not texts: one row, as it is
    store = MemoStore(root, STAMP, part=3)
    for name, table in (("by_text", by_text), ("pairs", pairs), ("other", other)):
        store.store(name, table)
    names = [n for n, _, _ in rows(root)]
    assert names.count("by_text") == 1 and sum(n.startswith("by_text\0") for n in names) == 3  # 4 rows of 3
    assert sum(n.startswith("pairs\0") for n in names) == 2 and "other" in names
    loaded = MemoStore(root, STAMP, part=3)
    again = {name: loaded.load(name) for name in ("by_text", "pairs", "other")}
    assert again == {"by_text": by_text, "pairs": pairs, "other": other}
    assert list(again["by_text"] or ()) == list(by_text)  # in the order stored
    values = list((again["by_text"] or {}).values())
    assert all(v[1][0] is values[0][1][0] for v in values)  # one string across the rows
    by_key = {t: t for t in again["by_text"] or ()}
    assert all(by_key[a] is a and by_key[b] is b for a, b in again["pairs"] or ())  # texts shared
    assert memo_state(root, STAMP)[0] == 3  # tables, not rows


def test_a_smaller_table_leaves_no_row_of_the_bigger_one(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    store = MemoStore(root, STAMP, part=2)
    store.store("t", dict.fromkeys(texts(9), 1))
    store.store("t", dict.fromkeys(texts(3, "new"), 2))
    assert [n for n, _, _ in rows(root)] == ["t", "t\x00000001"]
    assert MemoStore(root, STAMP, part=2).load("t") == dict.fromkeys(texts(3, "new"), 2)
    store.store("t", {})
    assert MemoStore(root, STAMP).load("t") == {}


class _Planted:
    """Unpickling this runs code."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Path.touch, (os.environ["PLANTED"],))


def test_a_row_of_another_store_or_another_hand_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = workspace(tmp_path)
    store = MemoStore(root, STAMP, part=2)
    store.store("t", {t: i for i, t in enumerate(texts(6, "old"))})
    old = rows(root)
    store.store("t", {t: i for i, t in enumerate(texts(6, "new"))})
    assert MemoStore(root, STAMP, part=2).load("t") is not None
    # the last row of the earlier store put back: its MAC is good, but it followed other rows
    name, mac, data = old[-1]
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:
        db.execute("UPDATE memo_tables SET mac = ?, data = ? WHERE name = ?", (mac, data, name))
    assert MemoStore(root, STAMP, part=2).load("t") is None
    # a row that is not a pickle this user made: never unpickled
    store.store("t", {t: i for i, t in enumerate(texts(6, "new"))})
    planted = tmp_path / "ran"
    monkeypatch.setenv("PLANTED", str(planted))
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:
        db.execute(
            "UPDATE memo_tables SET data = ? WHERE name = ?", (pickle.dumps(_Planted()), "t\x00000002")
        )
    assert MemoStore(root, STAMP, part=2).load("t") is None
    assert not planted.exists()
    # a row missing from the middle: not a table
    store.store("t", {t: i for i, t in enumerate(texts(6, "new"))})
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:
        db.execute("DELETE FROM memo_tables WHERE name = ?", ("t\x00000001",))
    assert MemoStore(root, STAMP, part=2).load("t") is None


def test_a_table_that_only_gained_answers_adds_them_as_a_row_of_their_own(tmp_path: Path) -> None:
    """A run that asked for every answer of last time and worked out a few more adds those
    as one row: the rows stored before stay as they were, and the table loads as it would
    have been stored whole; a run that dropped an answer stores it whole."""
    root = workspace(tmp_path)
    first = {t: (i, f"value {i}") for i, t in enumerate(texts(7))}
    MemoStore(root, STAMP, part=3).store("t", first)
    before = rows(root)
    for night in range(3):
        store = MemoStore(root, STAMP, part=3)
        memo = store.memo()
        table = memo.table("t")
        for key in list(first):
            table.get(key, lambda: pytest.fail("known"))
        new = f"- 第 {night} 天的笔记"
        assert table.get(new, lambda n=night: (n, "新")) == (night, "新")
        memo.finish("t")
        first[new] = (night, "新")
        now = rows(root)
        assert now[: len(before)] == before and len(now) == len(before) + 1 + night
        assert now[-1][2][:1] == ADDED
        assert MemoStore(root, STAMP, part=3).load("t") == first
    # a text no longer asked for: the table is stored whole, in rows of its own again
    store = MemoStore(root, STAMP, part=3)
    memo = store.memo()
    table = memo.table("t")
    kept = list(first)[1:]
    for key in kept:
        table.get(key, lambda: pytest.fail("known"))
    memo.finish("t")
    assert all(data[:1] != ADDED for _, _, data in rows(root))
    assert MemoStore(root, STAMP, part=3).load("t") == {key: first[key] for key in kept}


def test_answers_are_added_so_many_times_then_the_table_is_stored_whole(tmp_path: Path) -> None:
    root = workspace(tmp_path)
    MemoStore(root, STAMP).store("t", {"a": 1})
    for n in range(ADDED_MOST + 1):
        store = MemoStore(root, STAMP)
        assert store.load("t") is not None
        assert store.append("t", {f"k{n}": n}) is (n < ADDED_MOST)
        if n == ADDED_MOST:
            assert sum(data[:1] == ADDED for _, _, data in rows(root)) == ADDED_MOST
    # a store that did not load the table, or loaded it before another run added to it: no
    assert MemoStore(root, STAMP).append("t", {"x": 1}) is False
    one, two = MemoStore(root, STAMP), MemoStore(root, STAMP)
    one.store("t", {"a": 1})
    assert one.load("t") == {"a": 1} and two.load("t") == {"a": 1}
    assert one.append("t", {"b": 2}) and not two.append("t", {"c": 3})
    assert MemoStore(root, STAMP).load("t") == {"a": 1, "b": 2}


def test_an_added_row_out_of_place_or_not_made_here_is_never_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = workspace(tmp_path)
    store = MemoStore(root, STAMP, part=2)
    store.store("t", dict.fromkeys(texts(4), 1))
    assert store.load("t") is not None and store.append("t", {"new": 2})
    name = rows(root)[-1][0]
    planted = tmp_path / "ran"
    monkeypatch.setenv("PLANTED", str(planted))
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:
        db.execute("UPDATE memo_tables SET data = ? WHERE name = ?", (ADDED + pickle.dumps(_Planted()), name))
    assert MemoStore(root, STAMP, part=2).load("t") is None and not planted.exists()
    # rows of the table itself after an added row, each MAC good: not a table
    store = MemoStore(root, STAMP, part=2)
    store.store("t", dict.fromkeys(texts(4), 1))
    made = rows(root)
    key = _key(create=False)
    assert key is not None
    order = [made[0][2], ADDED + pickle.dumps({"added": 2}), made[1][2]]
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:
        db.execute("DELETE FROM memo_tables")
        before = b""
        for k, data in enumerate(order):
            row = "t" if k == 0 else f"t\x00{k:06d}"
            before = _mac(key, STAMP, row, before + data)
            db.execute("INSERT INTO memo_tables VALUES (?, ?, ?, ?)", (STAMP, row, before, data))
    assert MemoStore(root, STAMP, part=2).load("t") is None
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:  # (in their order, they load)
        db.execute("DELETE FROM memo_tables")
        before = b""
        for k, data in enumerate([order[0], order[2], order[1]]):
            row = "t" if k == 0 else f"t\x00{k:06d}"
            before = _mac(key, STAMP, row, before + data)
            db.execute("INSERT INTO memo_tables VALUES (?, ?, ?, ?)", (STAMP, row, before, data))
    assert MemoStore(root, STAMP, part=2).load("t") == {**dict.fromkeys(texts(4), 1), "added": 2}
