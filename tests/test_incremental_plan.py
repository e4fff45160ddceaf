"""Incremental planning (issue 20): a run given what the judgement worked out last time
(core.memo, kept in .memcli/cache.sqlite) plans exactly what a cold run plans, whatever
changed in between; a memo it cannot trust is never loaded."""

from __future__ import annotations

import io
import os
import pickle
import shutil
import sqlite3
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import NOW, Invoke, as_json, copy_tree, corpus_workspaces
from memcli import services
from memcli.cli_options import GlobalOptions
from memcli.core import lifecycle
from memcli.core.judgement import importance, replacements
from memcli.core.memo import DROPPED_MOST, Memo, Table
from memcli.errors import ConflictError
from memcli.parallel import parallel_map
from memcli.runtime import open_runtime
from memcli.services import STANDING, _read_again, remembered
from memcli.workspace.cache import file_key
from memcli.workspace.layout import scan as scan_layout
from memcli.workspace.memo_store import MemoStore, memo_stamp

COMMANDS = (["gc", "--dry-run"], ["list"], ["dedupe"])

# Lines real notes hold, in both languages: facts and their changes, restatements,
# routine events, values, rules, chatter.
LINES = (
    "- Lin uses Windows 11 on the desktop",
    "- Lin switched to a MacBook now, no longer on Windows",
    "- 数据库用 MySQL 8",
    "- 数据库改用 PostgreSQL 16，不再用 MySQL",
    "- 周会时间是每周二下午三点",
    "- 周会时间改成每周三上午 10 点",
    "- atlas-api runs on port 8080",
    "- atlas-api moved to port 9090",
    "- remember: never force-push to main",
    "- Remember: never force push to main!",
    "- 记住：发布前先跑测试",
    "- 记住: 发布前要先跑测试",
    "- 用户偏好用 pnpm，不要用 npm 安装依赖",
    "- heartbeat OK",
    "- deployed build 4121",
    "- deployed build 4122",
    "- Marco owns the migration runbook, Lin reviews it",
    "- 今天修了登录页的样式",
    "- [ ] review PR #42 before Friday",
    "- 备份脚本放在 /opt/scripts/backup.sh",
    "- the backup script lives in /opt/scripts/backup.sh",
    "- Mark is on leave until 12 May",
    "- 好的",
    "- Correction: the staging host is staging-2, not staging-1",
    "- staging host: staging-1",
)
MEMORY = (
    "# MEMORY.md\n\n## Facts\n\n- Lin uses Windows 11 on the desktop\n- 数据库用 MySQL 8\n"
    "- atlas-api runs on port 8080\n\n## Preferences\n\n- 我喜欢用 pnpm，不要用 npm\n"
)

DAYS = [f"2026-10-{d:02d}" for d in range(1, 31)]

step = st.tuples(
    st.sampled_from(("add", "append", "drop_line", "remove")),
    st.integers(0, len(DAYS) - 1),
    st.lists(st.integers(0, len(LINES) - 1), min_size=1, max_size=6),
)


def outputs(cli: Invoke, root: Path) -> list[object]:
    return [as_json(cli("--json", "-w", str(root), "--now", NOW, *args)) for args in COMMANDS]


def cold(cli: Invoke, root: Path, where: Path) -> list[object]:
    """The same workspace planned from nothing: a copy without .memcli/."""
    shutil.rmtree(where, ignore_errors=True)
    copy_tree(root, where)
    shutil.rmtree(where / ".memcli", ignore_errors=True)
    return outputs(cli, where)


def memo_rows(root: Path) -> dict[str, bytes]:
    """The memo's rows as stored, by name (a table's first row has its name)."""
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:
        return {n: bytes(d) for n, d in db.execute("SELECT name, data FROM memo_tables")}


def stored_table(rows: dict[str, bytes], name: str) -> dict[object, object]:
    """A table read back from its rows without the store: one unpickler over the rows in
    order, each row the columns of its keys beside its values (or the table itself)."""
    mine = [rows[n] for n in sorted(rows) if n == name or n.startswith(f"{name}\0")]
    unpickler = pickle.Unpickler(io.BytesIO(b"".join(mine)))
    table: dict[object, object] = {}
    for _ in mine:
        part = unpickler.load()
        if isinstance(part, dict):  # keys that are not texts: the table as it is
            table.update(part)
            continue
        _, width, columns, values = part
        keys = columns[0] if width == 0 else zip(*columns, strict=True)
        table.update(zip(keys, values, strict=True))
    return table


def apply(root: Path, kind: str, day: int, lines: list[int]) -> None:
    notes = sorted((root / "memory").glob("2026-*.md"))
    text = "".join(LINES[i] + "\n" for i in lines)
    if kind == "add" or not notes:
        path = root / "memory" / f"{DAYS[day]}.md"
        before = path.read_text(encoding="utf-8") if path.exists() else f"# {DAYS[day]}\n\n"
        path.write_text(before + text, encoding="utf-8")
        return
    note = notes[day % len(notes)]
    if kind == "append":
        with open(note, "a", encoding="utf-8") as f:
            f.write(text)
    elif kind == "drop_line":
        kept = note.read_text(encoding="utf-8").splitlines(keepends=True)
        if len(kept) > 3:
            del kept[2 + lines[0] % (len(kept) - 2)]
        note.write_text("".join(kept), encoding="utf-8")
    else:
        note.unlink()


def workspace(root: Path) -> Path:
    (root / "memory").mkdir(parents=True)
    (root / ".memcli").mkdir()
    (root / "MEMORY.md").write_text(MEMORY, encoding="utf-8")
    for n, day in enumerate(DAYS[:12:3]):
        picked = [(n * 7 + k * 5) % len(LINES) for k in range(5)]
        (root / "memory" / f"{day}.md").write_text(
            f"# {day}\n\n" + "".join(LINES[i] + "\n" for i in picked), encoding="utf-8"
        )
    return root


@settings(max_examples=20, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(step, min_size=1, max_size=4))
def test_warm_plans_are_cold_plans_whatever_changed(
    cli: Invoke, tmp_path_factory: pytest.TempPathFactory, steps: list[tuple[str, int, list[int]]]
) -> None:
    base = tmp_path_factory.mktemp("incremental")
    root = workspace(base / "ws")
    assert outputs(cli, root) == cold(cli, root, base / "cold")
    assert memo_rows(root), "the first run keeps its answers"
    for kind, day, lines in steps:
        apply(root, kind, day, lines)
        planned = cold(cli, root, base / "cold")
        assert outputs(cli, root) == planned, (kind, day, lines)
        # again, unchanged: by the Standing the last runs kept (list: each note as it is read)
        assert outputs(cli, root) == planned, ("again", kind, day, lines)


def test_an_unchanged_workspace_finds_every_answer_it_needs(cli: Invoke, tmp_path: Path) -> None:
    """The memo is used, not only written: a second run over the same notes asks nothing
    new of the judgement, so the stored answers stay as they were, byte for byte."""
    root = workspace(tmp_path / "ws")
    first = outputs(cli, root)
    stored = memo_rows(root)
    assert pickle.loads(stored["duplicates.judged"]) and pickle.loads(stored["replacements.judged"])
    assert pickle.loads(stored["planner.importance"]) and pickle.loads(stored["duplicates.sketch"])
    os.utime(root / "MEMORY.md", ns=(0, 0))  # a touched file, not a changed one
    assert outputs(cli, root) == first
    assert memo_rows(root) == stored


def test_loaded_tables_share_their_texts_and_hold_what_was_stored(cli: Invoke, tmp_path: Path) -> None:
    """Each table is a pickle of its own; loaded, a text that keys several tables (or is
    one side of a judged pair) is one object, and each table holds what was stored."""
    root = workspace(tmp_path / "ws")
    outputs(cli, root)
    stored = memo_rows(root)
    run = open_runtime(GlobalOptions(workspace=str(root), now=NOW), environ={}, root=root)
    store = MemoStore(root, memo_stamp(run.policy))
    names = ("duplicates.status", "duplicates.sketch", "duplicates.judged")
    loaded = {name: store.load(name) for name in names}
    for name, table in loaded.items():
        assert table == stored_table(stored, name), name
    status, sketch, judged = (
        loaded["duplicates.status"],
        loaded["duplicates.sketch"],
        loaded["duplicates.judged"],
    )
    assert status is not None and sketch is not None and judged is not None
    by_text = {key: key for key in sketch}
    assert status and all(by_text.get(key, key) is key for key in status)
    assert sum(key in by_text for key in status) > len(status) // 2
    assert judged and all(by_text.get(a, a) is a and by_text.get(b, b) is b for a, b in judged)
    assert any(a in by_text for a, _ in judged)


def test_the_memo_does_not_hold_the_texts_it_was_seeded_with(tmp_path: Path) -> None:
    """The texts a memo's tables share their keys with are taken in, not held: list after a
    change lets go of its facts (keyed by those texts) while the memo is still open."""
    root = workspace(tmp_path / "ws")
    run = open_runtime(GlobalOptions(workspace=str(root), now=NOW), environ={}, root=root)

    class Texts(dict[str, None]):  # (a dict a weak reference can point at)
        pass

    texts = Texts.fromkeys(["- Deploy of atlas-api v2.3 done", "- 周会改到每周三上午 10 点"])
    held = weakref.ref(texts)
    with remembered(run, texts=texts):
        del texts
        assert held() is None


def test_list_keeps_what_it_learnt_of_the_whole_workspace_and_uses_it(cli: Invoke, tmp_path: Path) -> None:
    """A second list over the same notes reads what the first worked out of the whole
    workspace (duplicate groups, routine) instead of working it out again, and lists the
    same; a changed note means working it out again."""
    root = workspace(tmp_path / "ws")
    args = ("--json", "-w", str(root), "--now", NOW, "list")
    first = as_json(cli(*args))
    kept = memo_rows(root)[STANDING]
    assert pickle.loads(kept)
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:  # only list's own table
        db.execute("DELETE FROM memo_tables WHERE name != ?", (STANDING,))
    assert as_json(cli(*args)) == first
    assert set(memo_rows(root)) == {STANDING}, "nothing worked out again"
    note = f"memory/{DAYS[3]}.md"  # only the notes asked for are read again, by their place
    picked = as_json(cli(*args, "--file", note, "--sort", "decayed"))["entries"]
    assert picked and picked == sorted(
        (e for e in first["entries"] if e["file"] == note), key=lambda e: (-e["decayed"], e["line"])
    )
    with open(root / "memory" / f"{DAYS[0]}.md", "a", encoding="utf-8") as f:
        f.write(LINES[3] + "\n")
    again = as_json(cli(*args))
    assert again != first and again == cold(cli, root, tmp_path / "cold")[1]
    assert memo_rows(root)[STANDING] != kept


def test_a_note_that_changes_while_list_reads_it_stops_the_list(tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    run = open_runtime(GlobalOptions(workspace=str(root), now=NOW), environ={}, root=root)
    files = [f for f in scan_layout(root).files if f.is_memory]
    expected = [(k, f, file_key((root / f.rel).read_bytes())) for k, f in enumerate(files)]
    assert [k for k, *_ in _read_again(run, expected)] == list(range(len(files)))
    (root / files[-1].rel).write_text("# changed\n\n- another line\n", encoding="utf-8")
    with pytest.raises(ConflictError, match="changed while it was listed"):
        list(_read_again(run, expected))


class _Planted:
    """Unpickling this runs code: a memo row made by someone else must never be loaded."""

    def __reduce__(self) -> tuple[object, tuple[str]]:
        return (Path.touch, (os.environ["PLANTED"],))


@pytest.mark.parametrize("how", ["wrong mac", "another key"])
def test_a_memo_row_not_made_here_is_never_unpickled(
    cli: Invoke, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    root = workspace(tmp_path / "ws")
    expected = outputs(cli, root)
    planted = tmp_path / "ran"
    monkeypatch.setenv("PLANTED", str(planted))
    data = pickle.dumps({("a", "b"): _Planted()})
    with sqlite3.connect(root / ".memcli" / "cache.sqlite") as db:
        if how == "wrong mac":
            db.execute("UPDATE memo_tables SET data = ?", (data,))
        else:  # a row signed with a key this user does not have
            import hashlib
            import hmac

            for stamp, name in db.execute("SELECT stamp, name FROM memo_tables").fetchall():
                mac = hmac.new(b"k" * 32, f"{stamp}\0{name}\0".encode() + data, hashlib.sha256).digest()
                db.execute(
                    "UPDATE memo_tables SET data = ?, mac = ? WHERE stamp = ? AND name = ?",
                    (data, mac, stamp, name),
                )
    assert outputs(cli, root) == expected
    assert not planted.exists()


def test_without_a_key_nothing_is_trusted_and_a_new_one_is_made(cli: Invoke, tmp_path: Path) -> None:
    root = workspace(tmp_path / "ws")
    expected = outputs(cli, root)
    key = Path(os.environ["HOME"]) / ".cache" / "memcli" / "memo.key"
    assert key.stat().st_mode & 0o777 == 0o600
    old = key.read_bytes()
    key.unlink()
    assert outputs(cli, root) == expected
    assert key.read_bytes() != old


def test_a_table_lets_go_of_the_room_of_what_was_asked_for() -> None:
    """Each answer of last time moves to what this run asked for as it is asked: the
    table's answers stay the same, and what it loaded no longer holds the room of them all
    (a decade's verdicts held twice were 20 MB more); one not asked for yet stays known."""
    import sys

    loaded = {(f"text {i}", f"文本 {i}"): (i % 3 == 0, i / 1000) for i in range(2000)}
    table = Table(dict(loaded))
    full = sys.getsizeof(table.known)
    for k, key in enumerate(loaded):
        if k == 1999:
            break
        asked = table.get(key, lambda: (False, -1.0)) if k % 2 else table.peek(key)
        assert asked == loaded[key]
    last = (f"text {1999}", f"文本 {1999}")
    assert table.has(last) and table.known == {last: loaded[last]}
    assert sys.getsizeof(table.known) < full / 20
    assert table.peek(last) == loaded[last] and table.to_store() == loaded and not table.changed()
    # a table let go of what it did not ask for keeps what it did, and learns more
    dropped = Table({"a": 1, "b": 2})
    assert dropped.peek("a") == 1
    dropped.forget_unasked()
    assert not dropped.has("b") and dropped.get("b", lambda: 3) == 3
    assert dropped.to_store() == {"a": 1, "b": 3} and dropped.changed()


def test_a_table_keeps_what_the_run_asked_for() -> None:
    table = Table({"a": 1, "b": 2})
    assert table.get("a", lambda: 99) == 1
    assert table.get("c", lambda x: x * 2, 21) == 42
    assert table.added == 1 and table.changed()
    assert table.asked == {"a": 1, "c": 42}  # "b" was not asked for: dropped when stored
    table.keep(lambda k: k == "b")
    assert table.asked == {"a": 1, "c": 42, "b": 2}
    quiet = Table({"a": 1})
    quiet.get("a", lambda: 0)
    assert not quiet.changed()
    # an answer of last time asked for is held once, and still known
    pairs = Table({("x", "y"): (True, 1.0), ("x", "z"): (False, 0.2)})
    assert pairs.peek(("x", "y")) == (True, 1.0) and ("x", "y") not in pairs.known
    assert pairs.has(("x", "y")) and pairs.has(("x", "z")) and not pairs.has(("y", "z"))
    assert pairs.peek(("x", "y")) == (True, 1.0) and pairs.get(("x", "y"), lambda: (False, 0.0)) == (
        True,
        1.0,
    )
    assert pairs.changed()  # ("x", "z") was not asked for: dropped when stored
    assert pairs.get(("x", "z"), lambda: (True, 0.0)) == (False, 0.2) and not pairs.changed()
    stored: dict[str, object] = {}
    memo = Memo(loader={"t": {"x": 1}, "u": {"y": 1}}.get, sink=stored.__setitem__)
    memo.table("run-only", stored=False).get("y", lambda: 2)
    assert memo.table("u").get("y", lambda: 0) == 1  # loaded when first asked for
    memo.table("t").get("z", lambda: 3)
    memo.finish("t", "u", "run-only")
    assert stored == {"t": {"z": 3}}  # "u" was as it was; a run-only table is never stored
    assert not memo.tables


def test_a_table_hands_back_its_new_answers_alone_when_nothing_else_changed() -> None:
    """What `Memo.finish` adds to the stored rows instead of storing a table whole: the
    answers worked out or learnt this run, when every answer of last time was asked for
    (or kept) as it was."""
    table = Table({"a": 1, "b": 2})
    table.get("a", lambda: 0)
    table.get("c", lambda: 3)
    table.learn("d", 4)
    assert table.fresh() is None  # "b" not asked for: stored whole
    table.keep(lambda key: True)
    assert table.fresh() == {"c": 3, "d": 4}
    for change in (lambda t: t.put("a", 9), lambda t: t.remap(lambda v: v)):
        other = Table({"a": 1})
        other.get("a", lambda: 0)
        other.get("e", lambda: 5)
        change(other)
        assert other.fresh() is None  # an answer of last time put another way: stored whole
    new = Table()
    new.put("last", 1)
    assert new.fresh() == {"last": 1}
    # one answer in DROPPED_MOST or fewer not asked for again: it stays stored, unused
    big = Table({n: n for n in range(2 * DROPPED_MOST)})
    for n in range(3, 2 * DROPPED_MOST):
        big.get(n, lambda: -1)
    big.get("new", lambda: 0)
    assert big.fresh() is None
    big.get(2, lambda: -1)  # two of 400 dropped
    assert big.fresh() == {"new": 0}
    added: dict[str, object] = {}
    whole: dict[str, object] = {}
    memo = Memo(
        loader={"t": {"x": 1}, "u": {"y": 1}}.get,
        sink=whole.__setitem__,
        append=lambda name, answers: name == "t" and not added.update({name: answers}),
    )
    for name in ("t", "u"):
        table = memo.table(name)
        table.get("x" if name == "t" else "y", lambda: 0)
        table.get("z", lambda: 3)
    memo.finish("t", "u")
    assert added == {"t": {"z": 3}} and whole == {"u": {"y": 1, "z": 3}}  # "u": the appender said no


def test_the_labels_a_weekly_digest_files_entries_by_are_remembered(cli: Invoke, tmp_path: Path) -> None:
    """gc summarises each closed week; the importance label each digest files an entry by
    is kept in the memo, and a second run over the same notes digests from it alone."""
    root = workspace(tmp_path / "ws")
    first = as_json(cli("--json", "-w", str(root), "--now", NOW, "gc", "--dry-run"))
    assert [a for a in first["actions"] if a["action"] == "summarize"], "closed weeks are summarised"
    labels = stored_table(memo_rows(root), "planner.digest_label")
    assert labels and all(isinstance(v, importance.Verdict) for v in labels.values())
    before = memo_rows(root)
    again = as_json(cli("--json", "-w", str(root), "--now", NOW, "gc", "--dry-run"))
    assert again == first == cold(cli, root, tmp_path / "cold")[0]
    assert {n: d for n, d in memo_rows(root).items() if n.startswith("planner.digest_label")} == {
        n: d for n, d in before.items() if n.startswith("planner.digest_label")
    }  # nothing new to label: the rows stay as they were


def test_a_first_run_reading_ahead_on_every_core_plans_what_one_reading_as_it_goes_plans(
    cli: Invoke, sample: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A first run reads the supersede search's texts and judges the importance labels in
    forked workers (from 2,000 new texts or entries; here from one), and plans what a run
    reading each as it asks for it plans, then keeps the same memo: the run after it finds
    every answer it needs there."""
    workspaces = [sample, *(copy_tree(w, sample.parent / w.name) for w in corpus_workspaces()[:1])]
    for root in workspaces:  # (the corpus is read-only where it lies)
        for folder, _, _ in os.walk(root):
            os.chmod(folder, 0o755)
    plans = {}
    for root in workspaces:
        (root / ".memcli").mkdir(exist_ok=True)
        plans[root] = cli("--json", "-w", str(root), "--now", NOW, "gc", "--dry-run").stdout
        shutil.rmtree(root / ".memcli")
        (root / ".memcli").mkdir()
    read_ahead: list[str] = []

    def forked(function: Callable[[str], object], texts: Sequence[str]) -> list[object]:
        read_ahead.append(getattr(function, "__name__", ""))
        return parallel_map(function, texts, min_items=1)

    monkeypatch.setattr(replacements, "READ_AHEAD_FROM", 1)
    monkeypatch.setattr(lifecycle, "READ_AHEAD_FROM", 1)
    monkeypatch.setattr(services, "parallel_reads", forked)
    for root in workspaces:
        read_ahead.clear()
        assert cli("--json", "-w", str(root), "--now", NOW, "gc", "--dry-run").stdout == plans[root]
        assert "read_for_search" in read_ahead and "<lambda>" in read_ahead, read_ahead  # (the labels')
        read_ahead.clear()
        assert cli("--json", "-w", str(root), "--now", NOW, "gc", "--dry-run").stdout == plans[root]
        assert "read_for_search" not in read_ahead and "<lambda>" not in read_ahead  # (all in the memo)
