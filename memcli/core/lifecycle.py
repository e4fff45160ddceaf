"""The memory lifecycle (SPEC §7): a plan of actions computed purely from the files,
the policy, the history memcli keeps, and `now`.

plan() decides; it reads nothing and writes nothing. The plan says, for every action,
why, and carries the exact new text of every file it changes, so that `--dry-run`,
`--diff` and the transaction that applies it all show the same thing.

Protective rules: open notes (today, yesterday) are only ever appended to; MEMORY.md
stays within its budget (least recently used entries are demoted first, never on the
first run); facts are promoted, not logs; routine events are never promoted by count;
a plan removing more than `max_removal_share` of a file's entries needs --force.
Copies are verbatim (core.verbatim), and a secret never leaves its note: an entry
`memcli check` would flag is neither promoted, summarised, superseded nor demoted; a plan
note names its place (core.withheld).
"""

from __future__ import annotations

import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from datetime import date, datetime, timedelta
from fnmatch import fnmatchcase
from typing import Any

from memcli.core.analysis import Analysis, Assessed
from memcli.core.edit import (
    Insert,
    append_block,
    edit_document,
    insertion_into,
    new_section,
    promoted_text,
    sections,
)
from memcli.core.entries import Document, Entry, parse
from memcli.core.judgement import importance, promotion
from memcli.core.judgement.logs import is_log
from memcli.core.judgement.replacements import CORE, NOTE, READ_AHEAD_FROM, Fact, Found, find_replacements
from memcli.core.judgement.supersede import AT_MOST, Verdict
from memcli.core.policy import Policy
from memcli.core.roles import ARCHIVE_DIR, COLD, SUMMARIES_DIR, SUPERSEDED, MemoryFile, Role
from memcli.core.rules import Rules
from memcli.core.scoring import Scored, Tier, scoring_text
from memcli.core.similarity import Mapper
from memcli.core.summarize import Digest, digest_label, digest_of_notes, plain_render, week_of
from memcli.core.tokens import is_mostly_cjk
from memcli.core.withheld import holds_secret, left_out

ACTIONS = ("merge", "drop", "promote", "supersede", "demote", "summarize", "archive")
SOURCE_ROLES = frozenset({Role.DAILY, Role.DAILY_SLUG})


@dataclass(frozen=True, slots=True)
class Action:
    action: str
    reason: str
    text: str | None = None
    source: str | None = None  # "path:line"  (JSON: "from")
    to: str | None = None
    into: str | None = None
    by: str | None = None
    files: tuple[str, ...] = ()
    id: str | None = None
    score: float | None = None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"action": self.action, "reason": self.reason}
        for key, value in (
            ("text", self.text),
            ("from", self.source),
            ("to", self.to),
            ("into", self.into),
            ("by", self.by),
            ("id", self.id),
            ("score", self.score),
        ):
            if value is not None:
                out[key] = value
        if self.files:
            out["files"] = list(self.files)
        return out


@dataclass(frozen=True, slots=True)
class FileWrite:
    """One file's change: new text (`before` None: a new file), or a move elsewhere."""

    path: str
    before: str | None
    after: str | None
    move_to: str | None = None


@dataclass(frozen=True, slots=True)
class Trashed:
    id: str
    text: str
    source: str
    reason: str
    action: str


@dataclass(frozen=True, slots=True)
class Event:
    """A line of the ledger: what happened to an entry, from where to where, and why."""

    action: str
    id: str
    text: str
    source: str | None = None
    to: str | None = None
    reason: str = ""
    day: str | None = None

    @property
    def text_hash(self) -> str:
        return hashlib.sha1(self.text.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class Plan:
    actions: tuple[Action, ...]
    writes: tuple[FileWrite, ...]
    trash: tuple[Trashed, ...]
    events: tuple[Event, ...]
    notes: tuple[str, ...]
    over_share: tuple[tuple[str, int, int], ...]  # (file, entries removed, entries in it)

    @property
    def empty(self) -> bool:
        return not self.actions

    def counts(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for a in self.actions:
            out[a.action] = out.get(a.action, 0) + 1
        return out


@dataclass(frozen=True)
class History:
    """What the ledger remembers: when each core entry was last used, and what was demoted."""

    clock: Mapping[str, date] = field(default_factory=dict)
    demoted: Mapping[str, date] = field(default_factory=dict)
    said: Mapping[str, date] = field(default_factory=dict)  # the last day a note said it (or a copy)

    @property
    def first_run(self) -> bool:
        return not self.clock


@dataclass(frozen=True)
class View:
    """The workspace as the planner sees it."""

    files: tuple[tuple[MemoryFile, Document], ...]
    summaries: frozenset[str]  # periods that already have a summary
    paths: frozenset[str]  # every file that exists (new names must not collide)
    history: History
    archives: tuple[tuple[MemoryFile, Document], ...] = ()  # archive files gc only adds to
    render: Callable[[Digest], str] = plain_render  # a summary's text (the weekly-digest template)
    summary_budget: int = 800  # tokens of a weekly summary


# memcli's own notes on an archived entry, and the id of the entry they speak of
MERGE_MIN_CHARS = 8  # shorter (normalised) entries are list items that lean on their heading
MEMCLI_MARKER = re.compile(r"\s*<!-- memcli: [^>]*-->")
MARKER_ID = re.compile(r"<!-- memcli: [^>]*\(([0-9a-f]{10})\) -->")


_SCORE_FIELDS = tuple(f.name for f in fields(Scored))


def place(entry: Entry) -> str:
    return f"{entry.file}:{entry.first_line}"


def category(a: Assessed) -> str:
    """The kind of fact an entry is, which chooses its section in MEMORY.md."""
    return promotion.category(a.scored.reasons)


class _Planner:
    def __init__(
        self,
        view: View,
        analysis: Analysis,
        policy: Policy,
        rules: Rules,
        now_local: datetime,
        fit: bool = False,
        mapper: Mapper | None = None,
    ) -> None:
        self.fit = fit
        self.mapper = mapper
        self.view = view
        self.analysis = analysis
        self.policy = policy
        self.rules = rules
        self.now = now_local
        self.today = now_local.date()
        self.files = {f.rel: (f, doc) for f, doc in view.files}
        self.core = next((f.rel for f, _ in view.files if f.role is Role.CORE), None)
        self.open_from = self.today - timedelta(days=max(policy.open_days, 1) - 1)
        self.window_start = self.today - timedelta(days=policy.short_term_days)
        self.actions: list[Action] = []
        self.trash: list[Trashed] = []
        self.events: list[Event] = []
        self.notes: list[str] = []
        self.withheld: list[str] = []  # places of entries left where they are: they hold a secret
        self.no_room: dict[str, list[str]] = defaultdict(list)  # why there is no room -> for what
        self.removed: dict[str, list[Entry]] = defaultdict(list)
        self.gone: set[int] = set()  # entries leaving their place in this plan
        self.archived: dict[str, str] = {}  # note -> where it moves
        self.promotions: list[tuple[str, str]] = []  # (category, bullet text)
        self.cold_add: list[str] = []
        self.cold_remove: list[Entry] = []
        self.superseded_add: list[str] = []
        self.summaries: dict[str, str] = {}  # path -> text
        self.promoted_groups: set[int] = set()
        # groups a newer entry replaced or corrected, with that entry's day (None: MEMORY.md's)
        self.retired_groups: dict[int, date | None] = {}
        self.retired_entries: set[int] = set()  # by id() of the entry
        self.promoted: set[int] = set()
        self.moved: set[int] = set()  # entries that left a note for MEMORY.md (by object id)
        self._verdicts: dict[int, importance.Verdict] = {}  # by id() of the assessed entry
        self._importance = analysis.memo.table("planner.importance")  # by what the label rests on
        self._labelled: dict[int, importance.Verdict] = {}  # read ahead (`read_ahead_labels`), by id()
        self._copies = analysis.memo.table("planner.copy")  # text -> (its bullet, holds a secret)
        self.held_back: set[int] = set()  # never promoted: replaced facts that stay, and the newer
        # sides of a change whose older side stays in MEMORY.md
        self._section_of = {}
        self._group_roles: dict[int, frozenset[Role]] = {}
        core_doc = self.files[self.core][1] if self.core else None
        self.core_doc = core_doc
        self.core_chars = len(core_doc.render()) if core_doc else 0
        self.core_sections = sections(core_doc) if core_doc else []
        self.core_chinese = is_mostly_cjk(core_doc.render()[:4000]) if core_doc else False
        self.by_file: dict[str, list[int]] = defaultdict(list)
        for i, a in enumerate(analysis.assessed):
            self.by_file[a.entry.file].append(i)

    # --- facts about entries ---------------------------------------------------------

    def file_of(self, a: Assessed) -> MemoryFile:
        return self.files[a.entry.file][0]

    def is_open(self, f: MemoryFile) -> bool:
        return f.role in SOURCE_ROLES and f.date is not None and f.date >= self.open_from

    def closed_note(self, a: Assessed) -> bool:
        f = self.file_of(a)
        return f.role in SOURCE_ROLES and not self.is_open(f) and f.rel not in self.archived

    def members(self, g: int) -> list[int]:
        group = self.analysis.groups[g]
        return [group.keep, *(i for i, _ in group.duplicates)]

    def group_roles(self, g: int) -> frozenset[Role]:
        roles = self._group_roles.get(g)
        if roles is None:  # the members of a group do not change while planning
            roles = self._group_roles[g] = frozenset(self.analysis.assessed[i].role for i in self.members(g))
        return roles

    def in_cold(self, a: Assessed) -> bool:
        return a.entry.file == COLD

    # --- the pieces --------------------------------------------------------------------

    def run(self) -> Plan:
        self.clock = self.core_clocks()
        self.plan_archive()
        self.plan_supersede()
        self.plan_drop()
        self.plan_demote_unused()
        self.plan_promotions()
        self.plan_fit()
        self.plan_merges()
        self.plan_finished_tasks()
        self.note_no_room()
        if self.withheld:
            self.notes.append(left_out(self.withheld))
        over = self.removal_shares()
        writes = self.assemble()
        return Plan(
            tuple(self.actions),
            tuple(writes),
            tuple(self.trash),
            tuple(self.events),
            tuple(self.notes),
            tuple(over),
        )

    def core_clocks(self) -> dict[int, date]:
        """When each MEMORY.md entry was last used: recorded by memcli, or mentioned in a note."""
        history = self.view.history
        clocks: dict[int, date] = {}
        for i, a in enumerate(self.analysis.assessed):
            if a.role is not Role.CORE:
                continue
            known = history.clock.get(a.entry.id)
            clock = known or self.today
            if known is None:
                self.events.append(
                    Event("recorded", a.entry.id, a.entry.text, place(a.entry), day=str(self.today))
                )
            if a.group is not None:
                seen = self.analysis.groups[a.group].last_seen
                if seen is not None and seen > clock:
                    clock = seen
                    self.events.append(
                        Event("mentioned", a.entry.id, a.entry.text, place(a.entry), day=str(seen))
                    )
                elif seen is not None and seen > history.said.get(a.entry.id, date.min):
                    # the day a note said it again outlives the note's copy (merged, archived):
                    # a change older than that day must not retire it in a later run
                    self.events.append(
                        Event("stated", a.entry.id, a.entry.text, place(a.entry), day=str(seen))
                    )
            clocks[i] = clock
        return clocks

    def plan_archive(self) -> None:
        """Closed notes older than the short-term window: summarised per ISO week, then
        moved to memory/archive/YYYY/MM/ unchanged."""
        by_week: dict[str, list[MemoryFile]] = defaultdict(list)
        for f, _ in self.view.files:
            if f.role in SOURCE_ROLES and f.date is not None and not self.is_open(f) and self.archivable(f):
                week, last_day = week_of(f.date)
                if last_day < self.window_start:
                    by_week[week].append(f)
        for week in sorted(by_week):
            notes = sorted(by_week[week], key=lambda f: f.rel)
            path = f"{SUMMARIES_DIR}/{week}.md"
            if week not in self.view.summaries and path not in self.view.paths:
                old = self.superseded()  # a replaced fact is not summarised as current
                entries = [
                    self.analysis.assessed[i] for f in notes for i in self.by_file[f.rel] if i not in old
                ]
                sources = [f.rel for f in notes]
                budget = self.view.summary_budget
                digest = digest_of_notes(
                    "weekly-digest",
                    week,
                    entries,
                    sources,
                    self.now,
                    budget,
                    count_tokens=False,
                    label=self.digest_label,
                )
                self.summaries[path] = self.view.render(digest)
                self.withheld += digest.withheld
                self.actions.append(
                    Action(
                        "summarize",
                        f"week {week} is over and older than {self.policy.short_term_days} days",
                        to=path,
                        files=tuple(f.rel for f in notes),
                    )
                )
            for f in notes:
                self.archive(f, f"summarised in {path}")

    def plan_finished_tasks(self) -> None:
        """Finished task notes move to the archive a day after, with what this run leaves in
        them (it drops their noise and promotes their facts first)."""
        for f, _ in self.view.files:
            closed = f.role in SOURCE_ROLES and f.date is not None and not self.is_open(f)
            if closed and self.archivable(f) and f.rel not in self.archived and self.finished_task_note(f):
                self.archive(f, "a finished task note, done for over a day")

    def archivable(self, f: MemoryFile) -> bool:
        """Only date-named daily notes are summarised and archived: those right in memory/
        or under memory/daily/, and those archive_globs names. Dated notes kept elsewhere
        (memory/projects/, memory/P0/, …) stay where their owner put them."""
        folder = f.rel.rsplit("/", 1)[0]
        if folder == "memory" or folder == "memory/daily" or folder.startswith("memory/daily/"):
            return True
        return any(fnmatchcase(f.rel, pattern) for pattern in self.policy.archive_globs)

    def finished_task_note(self, f: MemoryFile) -> bool:
        staying = [self.analysis.assessed[i].entry for i in self.by_file[f.rel] if i not in self.gone]
        tasks = [e for e in staying if e.kind == "task"]
        if not tasks or any(not e.done for e in tasks) or len(tasks) * 2 < len(staying):
            return False
        assert f.date is not None
        done_at = datetime.combine(f.date + timedelta(days=1), datetime.min.time())
        return done_at + timedelta(hours=self.policy.task_archive_hours) <= self.now

    def archive(self, f: MemoryFile, reason: str) -> None:
        assert f.date is not None
        inner = f.rel.removeprefix("memory/")
        target = f"{ARCHIVE_DIR}/{f.date.year:04d}/{f.date.month:02d}/{inner}"
        if target in self.view.paths:
            self.notes.append(f"{f.rel} not archived: {target} already exists")
            return
        self.archived[f.rel] = target
        self.actions.append(Action("archive", reason, source=f.rel, to=target, files=(f.rel,)))

    def plan_supersede(self) -> None:
        """A newer entry that gives up what an older one states retires it; an explicit
        correction retires the entry it corrects (core.judgement.replacements decides)."""
        for n, found in self.replacements():
            by = place(self.analysis.assessed[n].entry)
            for o, verdict in found:
                self.retire(o, n, verdict.reason(by))

    def replacements(self) -> tuple[tuple[int, tuple[tuple[int, Verdict], ...]], ...]:
        """Each newer entry and the older facts it replaces, in time order, worked out once:
        the weekly digests need them before anything is retired. An entry that would
        replace more than AT_MOST facts is a misreading: noted, and not applied."""
        if self._found is None:
            found = self._found = find_replacements(
                self.facts(), self.scanned, self.repeated, self.analysis.memo, self.mapper
            )
            self.held_back.update(found.held_back)
            if found.misread:
                misread = [
                    f"{place(self.analysis.assessed[n].entry)} ({count})" for n, count in found.misread
                ]
                more = f" and {len(misread) - 3:,} more" if len(misread) > 3 else ""
                self.notes.append(
                    f"not superseding for {', '.join(misread[:3])}{more}: an entry that would retire more"
                    f" than {AT_MOST} facts (how many in brackets) is taken for a misreading"
                )
        return self._found.replaced

    def superseded(self) -> frozenset[int]:
        """The entries a newer one replaces (retired or not: pinned, holding a secret)."""
        self.replacements()
        assert self._found is not None
        return self._found.superseded

    def facts(self) -> list[Fact]:
        """Every entry as the search for replacements reads it."""
        where = {Role.CORE: CORE, Role.DAILY: NOTE, Role.DAILY_SLUG: NOTE}
        return [
            Fact(
                a.entry.text,
                a.entry.kind,
                where.get(a.role, ""),
                a.entry.date,
                a.entry.file,
                a.entry.first_line,
                a.entry.last_line,
                a.group,
            )
            for a in self.analysis.assessed
        ]

    def scanned(self, text: str) -> str:
        """The text as the rules read it (core.scoring.scoring_text), read once by the analysis."""
        facts = self.analysis.texts.get(text)
        return facts.scoring if facts is not None else scoring_text(text)

    _found: Found | None = None
    _section_of: dict[str, Any]
    _lru: list[int] | None = None  # unpinned MEMORY.md entries, least recently used first

    def repeated(self, o: int, n: int) -> bool:
        """Whether a note repeats MEMORY.md's entry o on or after the day of entry n: then
        it is not older news, whatever n says."""
        core, new = self.analysis.assessed[o], self.analysis.assessed[n]
        said = self.said_on(core)
        day = new.entry.date or (max(self.said_on(new)) if self.said_on(new) else None)
        return bool(said) and day is not None and max(said) >= day

    def said_on(self, a: Assessed) -> list[date]:
        """The days a note said entry a (for a MEMORY.md entry: its notes' copies, and what the
        ledger recorded)."""
        seen = self.analysis.groups[a.group].last_seen if a.group is not None else None
        return [d for d in (seen, self.view.history.said.get(a.entry.id)) if d is not None]

    def retire(self, o: int, n: int, reason: str) -> None:
        old = self.analysis.assessed[o]
        new = self.analysis.assessed[n]
        f = self.file_of(old)
        self.retired_entries.add(id(old.entry))
        if old.group is not None:  # no copy of it said before the change goes to MEMORY.md now
            day = self.retired_groups.get(old.group, new.entry.date)
            self.retired_groups[old.group] = (
                None if day is None or new.entry.date is None else max(day, new.entry.date)
            )
        if old.entry.pinned:
            self.notes.append(f"{place(old.entry)} is pinned; not retired ({reason})")
            if f.role is Role.CORE:
                self.held_back.add(n)  # MEMORY.md never holds both sides of a change
            return
        if f.role is not Role.CORE and not self.closed_note(old) and f.rel not in self.archived:
            self.held_back.add(o)  # an open note is only appended to: it stays, and does not go up
            return
        if self.holds_secret(old):
            if f.role is Role.CORE:
                self.held_back.add(n)
            return  # superseded.md would carry the secret: it stays, and so does the newer entry
        self.gone.add(o)
        if f.rel in self.archived:
            reason += "; its note moves to the archive unchanged"  # the copy in superseded.md says so
        else:
            self.removed[f.rel].append(old.entry)
        if f.role is Role.CORE:
            self.core_chars -= len(old.entry.text) + 1
        marker = f"<!-- memcli: superseded {self.today} by {place(new.entry)} ({new.entry.id}) -->"
        self.superseded_add.append(promoted_text(old.entry).rstrip("\n") + f" {marker}\n")
        self.record("supersede", old, reason, to=SUPERSEDED, by=place(new.entry))
        if f.role is Role.CORE and new.role in SOURCE_ROLES and not self.in_core_group(n):
            self.promote(n, f"replaces the MEMORY.md entry {place(old.entry)}", category(old))

    def holds_secret(self, a: Assessed, *copies: str) -> bool:
        """Whether `memcli check` would flag the entry (or the copy of it to be written):
        then no copy is written, and the plan's note names its place."""
        if not holds_secret(a.entry.text, *copies):
            return False
        self.withheld.append(place(a.entry))
        return True

    def is_noise(self, i: int) -> bool:
        return self.analysis.assessed[i].tier is Tier.DISCARD

    def plan_drop(self) -> None:
        for i, a in enumerate(self.analysis.assessed):
            if self.is_noise(i) and self.closed_note(a) and i not in self.gone:
                self.gone.add(i)
                self.removed[a.entry.file].append(a.entry)
                reason = f"noise: {a.scored.reasons[0].cue!r}" if a.scored.reasons else "noise"
                self.trash.append(Trashed(a.entry.id, a.entry.text, place(a.entry), reason, "drop"))
                self.record("drop", a, reason, to=".memcli/trash")

    def in_core_group(self, i: int) -> bool:
        a = self.analysis.assessed[i]
        return a.group is not None and Role.CORE in self.group_roles(a.group)

    def plan_demote_unused(self) -> None:
        if self.view.history.first_run:
            return
        limit = self.today - timedelta(days=self.policy.core_unused_days)
        for i, clock in sorted(self.clock.items(), key=lambda kv: kv[1]):
            a = self.analysis.assessed[i]
            if clock < limit and not a.entry.pinned and i not in self.gone and not self.holds_secret(a):
                self.demote(i, f"not mentioned since {clock} (over {self.policy.core_unused_days} days)")

    def demote(self, i: int, reason: str) -> None:
        a = self.analysis.assessed[i]
        self.gone.add(i)
        self.removed[a.entry.file].append(a.entry)
        self.core_chars -= len(a.entry.text) + 1
        marker = f"<!-- memcli: demoted {self.today} from MEMORY.md ({a.entry.id}) -->"
        self.cold_add.append(promoted_text(a.entry).rstrip("\n") + f" {marker}\n")
        self.record("demote", a, reason, to=COLD)

    def promotable(self, i: int) -> str | None:
        """Why this entry should go to MEMORY.md, or None: judgement.promotion decides on
        the entry's importance label, once MEMORY.md does not hold it and nothing replaced it."""
        if not self.may_promote(i):
            return None
        a = self.analysis.assessed[i]
        return promotion.promotion(a, lambda: self.verdict(a))

    def may_promote(self, i: int) -> bool:
        """Whether judgement.promotion is asked about entry i."""
        a = self.analysis.assessed[i]
        if a.role not in SOURCE_ROLES or i in self.gone or i in self.promoted or i in self.held_back:
            return False
        if a.group is not None and (Role.CORE in self.group_roles(a.group) or self.replaced(a)):
            return False  # MEMORY.md has it already, or a newer entry replaced it
        return i not in self.superseded()  # a superseded fact is never promoted (SPEC §7)

    def replaced(self, a: Assessed) -> bool:
        """Whether a newer entry replaced what entry a says, as a said it: a copy written on
        the day of the change or after says it again, and is current (SPEC §7), as a later
        run, which sees that copy and the change on one day, judges it."""
        if id(a.entry) in self.retired_entries:
            return True
        if a.group not in self.retired_groups:
            return False
        since = self.retired_groups[a.group]
        return since is None or a.entry.date is None or a.entry.date < since

    def verdict(self, a: Assessed) -> importance.Verdict:
        """The importance label of an entry (judgement.importance), judged once."""
        found = self._verdicts.get(id(a))
        if found is None:
            found = self._verdicts[id(a)] = self.judge_importance(a)
        return found

    def judge_importance(self, a: Assessed) -> importance.Verdict:
        """judgement.importance's label, or last run's for the same arguments (core.memo):
        the text, where it stands, how it scored and how often it was said."""
        found: importance.Verdict = self._importance.get(self.arguments(a), self._label, a)
        return found

    def _label(self, a: Assessed) -> importance.Verdict:
        found = self._labelled.pop(id(a), None)
        return found if found is not None else self._judge_importance(a)

    def read_ahead_labels(self) -> None:
        """The importance labels promotion will ask for judged on every core (`mapper`)
        first, on a run whose memo holds none (a first run, or one after memcli or the rules
        changed), when there are READ_AHEAD_FROM of them at least: the memo is asked for
        each as it would be without it, and only what it works out was judged ahead."""
        if self.mapper is None or self._importance.loaded:
            return  # (a warm run does not even look: a decade has 219,000 entries)
        assessed = self.analysis.assessed
        entries = [
            i for i in range(len(assessed)) if self.may_promote(i) and promotion.asks_label(assessed[i])
        ]
        if len(entries) < READ_AHEAD_FROM:
            return
        labels = self.mapper(lambda i: self._judge_importance(assessed[int(i)]), [str(i) for i in entries])
        self._labelled = {id(assessed[i]): label for i, label in zip(entries, labels, strict=True)}

    def digest_label(self, a: Assessed) -> importance.Verdict:
        """The label a weekly digest files an entry by (summarize.digest_label), or last
        run's for the same arguments."""
        labels = self.analysis.memo.table("planner.digest_label")  # (loaded when a week is summarised)
        found: importance.Verdict = labels.get(self.arguments(a), digest_label, a)
        return found

    def arguments(self, a: Assessed) -> tuple[Any, ...]:
        """What an entry's importance label rests on: its text, where it stands, how often
        it was said, and every field of its score, whatever fields that gains (a mapping as
        its sorted items)."""
        entry = a.entry
        scored = tuple(
            tuple(sorted(v.items())) if isinstance(v, Mapping) else v
            for v in map(a.scored.__getattribute__, _SCORE_FIELDS)
        )
        return (entry.text, entry.kind, tuple(entry.section), a.mentions, entry.done, *scored)

    def _judge_importance(self, a: Assessed) -> importance.Verdict:
        facts = self.analysis.texts.get(a.entry.text)
        return importance.judge(
            a.entry.text,
            a.scored,
            self.rules,
            self.policy,
            kind=a.entry.kind,
            section=a.entry.section,
            mentions=a.mentions,
            done=a.entry.done,
            t=facts.scoring if facts is not None else None,
        )

    def plan_promotions(self) -> None:
        self.promote_back()
        self.read_ahead_labels()
        assessed = self.analysis.assessed
        candidates = [(i, why) for i in range(len(assessed)) if (why := self.promotable(i))]

        def order(c: tuple[int, str]) -> tuple[bool, float, str, int]:
            a = assessed[c[0]]
            return (not a.scored.remember, -a.decayed, a.entry.file, a.entry.first_line)

        # One copy of a fact goes up: the group's kept entry when it qualifies, else the
        # best copy that does (the kept one may be a timestamped line of an archived note).
        chosen: dict[int, tuple[int, str]] = {}
        for c in sorted(candidates, key=order):
            group = assessed[c[0]].group
            if group is None:
                chosen[-1 - c[0]] = c
            elif group not in chosen or c[0] == self.analysis.groups[group].keep:
                chosen[group] = c
        for i, why in sorted(chosen.values(), key=order):
            reasons = (*self.verdict(assessed[i]).reasons, *assessed[i].scored.reasons)
            self.promote(i, why, promotion.category(reasons))

    def promote_back(self) -> None:
        """A demoted entry mentioned again after its demotion returns to MEMORY.md."""
        demoted = self.view.history.demoted
        for i, a in enumerate(self.analysis.assessed):
            marker = MARKER_ID.search(a.entry.text) if self.in_cold(a) else None
            if marker is None or a.group is None or marker.group(1) not in demoted:
                continue
            since = demoted[marker.group(1)]
            again = [
                self.analysis.assessed[m]
                for m in self.members(a.group)
                if self.analysis.assessed[m].role in SOURCE_ROLES
                and (self.analysis.assessed[m].entry.date or date.min) > since
            ]
            if self.holds_secret(a):
                continue
            bullet = MEMCLI_MARKER.sub("", promoted_text(a.entry).rstrip("\n")) + "\n"
            said = max(m.entry.date or date.min for m in again) if again else None
            if again and self.make_room(self.cost(category(a), bullet), f"{place(a.entry)} comes back", said):
                self.cold_remove.append(a.entry)
                self.gone.add(i)
                self.promotions.append((category(a), bullet))
                reason = f"mentioned again on {again[0].entry.date} after its demotion on {since}"
                self.record("promote", a, reason, to=self.core_target(), id=marker.group(1))

    def cost(self, kind: str, bullet: str) -> int:
        """Characters a promotion adds to MEMORY.md: the bullet, and a new section if needed."""
        if kind not in self._section_of:  # MEMORY.md's sections do not change while planning
            self._section_of[kind] = self.section_for(kind, self.core_sections)
        has_section = self._section_of[kind] is not None
        planned = any(k == kind for k, _ in self.promotions)
        if has_section or planned:
            return len(bullet) + 1
        return len(bullet) + len(self.title(kind)) + 6

    def core_target(self) -> str:
        return self.core or "MEMORY.md"

    def first_run_full(self) -> str | None:
        """Why nothing can be promoted at all: MEMORY.md is full, and a first run demotes nothing."""
        budget = self.policy.core_max_chars
        if self.view.history.first_run and self.core_chars >= budget:
            return f"over {budget:,} characters, and the first run demotes nothing"
        return None

    def make_room(self, size: int, why: str, said: date | None = None) -> bool:
        """Demote least recently used core entries until `size` characters fit the budget:
        only entries last used before `said`, the last day the newcomer was said, so that an
        old fact never pushes out one in use."""
        budget = self.policy.core_max_chars
        if self.core_chars + size <= budget:
            self.core_chars += size
            return True
        if self.view.history.first_run:
            self.no_room[f"over {budget:,} characters, and the first run demotes nothing"].append(why)
            return False
        if self._lru is None:  # the clocks are fixed for the run: sort once
            movable = (  # pinned entries stay, and cold storage is no place for a secret
                i
                for i in self.clock
                if not self.analysis.assessed[i].entry.pinned
                and not holds_secret(self.analysis.assessed[i].entry.text)
            )
            self._lru = sorted(
                movable,
                key=lambda i: (self.clock[i], self.analysis.assessed[i].entry.first_line),
            )
        freed, chosen = 0, []
        for i in self._lru:
            if self.core_chars - freed + size <= budget or (said is not None and self.clock[i] >= said):
                break
            if i in self.gone:
                continue
            chosen.append(i)
            freed += len(self.analysis.assessed[i].entry.text) + 1
        if self.core_chars - freed + size > budget:
            self.no_room["every entry it could demote was used more recently"].append(why)
            return False
        for i in chosen:
            self.demote(i, f"least recently used (last {self.clock[i]}), making room for {why}")
        self.core_chars += size
        return True

    def plan_fit(self) -> None:
        """A MEMORY.md over its budget (core_max_chars): with --fit, its least valuable
        unpinned entries (lowest score, then least recently mentioned) are demoted until it
        fits, each shown in the plan; without, a note gives the figures and says what --fit
        would demote. A first run may fit too: the user asked for it."""
        budget = self.policy.core_max_chars
        if self.core is None or self.core_chars <= budget:
            return
        assessed = self.analysis.assessed
        movable = sorted(
            (
                i
                for i in self.clock
                if i not in self.gone
                and not assessed[i].entry.pinned
                and not holds_secret(assessed[i].entry.text)
            ),
            key=lambda i: (assessed[i].scored.score, self.clock[i], -assessed[i].entry.first_line),
        )
        chars, chosen = self.core_chars, []
        for i in movable:
            if chars <= budget:
                break
            chosen.append(i)
            chars -= len(assessed[i].entry.text) + 1
        over = f"{self.core} is {self.core_chars:,} characters, over core_max_chars ({budget:,})"
        if not self.fit:
            named = ", ".join(place(assessed[i].entry) for i in chosen[:3])
            more = f" and {len(chosen) - 3:,} more" if len(chosen) > 3 else ""
            stays = "pinned entries and entries holding a secret stay: it still would not fit"
            fits = "" if chars <= budget else f" ({stays})"
            entries = "entry" if len(chosen) == 1 else "entries"
            self.notes.append(
                f"{over}: `memcli gc --fit` would demote {len(chosen):,} {entries} ({named}{more}){fits}"
            )
            return
        for i in chosen:
            a = assessed[i]
            self.demote(i, f"--fit: score {a.scored.score:g}, last mentioned {self.clock[i]}; {over}")
            self.moved.add(id(a.entry))  # asked for, and kept in cold storage: not a removal to guard
        if self.core_chars > budget:
            self.notes.append(
                f"{self.core} is still {self.core_chars:,} characters after --fit: its pinned entries "
                "and entries holding a secret stay"
            )

    def note_no_room(self) -> None:
        """One note per reason, naming the first few entries left out rather than each one."""
        shown = 3
        for reason, whats in self.no_room.items():
            named = ", ".join(whats[:shown])
            if len(whats) > shown:
                named += f" and {len(whats) - shown:,} more"
            self.notes.append(f"no room in MEMORY.md for {named}: {reason}")

    def promote(self, i: int, why: str, kind: str) -> None:
        a = self.analysis.assessed[i]
        if i in self.promoted:
            return
        full = self.first_run_full()
        if full is not None:
            self.no_room[full].append(place(a.entry))
            return
        bullet, secret = self._copies.get(a.entry.text, _copy_of, a.entry)
        if secret:
            self.withheld.append(place(a.entry))
            return
        seen = self.analysis.groups[a.group].last_seen if a.group is not None else None
        said = max((d for d in (a.entry.date, seen) if d is not None), default=None)
        if not self.make_room(self.cost(kind, bullet), place(a.entry), said):
            return
        self.promoted.add(i)
        self.promotions.append((kind, bullet))
        self.record("promote", a, why, to=self.core_target())
        copy = parse(bullet, self.core_target()).entries
        if said is not None and copy:  # the last day a note said it: later news may replace it, not older
            self.events.append(Event("stated", copy[0].id, copy[0].text, place(a.entry), day=str(said)))
        if a.group is not None:
            self.promoted_groups.add(a.group)
        if self.closed_note(a):
            self.fold(i, self.core_target(), "folded into its promoted copy")
            self.moved.add(id(a.entry))

    def plan_merges(self) -> None:
        """Duplicates in closed notes fold into the entry kept: the one in MEMORY.md, the
        one just promoted, or the fullest wording. Labels, status lines and metadata fields
        stay: they are part of their own note's record ("**Rationale:**", "- ✅ deployed",
        "移除重复：0"), not a fact said twice. So do copies in another note of the same day
        (a day's note and its compressed or evening version): one day is one mention, and
        taking them out would leave holes in that note's lists. A bare topic word too short
        to stand alone ("监控告警", "- Results") stays in its list too."""
        for g, group in enumerate(self.analysis.groups):
            keep = self.analysis.assessed[group.keep]
            if group.keep in self.gone and not self.promoted_here(g):
                continue
            up = self.promoted_here(g)
            into = self.core_target() if up else place(keep.entry)
            core_kept = keep.role is Role.CORE
            pairs = list(group.duplicates)
            if up and group.keep not in self.promoted:
                # another copy went up: the kept one is a copy of MEMORY.md's now, like the rest
                pairs.append((group.keep, max(s for i, s in pairs if i in self.promoted)))
            for d, similarity in pairs:
                dup = self.analysis.assessed[d]
                if d in self.gone or not self.closed_note(dup) or is_log(dup.entry):
                    continue
                if len(self.analysis.normalised(dup.entry.text)) < MERGE_MIN_CHARS:
                    continue
                if self.heads_a_list(d):
                    continue  # a line that introduces the list under it stays with its list
                if (
                    dup.entry.file != keep.entry.file
                    and dup.entry.date == keep.entry.date
                    and not (core_kept or up)
                ):
                    continue
                self.fold(d, into, "exact copy" if similarity >= 1 else f"{similarity:.0%} similar")
                if core_kept and dup.entry.date and dup.entry.date > self.clock.get(group.keep, date.min):
                    self.events.append(
                        Event("mentioned", keep.entry.id, keep.entry.text, into, day=str(dup.entry.date))
                    )

    def heads_a_list(self, d: int) -> bool:
        """A paragraph right above a list ("**Decisions**", "今天的进展"): it is the list's
        heading, and taking it out would leave the list under the heading before it."""
        entry = self.analysis.assessed[d].entry
        if entry.kind != "paragraph":
            return False
        after = [
            e
            for e in (self.analysis.assessed[i].entry for i in self.by_file[entry.file])
            if e.first_line > entry.last_line
        ]
        following = min(after, key=lambda e: e.first_line, default=None)
        return (
            following is not None
            and following.kind in ("bullet", "task")
            and following.first_line <= entry.last_line + 2
        )

    def fold(self, d: int, into: str, reason: str) -> None:
        """Take an entry out of its note because `into` says the same (a merge)."""
        dup = self.analysis.assessed[d]
        self.gone.add(d)
        self.removed[dup.entry.file].append(dup.entry)
        self.trash.append(
            Trashed(dup.entry.id, dup.entry.text, place(dup.entry), f"merged into {into}", "merge")
        )
        self.record("merge", dup, reason, into=into)

    def record(
        self,
        action: str,
        a: Assessed,
        reason: str,
        to: str | None = None,
        into: str | None = None,
        by: str | None = None,
        id: str | None = None,
    ) -> None:
        """An action on an entry, in the plan and in the ledger."""
        ident = id or a.entry.id
        where = place(a.entry)
        self.actions.append(
            Action(
                action,
                reason,
                text=a.entry.text,
                source=where,
                to=to,
                into=into,
                by=by,
                id=ident,
                score=a.scored.score,
            )
        )
        self.events.append(Event(action, ident, a.entry.text, where, to or into, reason))

    def promoted_here(self, g: int) -> bool:
        return g in self.promoted_groups

    def removal_shares(self) -> list[tuple[str, int, int]]:
        """Files that would lose more than max_removal_share of their entries. An entry moved
        into MEMORY.md is not lost, and a single removal never needs --force."""
        over = []
        for rel, gone in sorted(self.removed.items()):
            lost = [e for e in gone if id(e) not in self.moved]
            total = len(self.files[rel][1].entries)
            if len(lost) >= 2 and len(lost) / total > self.policy.max_removal_share:
                over.append((rel, len(lost), total))
        return over

    # --- files -----------------------------------------------------------------------

    def assemble(self) -> list[FileWrite]:
        writes: list[FileWrite] = []
        for rel, gone in sorted(self.removed.items()):
            if rel == self.core:
                continue  # a note archived too is rewritten first, then moved
            doc = self.files[rel][1]
            writes.append(FileWrite(rel, doc.render(), edit_document(doc, gone)))
        core_write = self.core_write()
        if core_write is not None:
            writes.append(core_write)
        for rel, additions, removals in (
            (COLD, self.cold_add, self.cold_remove),
            (SUPERSEDED, self.superseded_add, []),
        ):
            if additions or removals:
                writes.append(self.archive_file_write(rel, additions, removals))
        for rel, text in sorted(self.summaries.items()):
            writes.append(FileWrite(rel, None, text))
        for rel, target in sorted(self.archived.items()):
            writes.append(FileWrite(rel, None, None, move_to=target))
        return writes

    def core_write(self) -> FileWrite | None:
        removals = self.removed.get(self.core or "", [])
        if not self.promotions and not removals:
            return None
        if self.core is None:
            text = "# MEMORY.md\n"
            for kind, bullet in self.promotions:
                text = append_block(text, f"## {self.title(kind)}\n\n{bullet}")
            return FileWrite("MEMORY.md", None, text)
        doc = self.files[self.core][1]
        by_section: dict[object, list[str]] = defaultdict(list)
        found = sections(doc)
        for kind, bullet in self.promotions:
            section = self.section_for(kind, found)
            by_section[section if section is not None else kind].append(bullet)
        inserts: list[Insert] = []
        for key, bullets in by_section.items():
            text = "".join(bullets)
            if isinstance(key, str):
                inserts.append(new_section(doc, self.title(key), text))
            else:
                inserts.append(insertion_into(doc, key, text))  # type: ignore[arg-type]
        return FileWrite(self.core, doc.render(), edit_document(doc, removals, inserts))

    def section_for(self, kind: str, found: Sequence[Any]) -> Any:
        """The first `##`/`###` section whose title has a word that fits this kind of fact."""
        return promotion.section_for(kind, found)

    def title(self, kind: str) -> str:
        return promotion.title(kind, self.core_chinese)

    def archive_file_write(self, rel: str, additions: list[str], removals: list[Entry]) -> FileWrite:
        existing = self.files.get(rel) or next(((f, d) for f, d in self.view.archives if f.rel == rel), None)
        if existing is None:
            heading = "# Cold memory" if rel == COLD else "# Superseded memory"
            note = (
                "Entries demoted from MEMORY.md (not mentioned for a while); a new mention brings one back."
                if rel == COLD
                else "Entries replaced by newer facts or corrected; each says what replaced it."
            )
            text = f"{heading}\n\n{note}\n"
            before = None
        else:
            doc = existing[1]
            before = doc.render()
            text = edit_document(doc, removals)
        if additions:
            text = append_block(text, "".join(additions))
        return FileWrite(rel, before, text)


def _copy_of(entry: Entry) -> tuple[str, bool]:
    """An entry as a MEMORY.md bullet, and whether it or its bullet holds a secret."""
    bullet = promoted_text(entry)
    return bullet, holds_secret(entry.text, bullet)


def plan(
    view: View,
    analysis: Analysis,
    policy: Policy,
    rules: Rules,
    now_local: datetime,
    fit: bool = False,
    mapper: Mapper | None = None,
) -> Plan:
    """Everything gc would do, and why (pure: files, policy, history and time in; plan out).
    With `fit`, a MEMORY.md over its budget is brought within it (see _Planner.plan_fit).
    `mapper`: what reads many texts on every core (the supersede search's, on a first run)."""
    return _Planner(view, analysis, policy, rules, now_local, fit, mapper).run()
