"""`memcli watch`: keep memory healthy while an agent works (SPEC §11).

watchdog observers on the workspace (recursive) and on the session stores' folders (the
named store's, or OpenClaw's `agents/` when the workspace is an agent's: its JSONL
transcripts, and from 2026.8 its database and the database's WAL) wake the watcher; a
burst of changes is acted on once, `debounce` seconds after its last event
(core.watching.Debouncer). A pass flushes the sessions that became due (the flush service,
never forced) and counts the user turns appended to the transcripts since the last pass;
every `gc_every_turns` turns it runs a light gc: the normal gc transaction (`memcli undo`
reverts it), never forced, and without waiting for a busy lock (the next pass tries again).

Turn offsets (a transcript's byte offset; a database session's last seq) and the count
live in `.memcli/watch.json`, so a restarted watcher and `memcli watch --once` from cron go
on counting where the last pass stopped; with no record yet, counting starts from the
transcripts' current ends.

Between bursts the main thread sleeps on an Event (seconds, never a busy poll). Every
RESYNC_SECONDS, and whenever a watched folder or one above it comes or goes, it checks that
each watched folder is still the one being watched: a folder that vanished is waited for
from its nearest existing parent and watched again when it comes back. SIGINT and SIGTERM
let the action under way finish, stop the observers and end with a last log line.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import partial
from pathlib import Path, PurePath
from types import FrameType
from typing import Any

from watchdog.events import (
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
    FileCreatedEvent,
    FileDeletedEvent,
    FileModifiedEvent,
    FileMovedEvent,
    FileSystemEvent,
    FileSystemEventHandler,
)
from watchdog.observers import Observer
from watchdog.observers.api import BaseObserver, ObservedWatch

from memcli.core.lifecycle import ACTIONS
from memcli.core.watching import (
    DEBOUNCE_SECONDS,
    MAX_WAIT_SECONDS,
    Change,
    Debouncer,
    classify,
    counts_turns,
    read_from,
    user_turns,
)
from memcli.errors import LockTimeout, MemcliError
from memcli.flush import database_wait, flush_refs
from memcli.runtime import Runtime
from memcli.services import plan_gc
from memcli.workspace.files import writable_dir
from memcli.workspace.lock import WorkspaceLock
from memcli.workspace.openclaw_db import read_events
from memcli.workspace.session_store import SessionRef, Store, StoreSearch, list_sessions, search_stores
from memcli.workspace.state import read_record, write_record
from memcli.workspace.transaction import apply_plan, record_events, recover
from memcli.workspace.transcripts import count_in_new_lines

RESYNC_SECONDS = 5.0
GC_LOCK_WAIT = 1.0  # a light gc does not queue behind another memcli: it tries again next pass
STATE_NAME = "watch.json"
SHUTDOWN_WAIT = 5.0
# What the kernel is asked to report: no open/close-without-write events, or our own reads
# of the notes would wake us again.
EVENTS: list[type[FileSystemEvent]] = [
    FileCreatedEvent,
    FileModifiedEvent,
    FileDeletedEvent,
    FileMovedEvent,
    DirCreatedEvent,
    DirDeletedEvent,
    DirMovedEvent,
]
QUIET_EVENTS = frozenset({"opened", "closed_no_write", "closed"})


@dataclass(frozen=True)
class Action:
    """One log line: what the watcher did (or could not do), when."""

    # started, flushed, gc, gc_busy, gc_refused, gc_skipped, rolled_back, missing, back, error, stopped
    action: str
    message: str
    at: datetime  # the user's local time, real clock (or --now with --once)
    data: dict[str, Any] = field(default_factory=dict)

    def line(self) -> str:
        return f"{self.at:%H:%M:%S} {self.message}"

    def to_json(self) -> dict[str, Any]:
        return {
            "time": self.at.isoformat(timespec="seconds"),
            "action": self.action,
            "message": self.message,
            **self.data,
        }


@dataclass
class Turns:
    """User turns counted since the last light gc, and where each transcript was read to."""

    count: int = 0
    offsets: dict[str, int] = field(default_factory=dict)
    baseline: bool = True  # nothing recorded yet: transcripts count from their current end


def load_turns(root: Path) -> Turns:
    data = read_record(root, STATE_NAME)
    try:
        count = int(data["turns"])
        offsets = {str(k): int(v) for k, v in data["offsets"].items()}
    except (ValueError, KeyError, TypeError, AttributeError, OverflowError):
        return Turns()
    if any(offset < 0 for offset in offsets.values()):
        return Turns()  # not where any read stopped: start again
    return Turns(max(0, count), offsets, baseline=False)


def save_turns(root: Path, turns: Turns) -> None:
    """Best effort: in a read-only workspace the count lives in memory only."""
    write_record(root, STATE_NAME, {"turns": turns.count, "offsets": turns.offsets})


Seen = SessionRef  # a session as a pass finds it


@dataclass
class _Watched:
    watch: ObservedWatch
    ident: tuple[int, int]  # the folder's device and inode: a folder made anew is watched anew


def describe(exc: Exception) -> str:
    if isinstance(exc, MemcliError):
        return exc.one_line()
    if isinstance(exc, OSError):
        return (f"{exc.filename}: " if exc.filename else "") + str(exc.strerror or exc)
    return f"{type(exc).__name__}: {exc}"


def search(run: Runtime, store: Path | None = None) -> StoreSearch:
    """The stores a watcher of this workspace watches (those `memcli flush` sees)."""
    return search_stores(run.root, store, run.openclaw() if store is None else None, run.agent)


class _Stop(BaseException):
    """Raised by the signal handler while the watcher sleeps."""


class _Handler(FileSystemEventHandler):
    def __init__(self, watcher: Watcher) -> None:
        self.watcher = watcher

    def on_any_event(self, event: FileSystemEvent) -> None:
        if event.event_type in QUIET_EVENTS:
            return
        dest = getattr(event, "dest_path", "")
        self.watcher.changed(os.fsdecode(event.src_path), os.fsdecode(dest) if dest else "")


class Watcher:
    """`Watcher(run, log).run()` watches until SIGINT/SIGTERM (or `stop()` from another
    thread); `once()` is a single pass. Every action reaches `log` as it happens."""

    def __init__(
        self,
        run: Runtime,
        log: Callable[[Action], None],
        store: Path | None = None,
        debounce: float = DEBOUNCE_SECONDS,
        fixed_now: datetime | None = None,
    ) -> None:
        self.runtime = run
        self.log = log
        self.store = Path(os.path.abspath(store)) if store is not None else None
        self.fixed_now = fixed_now
        self.debouncer = Debouncer(debounce, max(MAX_WAIT_SECONDS, debounce))
        self.turns = load_turns(run.root)
        self._dirty = False
        self._lock = threading.Lock()  # the debouncer and the resync flag, shared with observer threads
        self._wake = threading.Event()
        self._resync_wanted = False
        self._stopping: str | None = None
        self._idle = False
        self._watches: dict[tuple[str, bool], _Watched] = {}
        self._targets: tuple[str, ...] = ()
        self._missing: set[str] = set()
        self._errors_before: set[str] = set()
        self._errors_now: set[str] = set()

    # -- what a pass does ---------------------------------------------------------------

    def now(self) -> datetime:
        if self.fixed_now is not None:
            return self.fixed_now
        return datetime.now(self.runtime.tz) if self.runtime.tz is not None else datetime.now().astimezone()

    def emit(self, action: str, message: str, **data: Any) -> None:
        self.log(Action(action, message, self.now().astimezone(self.runtime.tz), data))

    def error(self, message: str) -> None:
        """An error is logged once while it lasts, not on every pass."""
        self._errors_now.add(message)
        if message not in self._errors_before:
            self.emit("error", message)

    def guarded(self, what: str, action: Callable[[], None]) -> None:
        """An action that fails is one log line; the watcher goes on."""
        try:
            action()
        except Exception as exc:
            self.error(f"{what}: {describe(exc)}")

    def once(self) -> None:
        """One pass: flush the sessions that are due, count the new turns, gc when enough
        were said. Used by `--once`, at start-up and after each burst of changes."""
        run = replace(self.runtime, now=self.now())
        seen, complete = self.sessions(run)
        by_store: dict[Store, list[Seen]] = {}
        for s in seen:
            by_store.setdefault(s.store, []).append(s)
        for store, refs in by_store.items():
            if self._stopping:
                break
            self.guarded(f"flush {store.path.name}", partial(self.flush, run, refs))
        if not self._stopping:
            self.guarded("turn count", lambda: self.count(seen, complete))
        if not self._stopping and self.turns.count >= run.policy.gc_every_turns:
            self.guarded("gc", lambda: self.gc(run))
        if self._dirty:
            save_turns(run.root, self.turns)
            self._dirty = False
        self._errors_before, self._errors_now = self._errors_now, set()

    def search(self, run: Runtime) -> StoreSearch:
        return search(run, self.store)

    def sessions(self, run: Runtime) -> tuple[list[Seen], bool]:
        """Every session of the stores (legacy ones left out), and whether every store
        could be read."""
        try:
            stores = [s for s in self.search(run).stores if not s.legacy]
        except (MemcliError, OSError) as exc:
            self.error(f"sessions: {describe(exc)}")
            return [], False
        listing = list_sessions(run.root, stores, None, False, database_wait(run))
        for problem in listing.problems:
            self.error(f"sessions: {problem}")
        return listing.refs, not listing.problems

    def flush(self, run: Runtime, refs: list[Seen]) -> None:
        """Flush the sessions of one store that are due (decided without a lock or a write,
        then again under OpenClaw's lock for a sessions.json)."""
        done = flush_refs(run, refs)
        for warning in done.warnings:
            self.error(warning)
        for refused in done.refused:
            self.error(refused)
        for result in done.sessions:
            if not result.recorded:
                continue
            for problem in result.problems:
                self.error(f"{result.key}: {problem}")
            n = len(result.items)
            if result.note:
                message = f"flushed {result.key} → {result.note} ({n} item{'' if n == 1 else 's'})"
            else:
                message = f"flushed {result.key}: nothing new ({result.skipped} already in memory)"
            self.emit("flushed", message, **result.to_json())

    def count(self, seen: list[Seen], complete: bool) -> None:
        """Add the user turns appended to the transcripts since they were last read (a
        database session's: the events after the last seq counted)."""
        offsets = dict(self.turns.offsets)
        added = 0
        done: set[str] = set()
        for s in seen:
            if not counts_turns(s.key):
                continue
            if s.store.database and s.session_id is not None:
                name = f"{s.store.path}#{s.session_id}"
                if name in done:
                    continue
                done.add(name)
                try:
                    n, offsets[name] = self.read_turns_db(s, offsets.get(name))
                except MemcliError:
                    continue  # the database is busy or gone: counted on a later pass
                added += n
                continue
            if s.transcript is None or str(s.transcript) in done:
                continue
            name = str(s.transcript)
            done.add(name)
            try:
                n, offsets[name] = self.read_turns(s.transcript, offsets.get(name))
            except OSError:  # gone since the store was read: counted when it is back
                continue
            added += n
        for name in [n for n in offsets if n not in done]:
            path = name.rsplit("#", 1)[0] if "#" in name else name
            if "#" in name and os.path.exists(path) and complete:
                del offsets[name]  # a session the database no longer has current
            elif not os.path.exists(path) and os.path.isdir(os.path.dirname(path)):
                del offsets[name]  # gone for good; a whole folder may come back
        if added or offsets != self.turns.offsets or (self.turns.baseline and complete):
            self._dirty = True
        self.turns.count += added
        self.turns.offsets = offsets
        if complete:
            self.turns.baseline = False

    def read_turns_db(self, s: Seen, known: int | None) -> tuple[int, int]:
        """The user turns among a database session's events after seq `known`, and the last
        seq; with no record yet (or a baseline), counting starts at its last event."""
        last = s.last_seq if s.last_seq is not None else -1
        if known is None or self.turns.baseline:
            return 0, last
        if last <= known:
            return 0, last  # nothing new (or the session was rewritten: counted from its end)
        events = read_events(s.store.path, s.session_id or "", known, database_wait(self.runtime))
        turns = user_turns(line.encode("utf-8") for line in events.lines)
        return turns, events.last_seq if events.last_seq is not None else known

    def read_turns(self, path: Path, known: int | None) -> tuple[int, int]:
        """The user turns in the whole lines after `known`, and where they end."""
        return count_in_new_lines(path, partial(read_from, known, baseline=self.turns.baseline), user_turns)

    def gc(self, run: Runtime) -> None:
        """The light gc: gc's own transaction, never forced, not waiting for a busy lock."""
        turns = self.turns.count
        said = f"gc after {turns} turn{'' if turns == 1 else 's'}"
        if not writable_dir(run.root):
            self.reset_turns()
            self.emit("gc_skipped", f"{said} skipped: the workspace is read-only", turns=turns)
            return
        try:
            lock = WorkspaceLock(run.root, "watch", min(GC_LOCK_WAIT, run.policy.lock_timeout_seconds))
            lock.acquire()
        except LockTimeout as exc:
            self.emit("gc_busy", f"{said} postponed: {exc.message}; the next pass tries again", turns=turns)
            return
        try:
            self.reset_turns()  # from here on, a failure waits for the next gc_every_turns turns
            for old in recover(run.root, run.now):
                self.emit(
                    "undo_finished" if old.finished_undo else "rolled_back",
                    old.describe(),
                    transaction=old.tx,
                )
            _, plan = plan_gc(run)
            if plan.over_share:
                files = ", ".join(f"{rel} ({gone} of {total})" for rel, gone, total in plan.over_share)
                share = f"{run.policy.max_removal_share:.0%}"
                self.emit(
                    "gc_refused",
                    f"{said} refused: it would remove more than {share} of the entries of {files}; "
                    "review with `memcli gc --dry-run`, then run `memcli gc --force`",
                    turns=turns,
                    over_share=[{"file": f, "removed": r, "entries": t} for f, r, t in plan.over_share],
                )
                return
            tx: str | None = None
            if plan.writes:
                tx = apply_plan(run.root, plan, "gc", run.now, run.policy.max_file_bytes).tx
            elif plan.events:  # nothing changes: no transaction
                record_events(run.root, plan.events, run.now)
        finally:
            lock.release()
        counts = Counter(a.action for a in plan.actions)
        summary = ", ".join(f"{counts[k]} {k}" for k in ACTIONS if counts[k]) or "nothing to do"
        undo = f" (transaction {tx}; `memcli undo` reverts it)" if tx else ""
        self.emit("gc", f"{said}: {summary}{undo}", turns=turns, counts=plan.counts(), transaction=tx)

    def reset_turns(self) -> None:
        self.turns.count = 0
        self._dirty = True

    # -- watching -----------------------------------------------------------------------

    def targets(self) -> dict[str, bool]:
        """The folders to watch (all recursively): the workspace, the folder of the store
        named with --sessions, and OpenClaw's `agents/` when an agent's workspace this is
        (its sessions folder, and from 2026.8 its database with its WAL)."""
        wanted = [os.path.abspath(self.runtime.root)]
        if self.store is not None:
            wanted.append(str(self.store.parent))
        else:
            try:
                found = self.search(self.runtime)
            except MemcliError:
                found = None
            if found is not None and found.openclaw is not None and found.agents:
                # each agent's sessions/ (JSON) and agent/ (its database and WAL)
                wanted.append(os.path.abspath(found.openclaw.state / "agents"))
        return {
            t: True
            for t in dict.fromkeys(wanted)
            if not any(o != t and PurePath(o) in PurePath(t).parents for o in wanted)
        }

    def changed(self, *paths: str) -> None:
        """Called on observer threads for each event."""
        targets = self._targets
        kind = max((classify(p, targets) for p in paths if p), default=Change.NONE)
        if kind is Change.NONE:
            return
        with self._lock:
            self.debouncer.note(time.monotonic())
            if kind is Change.RESYNC:
                self._resync_wanted = True
        self._wake.set()

    def resync(self, observer: BaseObserver, handler: FileSystemEventHandler) -> bool:
        """Watch each target, or its nearest existing parent while it is missing; a watch whose
        folder was replaced (or whose emitter stopped when the folder went) is made anew.
        True when a watch changed: something may have happened that no watch saw."""
        targets = self.targets()
        self._targets = tuple(targets)
        desired: dict[tuple[str, bool], tuple[int, int]] = {}
        for target, recursive in targets.items():
            point = Path(target)
            while not point.is_dir() and point.parent != point:
                point = point.parent
            exact = str(point) == target
            try:
                st = os.stat(point)
            except OSError:
                continue
            desired[(str(point), recursive and exact)] = (st.st_dev, st.st_ino)
            if not exact and target not in self._missing:
                self._missing.add(target)
                self.emit("missing", f"{target} is missing; watching {point} until it appears", folder=target)
            elif exact and target in self._missing:
                self._missing.discard(target)
                self.emit("back", f"{target} is back; watching it again", folder=target)
        running = {e.watch: e.should_keep_running() for e in observer.emitters}
        changed = False
        for key, held in list(self._watches.items()):
            if desired.get(key) != held.ident or not running.get(held.watch, False):
                with contextlib.suppress(KeyError):
                    observer.unschedule(held.watch)
                del self._watches[key]
                changed = True
        for key, ident in desired.items():
            if key in self._watches:
                continue
            try:
                watch = observer.schedule(handler, key[0], recursive=key[1], event_filter=EVENTS)
            except OSError as exc:
                self.error(f"cannot watch {key[0]}: {exc.strerror or exc}")
                continue
            self._watches[key] = _Watched(watch, ident)
            changed = True
        return changed

    def stop(self, reason: str = "stopped") -> None:
        """End `run()` from another thread (the action under way finishes first)."""
        self._stopping = self._stopping or reason
        self._wake.set()

    def _on_signal(self, signum: int, frame: FrameType | None) -> None:
        self._stopping = self._stopping or signal.Signals(signum).name
        if self._idle:
            raise _Stop  # asleep: wake up now; busy: the loop ends after the action

    @contextlib.contextmanager
    def _signals(self) -> Iterator[None]:
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            yield
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)

    def _sleep(self, timeout: float) -> None:
        self._idle = True
        try:
            if self._stopping is None:
                self._wake.wait(timeout)
        finally:
            self._idle = False

    def run(self) -> None:
        """Watch until stopped. A signal ends the sleep at once, or the action under way when
        it is done; then the observers stop and their threads are joined."""
        observer = Observer()
        handler = _Handler(self)
        with self._signals():
            try:
                self._loop(observer, handler)
            except _Stop:
                pass
            finally:
                self._idle = False
                if observer.is_alive():
                    observer.stop()
                    observer.join(SHUTDOWN_WAIT)
        reason = self._stopping or "stopped"
        self.emit("stopped", f"stopped ({reason})", reason=reason)

    def _loop(self, observer: BaseObserver, handler: FileSystemEventHandler) -> None:
        self.resync(observer, handler)
        observer.start()
        every = self.runtime.policy.gc_every_turns
        self.emit(
            "started",
            f"watching {', '.join(self._targets)} (debounce {self.debouncer.delay:g} s, "
            f"gc every {every} turn{'' if every == 1 else 's'}, {self.turns.count} counted)",
            folders=list(self._targets),
            debounce=self.debouncer.delay,
            gc_every_turns=every,
            turns=self.turns.count,
        )
        self.guarded("pass", self.once)
        next_check = time.monotonic() + RESYNC_SECONDS
        while self._stopping is None:
            self._wake.clear()
            now = time.monotonic()
            with self._lock:
                wanted = self._resync_wanted
                self._resync_wanted = False
            if wanted or now >= next_check:
                next_check = now + RESYNC_SECONDS
                if self.resync(observer, handler):
                    with self._lock:
                        self.debouncer.note(now)
            with self._lock:
                due = self.debouncer.due(now)
                if due:
                    self.debouncer.take()
                wait = self.debouncer.wait(now)
            if due:
                self.guarded("pass", self.once)
                continue
            timeout = max(0.0, next_check - now)
            self._sleep(timeout if wait is None else min(timeout, wait))
