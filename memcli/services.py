"""Steps several commands share: read the workspace, then ask core about it."""

from __future__ import annotations

import contextlib
import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from memcli import parallel
from memcli.core.analysis import (
    Analysis,
    Assessed,
    Reading,
    Standing,
    TextFacts,
    TextFields,
    analyse,
    assess_in_order,
    reader,
    standing_of,
    texts_to_read,
)
from memcli.core.compose import daily_note
from memcli.core.edit import Insert, edit_document
from memcli.core.entries import Document, parse
from memcli.core.judgement.replacements import READ_AHEAD_FROM
from memcli.core.lifecycle import (
    MARKER_ID,
    MEMCLI_MARKER,
    Action,
    Event,
    FileWrite,
    Plan,
    View,
    plan,
)
from memcli.core.memo import Memo
from memcli.core.outline import outline, rebuild
from memcli.core.policy import Policy
from memcli.core.roles import COLD, SUPERSEDED, MemoryFile, Role, daily_note_rel
from memcli.core.similarity import serial_map
from memcli.core.summarize import Digest
from memcli.errors import ConflictError
from memcli.parallel import PARALLEL_FROM, parallel_map
from memcli.phases import phase
from memcli.runtime import Runtime
from memcli.workspace.cache import Fresh, NoteCache, Shared, file_key
from memcli.workspace.cache import outline_parser as cache_outline_parser
from memcli.workspace.files import FileState, read_text
from memcli.workspace.layout import scan as scan_layout
from memcli.workspace.memo_store import MemoStore, memo_stamp
from memcli.workspace.snapshot import (
    ParsedFile,
    Parser,
    Snapshot,
    is_memory,
    read_unparsed,
    take_snapshot,
)
from memcli.workspace.templates import find_template, render_digest
from memcli.workspace.transaction import ledger_events, load_history, trash_records

T = TypeVar("T")


def parallel_texts(function: Callable[[str], T], texts: Sequence[str]) -> list[T]:
    """parallel_map as core's Mapper: the duplicate finder's texts on every core."""
    return parallel_map(function, texts)


def parallel_reads(function: Callable[[str], T], texts: Sequence[str]) -> list[T]:
    """parallel_map as the planner's Mapper: it reads ahead only when there are
    READ_AHEAD_FROM texts at least, and then on every core (fewer than parallel_map's
    PARALLEL_FROM too: each is costly)."""
    return parallel_map(function, texts, min_items=READ_AHEAD_FROM)


class TextPipeline:
    """Reads entry texts on other cores while this process goes on parsing files: each
    batch of new texts goes to fork-started workers as soon as it is parsed. A workspace
    with fewer than PARALLEL_FROM texts, or one core, is read here at the end."""

    BATCH = 4_000

    def __init__(self, function: Callable[[str], T]) -> None:
        self.function = function
        self.seen: dict[str, None] = {}
        self.pending: list[str] = []
        self.parts: list[tuple[list[str], Any]] = []
        self.pool: Any = None

    def add(self, texts: Iterable[str]) -> None:
        seen = self.seen
        for text in texts:
            if text not in seen:
                seen[text] = None
                self.pending.append(text)
        if len(self.pending) >= self.BATCH and len(seen) >= PARALLEL_FROM and (os.cpu_count() or 1) > 1:
            self._send()

    def _send(self) -> None:
        if self.pool is None:
            parallel.set_task(self.function)
            self.pool = parallel.start_pool()
            if self.pool is None:
                return  # read here, at the end
        try:
            self.parts.append((self.pending, self.pool.submit(parallel.run_task, self.pending)))
        except OSError:
            return
        self.pending = []

    def results(self) -> dict[str, Any]:
        """Each text read, by text. The texts not sent to the workers are read here while
        they finish theirs."""
        out: dict[str, Any] = {}
        try:
            mine = serial_map(self.function, self.pending)
            for texts, future in self.parts:
                out.update(zip(texts, future.result(), strict=True))
        finally:
            if self.pool is not None:
                self.pool.shutdown()
            parallel.set_task(None)
        out.update(zip(self.pending, mine, strict=True))
        return out


def read_while_parsing(
    run: Runtime, select: Callable[[MemoryFile], bool], scan: bool = True, entries_only: bool = False
) -> tuple[Snapshot, dict[str, TextFacts]]:
    """The snapshot, and every text of it read (see `read_texts`), the two overlapped: the
    texts of each file go to the other cores as soon as it is parsed. A file read before,
    byte for byte, is rebuilt from its outline and its texts' facts come from the cache
    (workspace.cache) instead. `entries_only`: what the Standing is worked out from, no
    more: each document read from the cache holds its entries, not its lines and blocks,
    and the facts leave out the scoring text."""
    cache = NoteCache(run.root, run.policy.rules, scan)
    pipeline = TextPipeline(reader(run.rules, scan))
    cached: dict[str, TextFields] = {}
    fresh: list[tuple[bytes, MemoryFile, Document]] = []
    keep: set[bytes] = set()
    shared = Shared()

    def parser(file: MemoryFile, state: FileState, text: str) -> Document:
        key = file_key(state.data)
        keep.add(key)
        known = cache.get(key)
        doc = rebuild(text, file.rel, file.date, known.outline) if known is not None else None
        if known is not None and doc is not None:
            facts = known.facts
            for t in texts_to_read(doc):  # keyed by the entry's own text: one copy of it
                if t not in cached:
                    cached[t] = shared.fields(facts[t], brief=entries_only)
            return replace(doc, lines=(), blocks=()) if entries_only else doc
        doc = parse(text, file.rel, file.date)
        fresh.append((key, file, doc))
        pipeline.add(texts_to_read(doc))
        return doc

    try:
        with phase(run.progress, "reading notes") as step:
            snap = take_snapshot(run.root, run.policy.max_file_bytes, select, parser, step)
        with phase(run.progress, "reading entries"):
            read = {**cached, **{t: shared.fields(f) for t, f in pipeline.results().items()}}
        cache.put(
            (
                Fresh(key, {t: read[t] for t in texts_to_read(doc)}, outline(doc, file.date))
                for key, file, doc in fresh
            ),
            keep,
        )
    finally:
        cache.close()
    cached.clear()  # (each text's facts are in `read`)
    if entries_only:  # (the scoring text is read again with each note's facts when assessed)
        return snap, {text: TextFacts(d, "", r, shared.names(sig)) for text, (d, _, r, sig) in read.items()}
    return snap, {text: TextFacts(*fields) for text, fields in read.items()}


def outline_parser(run: Runtime) -> contextlib.AbstractContextManager[Parser]:
    """workspace.cache's `outline_parser` for this run's workspace and rules."""
    return cache_outline_parser(run.root, run.policy.rules)


def snapshot_everything(run: Runtime) -> Snapshot:
    """Every file of the workspace parsed, cached notes rebuilt (see `outline_parser`)."""
    with outline_parser(run) as parser, phase(run.progress, "reading notes") as step:
        return take_snapshot(run.root, run.policy.max_file_bytes, lambda f: True, parser, step)


def assess(
    run: Runtime, policy: Policy | None = None, only_duplicates: bool = False
) -> tuple[Snapshot, Analysis]:
    """Every memory file read and parsed, its entries scored, decayed and grouped
    (with `only_duplicates`, only the entries of duplicate groups are scored)."""
    policy = policy or run.policy
    snap, facts = read_while_parsing(replace(run, policy=policy), is_memory, scan=not only_duplicates)
    with remembered(run, policy, texts=facts) as memo, phase(run.progress, "analysing entries"):
        analysis = analysed(run, policy, snap.files, facts, memo, only_duplicates)
    return snap, analysis


def analysed(
    run: Runtime,
    policy: Policy,
    files: Sequence[ParsedFile],
    facts: Mapping[str, TextFacts],
    memo: Memo,
    only_duplicates: bool = False,
) -> Analysis:
    """`analyse` of these files, by the Standing (core.analysis) a run before worked out of
    these very files, byte for byte, when the memo holds it; else worked out, and kept."""
    key = workspace_key(((p.file, file_key(p.state.data)) for p in files), scan=not only_duplicates)
    known = known_standing(memo, key)
    analysis = analyse(
        [(p.file, p.doc) for p in files],
        policy,
        run.rules,
        run.now_local,
        only_duplicates=only_duplicates,
        mapper=parallel_texts,
        facts=facts,
        memo=memo,
        found=known,
    )
    if known is None and analysis.found is not None:
        memo.table(STANDING).learn(key, analysis.found)
    return analysis


def known_standing(memo: Memo, key: str) -> Standing | None:
    """The Standing a run before worked out of the files `key` names (`workspace_key`), if
    the memo holds it; the other reading's is kept too (dedupe's, list's and gc's)."""
    table = memo.table(STANDING)
    found = table.peek(key)
    mode = key.partition(":")[0]
    table.keep(lambda other: isinstance(other, str) and not other.startswith(mode))
    # (the Standing of the files as they were, 20 MB on a decade, is not held while the
    # new one is worked out)
    table.forget_unasked()
    return found if isinstance(found, Standing) else None


def workspace_key(files: Iterable[tuple[MemoryFile, bytes]], scan: bool = True) -> str:
    """What a workspace's analysis rests on besides the rules, policy and code: each file
    (its place, role and date) and its bytes (by their `file_key`), and whether its texts
    were scanned by the scoring rules (`dedupe` reads them without: routine by the routine
    rule alone)."""
    digest = hashlib.sha256()
    for file, sha in files:
        digest.update(repr(file).encode() + b"\0" + sha)
    return f"{'scanned' if scan else 'read'}:{digest.hexdigest()}"


STANDING = "analysis.standing"  # the memo's table of a workspace's Standing, by workspace_key


def listed(run: Runtime, wanted: Callable[[str], bool] = lambda rel: True) -> Iterable[Assessed]:
    """Every entry of the memory files assessed, in file order (what `memcli list` shows).

    When the memory files are byte for byte what a run before analysed (a `list`, a `gc`),
    what the assessment needs from the whole workspace (core.analysis.Standing: duplicate
    groups, routine by recurrence) is what that run worked out, kept in the memo, and the
    entries are assessed one file at a time as they are read again: no more than one
    note is held, and a note `wanted` (its path) turns down is not read again. Otherwise
    the Standing is worked out first (`work_out_standing`, which keeps it for the next run)
    and the entries are then assessed the same way."""
    chosen = [f for f in scan_layout(run.root).files if is_memory(f)]
    shas = [(f, file_key(read_unparsed(run.root, f, run.policy.max_file_bytes)[0].data)) for f in chosen]
    with remembered(run) as memo:
        found = known_standing(memo, workspace_key(shas))
    if found is None:
        found, shas = work_out_standing(run)
    again = [(k, f, sha) for k, (f, sha) in enumerate(shas) if wanted(f.rel)]
    return assess_in_order(_read_again(run, again), found, run.policy, run.rules, run.now_local)


def work_out_standing(run: Runtime) -> tuple[Standing, list[tuple[MemoryFile, bytes]]]:
    """The Standing of the memory files as they are now, worked out and kept for the next
    run, and each file with the hash of the bytes it was worked out from. Only what it
    needs is held: each note's entries, not its lines; not the entries assessed."""
    snap, facts = read_while_parsing(run, is_memory, entries_only=True)
    reading = Reading([(p.file, p.doc) for p in snap.files], facts)
    shas = [(p.file, file_key(p.state.data)) for p in snap.files]
    del snap, facts  # (the reading's only hold: the Standing lets go of it as it goes)
    key = workspace_key(shas)
    with remembered(run, texts=reading.facts) as memo, phase(run.progress, "analysing entries"):
        found = known_standing(memo, key)
        if found is None:
            found = standing_of(reading, run.policy, run.rules, parallel_texts, memo)
            memo.table(STANDING).learn(key, found)
    return found, shas


def _read_again(
    run: Runtime, files: Sequence[tuple[int, MemoryFile, bytes]]
) -> Iterator[tuple[int, MemoryFile, Document, dict[str, TextFacts]]]:
    """Each file (its place k, and the hash it had when first read) read again, with its
    texts' facts, as the note cache holds them (or parsed, its facts read as they are asked
    for); a file that changed since it was first read stops the run: what was worked out
    from the whole workspace no longer holds."""
    cache = NoteCache(run.root, run.policy.rules, True, writable=False)
    try:
        for k, file, expected in files:
            state, text = read_unparsed(run.root, file, run.policy.max_file_bytes)
            sha = file_key(state.data)
            if sha != expected:
                raise ConflictError(f"{file.rel} changed while it was listed", "run the command again")
            known = cache.get(sha)
            doc = rebuild(text, file.rel, file.date, known.outline) if known is not None else None
            if known is not None and doc is not None:
                yield k, file, doc, {t: TextFacts(*fields) for t, fields in known.facts.items()}
            else:
                yield k, file, parse(text, file.rel, file.date), {}
    finally:
        cache.close()


@contextlib.contextmanager
def remembered(run: Runtime, policy: Policy | None = None, texts: Iterable[str] = ()) -> Iterator[Memo]:
    """What the judgement worked out last time (core.memo), kept again for the next run
    once the block is done with it (workspace.memo_store). `texts`: the entries' texts
    already read, which the tables' keys are then the same objects as."""
    policy = policy or run.policy
    store = MemoStore(run.root, memo_stamp(policy))
    store.texts.update((t, t) for t in texts)
    del texts  # (not held while the block runs: list's Standing lets go of the facts in it)
    memo = store.memo()
    yield memo
    memo.finish_all()


def gc_view(run: Runtime, memo: Memo | None = None) -> tuple[Snapshot, View, Analysis]:
    """What gc plans from: the memory files and MEMORY.md's cold storage, analysed, with the
    summaries already written and the history the ledger keeps. `memo`: what the judgement
    worked out last time (see `remembered`)."""
    snap, facts = read_while_parsing(run, lambda f: f.is_memory or f.rel in (COLD, SUPERSEDED))
    files = tuple((p.file, p.doc) for p in snap.files if p.file.rel != SUPERSEDED)
    archives = tuple((p.file, p.doc) for p in snap.files if p.file.rel == SUPERSEDED)
    with phase(run.progress, "analysing entries"):
        analysis = analysed(
            run, run.policy, [p for p in snap.files if p.file.rel != SUPERSEDED], facts, memo or Memo()
        )
    summaries = frozenset(
        f.rel.rsplit("/", 1)[-1].removesuffix(".md") for f in snap.layout.files if f.role is Role.SUMMARY
    )
    paths = frozenset(f.rel for f in snap.layout.files) | frozenset(b.rel for b in snap.layout.bad_names)
    template = find_template("weekly-digest", run.root, run.policy.templates_dir)
    language = run.policy.summary_language

    def render(digest: Digest) -> str:
        return render_digest(
            replace(digest, language=language) if language else digest, template, run.policy.max_file_bytes
        )

    view = View(files, summaries, paths, load_history(run.root), archives, render, run.policy.summary_tokens)
    return snap, view, analysis


def plan_gc(run: Runtime, fit: bool = False) -> tuple[Snapshot, Plan]:
    snap, planned, _ = plan_gc_analysed(run, fit)
    return snap, planned


def plan_gc_analysed(run: Runtime, fit: bool = False) -> tuple[Snapshot, Plan, Analysis]:
    """The gc plan, and the analysis it was made from (each action's entry, assessed)."""
    with remembered(run) as memo:
        snap, view, analysis = gc_view(run, memo)
        with phase(run.progress, "planning"):
            planned = plan(
                view, analysis, run.policy, run.rules, run.now_local, fit=fit, mapper=parallel_reads
            )
            return snap, planned, analysis


@dataclass(frozen=True, slots=True)
class Restorable:
    """An entry that left the notes and can come back: from the trash, or from the archive."""

    id: str
    text: str
    source: str  # where it was: "path:line"
    holder: str  # where it is now: a trash file, or an archive note
    line: int  # its line in an archive note (0 for the trash)
    reason: str


def restorable(run: Runtime) -> list[Restorable]:
    """Every trashed or archived entry not already brought back."""
    events = list(ledger_events(run.root))
    void = {e["tx"] for e in events if e.get("action") in ("undo", "rolled_back")}
    back = {
        (e.get("id"), e.get("from"))
        for e in events
        if e.get("action") == "restore" and e.get("tx") not in void
    }
    found: list[Restorable] = []
    for record in trash_records(run.root):
        key = (record.get("id"), record.get("from"))
        if record.get("tx") in void or key in back or record.get("action") == "undo":
            continue
        found.append(
            Restorable(
                str(record["id"]),
                str(record["text"]),
                str(record["from"]),
                record["file"],
                0,
                str(record["reason"]),
            )
        )
    for rel in (COLD, SUPERSEDED):
        path = run.root / rel
        if not path.is_file():
            continue
        _, text = read_text(path, run.root, run.policy.max_file_bytes)
        for entry in parse(text, rel).entries:
            marker = MARKER_ID.search(entry.text)
            if marker is None:
                continue
            found.append(
                Restorable(
                    marker.group(1),
                    entry.text,
                    f"{rel}:{entry.first_line}",
                    rel,
                    entry.first_line,
                    "demoted" if rel == COLD else "superseded",
                )
            )
    return found


def restore_plan(run: Runtime, item: Restorable) -> Plan:
    """Put an entry back: an archived core entry into MEMORY.md, a trashed one at the end of the
    note it left (or today's note, when that note has moved on)."""
    writes: list[FileWrite] = []
    text = MEMCLI_MARKER.sub("", item.text).rstrip() + "\n"
    if item.line:
        held = read_text(run.root / item.holder, run.root, run.policy.max_file_bytes)[1]
        doc = parse(held, item.holder)
        entry = next(e for e in doc.entries if e.first_line == item.line)
        writes.append(FileWrite(item.holder, held, edit_document(doc, [entry])))
        target = "MEMORY.md"
    else:
        note = item.source.rsplit(":", 1)[0]
        target = (
            note if (run.root / note).is_file() and note.startswith("memory/") else daily_note_rel(run.today)
        )
    path = run.root / target
    if path.is_file():
        current = read_text(path, run.root, run.policy.max_file_bytes)[1]
        doc = parse(current, target)
        writes.append(FileWrite(target, current, edit_document(doc, insert=[Insert(len(doc.lines), text)])))
    else:
        fresh = daily_note(run.today, text) if target.startswith("memory/") else f"# MEMORY.md\n\n{text}"
        writes.append(FileWrite(target, None, fresh))
    reason = f"restored from {item.holder} ({item.reason})"
    event = Event("restore", item.id, item.text, item.source, target, reason)
    action = Action("restore", reason, text=item.text, source=item.source, to=target, id=item.id)
    return Plan((action,), tuple(writes), (), (event,), (), ())
