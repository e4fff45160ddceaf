"""Applying a plan as one reversible transaction (SPEC §7, §14).

Order of work, so that a crash at any instant leaves every entry in at least one file:

1. the journal (`.memcli/journal/<tx>/`) with the bytes of every file about to change,
   written and fsynced before anything else;
2. new copies first: the trash, archive files, summaries, MEMORY.md additions;
3. then removals from the notes they leave;
4. then whole notes moved to the archive (hard link, then unlink);
5. the ledger (`.memcli/ledger.jsonl`), then the journal marked applied.

A journal left `prepared` by a crash is rolled back by the next writing run.
`undo` reverts the last applied transaction, journaled too: it marks the transaction
`undoing` before it writes, and a run killed half way is finished by the next one. Every
step of a revert can be done again. Lines an agent appended to a file after memcli wrote it
survive all of these: they are carried onto the restored bytes; text an `undo --force`
overwrites goes to the trash first.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
import shutil
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any

from memcli.core.lifecycle import Event, FileWrite, History, Plan, Trashed
from memcli.core.roles import STATE_DIR
from memcli.core.withheld import holds_secret
from memcli.errors import ConflictError, DataError, Interrupted
from memcli.workspace.files import (
    NOFOLLOW,
    FileState,
    adopt_owner,
    append_bytes,
    atomic_write,
    display,
    ensure_writable,
    fsync_dir,
    make_dirs,
    naming,
    newline_of,
    read_state,
    recover_carried,
    remove_stale_temp_files,
    resolve_inside,
    temp_name,
    usable_state_dir,
)
from memcli.workspace.layout import scan

# the ledger is a history, not a place memory lives: a text holding a secret is not copied
# into it (the trash keeps the entry whole, to give it back)
SECRET_WITHHELD = "(text withheld: it holds a secret; see its place)"
JOURNAL_DIR = f"{STATE_DIR}/journal"
TRASH_DIR = f"{STATE_DIR}/trash"
LEDGER = f"{STATE_DIR}/ledger.jsonl"
PREPARED, APPLIED, ROLLED_BACK, UNDONE = "prepared", "applied", "rolled_back", "undone"
UNDOING = "undoing"  # an undo under way: the next run finishes it


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass(frozen=True, slots=True)
class Outcome:
    tx: str
    files: tuple[str, ...]
    carried: int  # bytes appended by others during the writes, carried over


# --- journal ----------------------------------------------------------------------------


class Journal:
    def __init__(self, root: Path, tx: str) -> None:
        self.root = root
        self.tx = tx
        self.folder = root / JOURNAL_DIR / tx
        self.data: dict[str, Any] = {}

    @classmethod
    def create(cls, root: Path, command: str, now: datetime) -> Journal:
        tx = f"{now.strftime('%Y%m%dT%H%M%S')}-{secrets.token_hex(3)}"
        journal = cls(root, tx)
        make_dirs(journal.folder, root)
        journal.data = {
            "tx": tx,
            "command": command,
            "state": PREPARED,
            "time": now.isoformat(),
            "created_ns": time.time_ns(),  # real order of transactions, whatever --now says
            "files": [],
        }
        return journal

    @classmethod
    def load(cls, root: Path, tx: str) -> Journal:
        journal = cls(root, tx)
        try:
            journal.data = json.loads((journal.folder / "journal.json").read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise DataError(f"journal {tx} cannot be read ({exc})", "remove it with `memcli purge`") from None
        return journal

    @property
    def state(self) -> str:
        return str(self.data.get("state"))

    def blob(self, name: str) -> Path:
        return self.folder / name

    def keep(self, name: str, data: bytes) -> str:
        path = self.folder / name
        with naming(path), open(path, "wb") as f:
            adopt_owner(f.fileno(), self.folder)
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        return name

    def save(self, state: str | None = None) -> None:
        if state is not None:
            self.data["state"] = state
        path = self.folder / "journal.json"
        payload = json.dumps(self.data, ensure_ascii=False, indent=1).encode("utf-8")
        old = read_state(path, self.root, 1 << 30) if path.exists() else None
        atomic_write(path, payload, self.root, old)
        fsync_dir(self.folder)


def journals(root: Path) -> list[Journal]:
    """Every journal, oldest first. A folder without its journal.json is not one yet: a run
    killed while it kept the old bytes, before it wrote a byte elsewhere."""
    folder = root / JOURNAL_DIR
    if not folder.is_dir():
        return []
    found = [
        Journal.load(root, name)
        for name in os.listdir(folder)
        if (folder / name).is_dir() and (folder / name / "journal.json").exists()
    ]
    return sorted(found, key=lambda j: (j.data.get("created_ns", 0), j.tx))


def _remove_unfinished_journals(root: Path) -> None:
    """Folders a run left before its journal.json existed (call under the workspace lock)."""
    folder = root / JOURNAL_DIR
    if folder.is_dir():
        for name in os.listdir(folder):
            path = folder / name
            if path.is_dir() and not path.is_symlink() and not (path / "journal.json").exists():
                shutil.rmtree(path)


# --- applying ---------------------------------------------------------------------------


def _order(write: FileWrite) -> int:
    """New copies first, then removals, then moves."""
    if write.move_to is not None:
        return 3
    if (
        write.before is None
        or write.path.startswith("memory/archive/")
        or write.path.startswith("memory/summaries/")
    ):
        return 0
    if write.path in ("MEMORY.md", "memory.md"):
        return 1
    return 2


def apply_plan(
    root: Path, plan: Plan, command: str, now: datetime, max_bytes: int, trash_reason: str = ""
) -> Outcome:
    """Write every change of `plan` as one transaction. Call under the workspace lock."""
    writes = sorted(plan.writes, key=_order)
    _preflight(root, [p for w in writes for p in (w.path, w.move_to) if p is not None])
    states: dict[str, FileState | None] = {}
    for w in writes:
        state = _check(root, w, max_bytes)
        states.setdefault(w.path, state)  # a note rewritten, then moved: the state read first
    journal = Journal.create(root, command, now)
    entries: list[dict[str, Any]] = []
    written: dict[str, bytes] = {}  # a note rewritten, then moved, moves with its new bytes
    for n, w in enumerate(writes):
        state = states[w.path]
        if w.move_to is not None:
            assert state is not None
            moved = written.get(w.path, state.data)
            entries.append({"path": w.path, "op": "move", "to": w.move_to, "sha": _sha(moved)})
            continue
        assert w.after is not None
        after = w.after.encode("utf-8")
        if state is None:
            entries.append({"path": w.path, "op": "create", "after": journal.keep(f"after-{n}", after)})
        else:
            extra = state.data[len(w.before.encode("utf-8")) :] if w.before is not None else b""
            written[w.path] = after + extra
            entries.append(
                {
                    "path": w.path,
                    "op": "rewrite",
                    "before": journal.keep(f"before-{n}", state.data),
                    "after": journal.keep(f"after-{n}", after + extra),
                    "inode": state.inode,  # a rewrite makes a new inode: tells written from not
                }
            )
    journal.data["files"] = entries
    journal.data["dirs"] = _missing_dirs(root, writes)
    trash_path = _trash_path(root, journal.tx, now) if plan.trash else None
    journal.data["trash"] = trash_path
    journal.save()
    carried = 0
    try:
        if trash_path is not None:
            _write_trash(root, trash_path, plan.trash, journal.tx, now)
        for entry in entries:
            carried += _do(root, journal, entry, states[entry["path"]])
        append_ledger(root, plan.events, journal.tx, now)
    except KeyboardInterrupt as exc:
        if _roll_back(root, journal, now):
            raise Interrupted("what it had written was rolled back; nothing was changed") from exc
        raise Interrupted("the next memcli run rolls back what it had written") from exc
    except BaseException:
        _roll_back(root, journal, now)
        raise
    journal.save(APPLIED)
    return Outcome(journal.tx, tuple(e["path"] for e in entries), carried)


def _roll_back(root: Path, journal: Journal, now: datetime) -> bool:
    """A write failed half way (a full disk, a file made read-only meanwhile, Ctrl-C): put
    back what was written before the error leaves. When that fails too, the journal stays
    prepared and the next writing run rolls it back (recover); False says so."""
    with contextlib.suppress(Exception):
        revert(root, journal, force=False)
        with contextlib.suppress(Exception):
            append_ledger(
                root, [Event("rolled_back", "-", journal.tx, reason="failed; rolled back")], journal.tx, now
            )
        journal.save(ROLLED_BACK)
        return True
    return False


def _preflight(root: Path, rels: Iterable[str]) -> None:
    """Every file a transaction will write, create, move or remove: inside the workspace and
    writable (by its mode too, for root), checked before anything is written."""
    for rel in dict.fromkeys(rels):
        path = root / rel
        resolve_inside(path, root)
        folder = path.parent
        while not folder.exists() and folder != root:
            folder = folder.parent  # make_dirs will create the rest inside this one
        ensure_writable(path if folder == path.parent else folder / "_", root)


def _missing_dirs(root: Path, writes: Sequence[FileWrite]) -> list[str]:
    """Folders this transaction will create (an undo removes them again when empty)."""
    missing: set[str] = set()
    for w in writes:
        rel = w.move_to or w.path
        parent = Path(rel).parent
        while parent != Path(".") and not (root / parent).exists():
            missing.add(parent.as_posix())
            parent = parent.parent
    return sorted(missing, key=lambda d: (-d.count("/"), d))


def _check(root: Path, write: FileWrite, max_bytes: int) -> FileState | None:
    """The file as it is now, which must still be what the plan was made from."""
    path = root / write.path
    if write.before is None and write.move_to is None:
        if path.exists() or path.is_symlink():
            raise ConflictError(f"{write.path} appeared while memcli planned", "run gc again")
        return None
    state = read_state(path, root, max_bytes)
    if write.before is not None and not state.data.startswith(write.before.encode("utf-8")):
        raise ConflictError(f"{write.path} changed while memcli planned", "nothing was written; run gc again")
    if write.move_to is not None and (root / write.move_to).exists():
        raise ConflictError(f"{write.move_to} already exists", "nothing was written; move it away first")
    return state


def _do(root: Path, journal: Journal, entry: dict[str, Any], state: FileState | None) -> int:
    path = root / entry["path"]
    if entry["op"] == "move":
        _move(root, path, root / entry["to"])
        return 0
    data = journal.blob(entry["after"]).read_bytes()
    make_dirs(path.parent, root)
    return atomic_write(path, data, root, state)


def _move(root: Path, source: Path, target: Path) -> None:
    """Move a file unchanged (same inode, mode and time): link, then unlink."""
    real = resolve_inside(source, root)
    make_dirs(target.parent, root)
    resolve_inside(target, root)
    try:
        os.link(real, target)
    except OSError:  # another file system: a copy, with the mode, times and owner kept
        shutil.copy2(real, target)
        adopt_owner(target, real)
    fsync_dir(target.parent)
    os.unlink(real)
    fsync_dir(real.parent)


def _trash_path(root: Path, tx: str, now: datetime) -> str:
    return f"{TRASH_DIR}/{now.date().isoformat()}-{tx}.jsonl"


def _write_trash(root: Path, rel: str, records: Iterable[Trashed], tx: str, now: datetime) -> None:
    lines = [
        json.dumps(
            {
                "tx": tx,
                "time": now.isoformat(),
                "id": r.id,
                "action": r.action,
                "from": r.source,
                "reason": r.reason,
                "text": r.text,
            },
            ensure_ascii=False,
        )
        for r in records
    ]
    path = root / rel
    make_dirs(path.parent, root)
    atomic_write(path, ("\n".join(lines) + "\n").encode("utf-8"), root, None)


def record_events(root: Path, events: Iterable[Event], now: datetime) -> None:
    """What a run that changed no file learnt (a core entry's first record or last mention):
    the ledger only, under no transaction, so there is nothing to undo."""
    append_ledger(root, events, "-", now)


def append_ledger(root: Path, events: Iterable[Event], tx: str, now: datetime) -> None:
    lines = [
        json.dumps(
            {
                "tx": tx,
                "time": now.isoformat(),
                "action": e.action,
                "id": e.id,
                "text_hash": e.text_hash,
                "from": e.source,
                "to": e.to,
                "reason": e.reason,
                "day": e.day or now.date().isoformat(),
                "text": SECRET_WITHHELD if holds_secret(e.text) else e.text[:2000],
            },
            ensure_ascii=False,
        )
        for e in events
    ]
    if not lines:
        return
    path = root / LEDGER
    make_dirs(path.parent, root)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW, 0o644)
    adopt_owner(fd, path.parent)
    os.close(fd)
    payload = ("\n".join(lines) + "\n").encode("utf-8")
    with open(path, "rb") as f:  # a line a killed run left half written stays a line of its own
        size = f.seek(0, os.SEEK_END)
        if size and (f.seek(size - 1), f.read(1))[1] != b"\n":
            payload = b"\n" + payload
    append_bytes(path, payload)  # all of it or none: a write cut short is taken back


# --- reverting --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Reverted:
    tx: str
    restored: tuple[str, ...]
    conflicts: tuple[str, ...]  # changed since in another way than appended to
    kept: str | None = None  # where their text went when they were overwritten (--force)
    command: str = ""  # what made the transaction (gc, restore, summarize, check --fix)
    time: str = ""  # its --now


@dataclass(frozen=True, slots=True)
class Recovered:
    """A transaction a killed run left, dealt with by the next one."""

    tx: str
    finished_undo: bool  # an interrupted undo finished; else a prepared transaction rolled back

    def describe(self) -> str:
        if self.finished_undo:
            return f"finished undoing transaction {self.tx}, which a crash interrupted"
        return f"rolled back transaction {self.tx}, which a crash interrupted"


class _Keeper:
    """Text that a revert overwrites goes to `.memcli/trash/<day>-undo-<tx>.jsonl` first, a
    record a file, appended and fsynced before the file is touched."""

    def __init__(self, root: Path, tx: str, now: datetime) -> None:
        self.root = root
        self.tx = tx
        self.now = now
        self.rel = f"{TRASH_DIR}/{now.date().isoformat()}-undo-{tx}.jsonl"
        self.used = False

    def keep(self, rel: str, data: bytes, why: str) -> None:
        record = {
            "tx": self.tx,
            "time": self.now.isoformat(),
            "id": "-",
            "action": "undo",
            "from": rel,
            "reason": why,
            "text": data.decode("utf-8", "replace"),
        }
        path = self.root / self.rel
        make_dirs(path.parent, self.root)
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | NOFOLLOW, 0o644)
        adopt_owner(fd, path.parent)
        os.close(fd)
        append_bytes(path, (json.dumps(record, ensure_ascii=False) + "\n").encode("utf-8"))
        self.used = True


def _current(root: Path, rel: str) -> bytes | None:
    path = root / rel
    try:
        return path.read_bytes() if path.is_file() else None
    except OSError:
        return None


def _current_state(root: Path, rel: str) -> FileState | None:
    if not (root / rel).is_file():
        return None
    try:
        return read_state(root / rel, root, 1 << 31)
    except DataError:
        return None


def revert(
    root: Path,
    journal: Journal,
    force: bool,
    dry: bool = False,
    keeper: _Keeper | None = None,
    resuming: bool = False,
) -> Reverted:
    """Put every file of a transaction back as it was; lines appended since are kept.

    A file changed in another way is a conflict: reported, and left alone unless `force`,
    when its current text goes to the trash (`keeper`) before it is overwritten. With `dry`,
    only what would happen is computed (conflicts as without `force`). Every step can be
    done again: a revert killed half way is finished by running it again (`resuming`: then a
    file that could be either side is kept in the trash before it is rewritten).
    """
    force = force and not dry
    restored: list[str] = []
    conflicts: list[str] = []
    if not dry:
        files = journal.data.get("files", [])
        _preflight(root, [p for e in files for p in (e["path"], e.get("to")) if p is not None])
    for entry in reversed(journal.data.get("files", [])):
        rel = entry["path"]
        op = entry["op"]
        if op == "move":
            if _move_back(root, rel, entry["to"], dry):
                restored.append(rel)
            continue
        after = journal.blob(entry["after"]).read_bytes()
        if op == "create":
            current = _current(root, rel)
            if current is None:
                continue
            if current != after:
                conflicts.append(rel)
                if not force:
                    continue
            if not dry:
                _remove_created(root, rel, after, keeper)
            restored.append(rel)
            continue
        before = journal.blob(entry["before"]).read_bytes()
        # One read serves the check and the rewrite: atomic_write carries whatever is
        # appended after it, and nothing appended before it can fall between the two.
        state = _current_state(root, rel)
        if state is None:
            if not dry:
                make_dirs((root / rel).parent, root)
                atomic_write(root / rel, before, root, None)
            restored.append(rel)
        elif state.inode == entry.get("inode") and state.data.startswith(before):
            continue  # never written (a crash came first), whatever the new text looks like
        elif state.data.startswith(after):
            if not dry:
                if resuming and state.data.startswith(before) and keeper is not None:
                    keeper.keep(rel, state.data, f"as it was when the interrupted undo of {journal.tx} ended")
                atomic_write(root / rel, before + state.data[len(after) :], root, state)
            restored.append(rel)
        elif state.data.startswith(before):
            continue  # never written (a journal without inodes), or reverted already
        else:
            conflicts.append(rel)
            if force:
                if keeper is not None:
                    keeper.keep(rel, state.data, f"overwritten by undo --force of {journal.tx}")
                atomic_write(root / rel, before, root, state)
                restored.append(rel)
    trash = journal.data.get("trash")
    if trash and not dry and not (conflicts and not force):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(root / trash)
    if not dry:
        for folder in journal.data.get("dirs", []):
            with contextlib.suppress(OSError):
                (root / folder).rmdir()  # only when empty
    kept = keeper.rel if keeper is not None and keeper.used else None
    command, when = str(journal.data.get("command", "")), str(journal.data.get("time", ""))
    return Reverted(journal.tx, tuple(restored), tuple(conflicts), kept, command, when)


def _move_back(root: Path, rel: str, moved_to: str, dry: bool) -> bool:
    """A whole note moved to the archive goes back to its place. When the agent has written
    a new file there since, the archived note goes back with that file's lines after it;
    when both names are one file (a move killed half way), the second name goes."""
    source, target = root / rel, root / moved_to
    if not os.path.lexists(target):
        return False  # moved back already, or never moved
    if dry:
        return True
    if not os.path.lexists(source):
        _move(root, target, source)
    elif _same_file(source, target):
        _unlink(resolve_inside(target, root))
    else:
        archived = read_state(target, root, 1 << 31).data
        late = read_state(source, root, 1 << 31)
        if not late.data.startswith(archived):  # else merged by a run killed before the unlink
            joint = b"" if not archived or archived.endswith(b"\n") else newline_of(archived)
            atomic_write(source, archived + joint + late.data, root, late)
        _unlink(resolve_inside(target, root))
    return True


def _remove_created(root: Path, rel: str, after: bytes, keeper: _Keeper | None) -> None:
    """Remove a file the transaction created. One changed since is first renamed aside (so
    that nothing appended meanwhile falls between the read and the removal), kept in the
    trash, then removed."""
    path = resolve_inside(root / rel, root)
    aside = temp_name(path)
    os.rename(path, aside)
    data = aside.read_bytes()
    if data != after and keeper is not None:
        keeper.keep(rel, data, f"created by {keeper.tx}, changed since; removed by undo --force")
    _unlink(aside)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _unlink(path: Path) -> None:
    os.unlink(path)
    fsync_dir(path.parent)


def recover(root: Path, now: datetime) -> list[Recovered]:
    """Repair what a killed run left, under the workspace lock: lines it was carrying are
    appended back, a journal it had not finished writing is removed, every transaction it
    left prepared is rolled back, an undo it left half done is finished, and the temp files
    it left beside the notes are removed."""
    recover_carried(root)
    _remove_unfinished_journals(root)
    remove_stale_temp_files(root, scan(root, lenient=True).temp_files)
    done = []
    for journal in journals(root):
        if journal.state == PREPARED:
            revert(root, journal, force=False)
            append_ledger(
                root,
                [Event("rolled_back", "-", journal.tx, reason="interrupted; rolled back")],
                journal.tx,
                now,
            )
            journal.save(ROLLED_BACK)
            done.append(Recovered(journal.tx, False))
        elif journal.state == UNDOING:
            _finish_undo(root, journal, now, resuming=True)
            done.append(Recovered(journal.tx, True))
    return done


def last_applied(root: Path) -> Journal | None:
    applied = [j for j in journals(root) if j.state == APPLIED]
    return applied[-1] if applied else None


def undo(root: Path, force: bool, now: datetime) -> Reverted | None:
    """Revert the last applied transaction (refused, naming the files, when one changed and
    not `force`); None when there is none. The undo is itself journaled: the transaction is
    marked `undoing` before a byte is written, and a run killed half way is finished by the
    next (recover)."""
    journal = last_applied(root)
    if journal is None:
        return None
    check = revert(root, journal, force=False, dry=True)
    if check.conflicts and not force:
        raise ConflictError(
            f"cannot undo {journal.tx}: changed since: {', '.join(check.conflicts)}",
            "edit them back, or run `memcli undo --force` (their current text goes to the trash)",
        )
    journal.data["undo"] = {"force": force, "time": now.isoformat()}
    journal.save(UNDOING)
    return _finish_undo(root, journal, now, resuming=False)


def _finish_undo(root: Path, journal: Journal, now: datetime, resuming: bool) -> Reverted:
    info = journal.data.get("undo") or {}
    when = _time(info.get("time")) or now
    keeper = _Keeper(root, journal.tx, when)
    result = revert(root, journal, bool(info.get("force")), keeper=keeper, resuming=resuming)
    reason = "undone" if not result.conflicts else f"undone; changed since: {', '.join(result.conflicts)}"
    append_ledger(root, [Event("undo", "-", journal.tx, reason=reason)], journal.tx, now)
    journal.save(UNDONE)
    return result


def _time(text: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(str(text))
    except ValueError:
        return None


# --- history, trash, purge ----------------------------------------------------------------


def ledger_events(root: Path) -> Iterator[dict[str, Any]]:
    path = root / LEDGER
    if not path.is_file():
        return
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line:
                with contextlib.suppress(ValueError):
                    yield json.loads(line)


def load_history(root: Path) -> History:
    """Core entries' clocks and demotions, from every transaction not undone."""
    events = list(ledger_events(root))
    void = {e["tx"] for e in events if e.get("action") in ("undo", "rolled_back")}
    clock: dict[str, date] = {}
    said: dict[str, date] = {}
    demoted: dict[str, date] = {}
    for e in events:
        if e.get("tx") in void:
            continue
        day = _day(e.get("day"))
        if day is None:
            continue
        if e.get("action") in ("recorded", "mentioned"):
            clock[e["id"]] = max(clock.get(e["id"], day), day)
        if e.get("action") in ("mentioned", "stated"):
            said[e["id"]] = max(said.get(e["id"], day), day)
        elif e.get("action") == "demote":
            demoted[e["id"]] = day
    return History(clock, demoted, said)


def _day(text: Any) -> date | None:
    try:
        return date.fromisoformat(str(text)[:10])
    except ValueError:
        return None


def trash_records(root: Path) -> list[dict[str, Any]]:
    folder = root / TRASH_DIR
    if not folder.is_dir():
        return []
    records = []
    for name in sorted(os.listdir(folder)):
        with contextlib.suppress(OSError), open(folder / name, encoding="utf-8") as f:
            for line in f:
                with contextlib.suppress(ValueError):
                    record = json.loads(line)
                    record["file"] = f"{TRASH_DIR}/{name}"
                    records.append(record)
    return records


@dataclass(frozen=True, slots=True)
class Purged:
    trash_files: tuple[str, ...]
    journals: tuple[str, ...]


def purge(root: Path, older_than_days: float, now: datetime, dry: bool = False) -> Purged:
    """Delete trash files and finished journals older than the given age: the only deletion."""
    limit = now - timedelta(days=older_than_days)
    if not dry and usable_state_dir(root) is None and (root / STATE_DIR).exists():
        raise DataError(
            f"{STATE_DIR}/ is read-only or links out of the workspace; nothing was deleted",
            "make it writable if memcli should purge it",
        )
    trash: list[str] = []
    folder = root / TRASH_DIR
    if folder.is_dir():
        for name in sorted(os.listdir(folder)):
            path = folder / name
            if datetime.fromtimestamp(path.stat().st_mtime, tz=limit.tzinfo) < limit:
                trash.append(display(path, root))
                if not dry:
                    path.unlink()
    old: list[str] = []
    for journal in journals(root):
        if journal.state in (PREPARED, UNDOING):
            continue  # the next writing run still needs it
        when = datetime.fromisoformat(journal.data["time"])
        if when.tzinfo is None and limit.tzinfo is not None:
            when = when.replace(tzinfo=limit.tzinfo)
        if when < limit:
            old.append(journal.tx)
            if not dry:
                shutil.rmtree(journal.folder)
    return Purged(tuple(trash), tuple(old))
