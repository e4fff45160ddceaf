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
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
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
from memcli.core.entries import Document, Entry, leading_stamp, parse
from memcli.core.policy import Policy
from memcli.core.roles import ARCHIVE_DIR, SUMMARIES_DIR, MemoryFile, Role
from memcli.core.rules import Rules
from memcli.core.scoring import Tier, scoring_text
from memcli.core.subjects import retired_object, subject_tokens
from memcli.core.summarize import Digest, digest_of_notes, plain_render, week_of
from memcli.core.tokens import estimate_tokens, is_mostly_cjk
from memcli.core.withheld import holds_secret, left_out

ACTIONS = ("merge", "drop", "promote", "supersede", "demote", "summarize", "archive")
COLD = f"{ARCHIVE_DIR}/core-cold.md"
SUPERSEDED = f"{ARCHIVE_DIR}/superseded.md"
PROMOTE_MAX_TOKENS = 160
FACT_MAX_CHARS = 400  # longer entries are reports, not facts one newer line can replace
CORRECTION_AT_MOST = 24  # a correction says so at its start ("这个不对：…", "that's wrong: …")
SOURCE_ROLES = frozenset({Role.DAILY, Role.DAILY_SLUG})
FACT_KINDS = frozenset({"bullet", "paragraph", "quote"})
PROMOTE_KINDS = frozenset({"bullet", "paragraph"})  # quotes cite someone else; they are not promoted

# Where a promoted entry lands: its kind of fact, the titles of a new section in English
# and Chinese, and the words of an existing heading that fit it (whole English words,
# Chinese anywhere in the title).
CATEGORIES: tuple[tuple[str, str, str, frozenset[str]], ...] = (
    (
        "preference",
        "Preferences",
        "偏好",
        frozenset({"preference", "preferences", "prefs", "偏好", "喜好", "习惯"}),
    ),
    ("decision", "Decisions", "决策", frozenset({"decision", "decisions", "决策", "决定"})),
    (
        "environment",
        "Environment",
        "环境",
        frozenset(
            {"environment", "env", "setup", "tools", "tooling", "system", "systems", "环境", "工具", "系统"}
        ),
    ),
    (
        "knowledge",
        "Knowledge",
        "经验教训",
        frozenset(
            {"knowledge", "lessons", "lesson", "learnings", "pitfalls", "gotchas", "知识", "经验", "教训"}
        ),
    ),
    (
        "fact",
        "Facts",
        "事实",
        frozenset({"facts", "fact", "memory", "memories", "misc", "general", "事实", "备忘", "记忆"}),
    ),
)


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


_TITLE_WORD = re.compile(r"[a-z]+")
# memcli's own notes on an archived entry, and the id of the entry they speak of
MERGE_MIN_CHARS = 8  # shorter (normalised) entries are list items that lean on their heading
MEMCLI_MARKER = re.compile(r"\s*<!-- memcli: [^>]*-->")
MARKER_ID = re.compile(r"<!-- memcli: [^>]*\(([0-9a-f]{10})\) -->")


def place(entry: Entry) -> str:
    return f"{entry.file}:{entry.first_line}"


_LABEL = re.compile(
    r"^(\*\*[^*]{1,24}\*\*|\*\*[^*]{1,24}[:：]\*\*|【[^】]{1,12}】|[^:：]{1,16})\s*[:：]?\s*(.*)$"
)
_STATUS = re.compile("[✅❌⏳🟢🔴🟡]")
_BOLD_LABEL = re.compile(r"\*\*[^*]{1,24}\*\*\s*[:：]|\*\*[^*]{1,24}[:：]\*\*")
_ORDERED = re.compile(r"\s*\d{1,9}[.)]\s")


LABEL_ENDS = (":", "：", ":**", "：**")


def is_log(entry: Entry) -> bool:
    """Commands, stack traces, labelled fields, status lines, table rows and footers are logs,
    not facts to remember."""
    body = entry.body
    first = body.split("\n", 1)[0].strip()
    if first.startswith(("$ ", "> $", "# ", "sudo ", "`", "【", "⚠️", "|")) or _STATUS.search(body):
        return True
    if "Traceback (most recent call last)" in body or "\n    at " in body or body.count("\n") > 8:
        return True
    last = body.rstrip().rsplit("\n", 1)[-1].strip()
    if first.endswith(LABEL_ENDS) or last.endswith(LABEL_ENDS) or body.count("|") >= 2:
        return True  # a label introduces what follows it: structure, not a fact
    if first.startswith("*") and first.endswith("*") and not first.startswith("**"):
        return True  # an italic footer: *Session 结束 · 2026-04-06 23:44*
    if len(_BOLD_LABEL.findall(body)) >= 2 or _ORDERED.match(entry.text):
        return True  # a form of labelled fields, or a step of a numbered procedure
    label = _LABEL.match(first)
    if label is None or not label.group(2):
        return False
    value = label.group(2).strip()
    bold = label.group(1).startswith(("**", "【"))
    plain = (":" in first or "：" in first) and len(value) < 20 and any(ch.isdigit() for ch in value)
    return (bold and len(value) < 40) or plain


# Signals that make a fact worth keeping for good; urgency and numbers alone make a status line.
DURABLE = frozenset({"preference", "decision", "environment", "knowledge", "long-lived"})


def rules_of(a: Assessed) -> set[str]:
    return {r.rule for r in a.scored.reasons}


def category(a: Assessed) -> str:
    found = {r.rule for r in a.scored.reasons}
    for name, *_ in CATEGORIES:
        if name in found:
            return name
    return "fact"


class _Planner:
    def __init__(
        self,
        view: View,
        analysis: Analysis,
        policy: Policy,
        rules: Rules,
        now_local: datetime,
        fit: bool = False,
    ) -> None:
        self.fit = fit
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
        self.retired_groups: set[int] = set()  # groups a newer entry replaced or corrected
        self.promoted: set[int] = set()
        self.moved: set[int] = set()  # entries that left a note for MEMORY.md (by object id)
        self._subjects: dict[int, frozenset[str]] = {}
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
                entries = [self.analysis.assessed[i] for f in notes for i in self.by_file[f.rel]]
                sources = [f.rel for f in notes]
                budget = self.view.summary_budget
                digest = digest_of_notes(
                    "weekly-digest", week, entries, sources, self.now, budget, count_tokens=False
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
        """A newer entry that says something changed retires the older one it is about;
        an explicit correction retires the entry it corrects."""
        assessed = self.analysis.assessed
        order = sorted(
            (i for i, a in enumerate(assessed) if {"change", "correction"} & a.scored.signals),
            key=lambda i: (
                assessed[i].entry.date or date.min,
                assessed[i].entry.file,
                assessed[i].entry.first_line,
            ),
        )
        for n in order:
            new = assessed[n]
            if new.role not in SOURCE_ROLES or n in self.gone:
                continue
            if new.entry.kind not in FACT_KINDS or len(new.entry.text) > FACT_MAX_CHARS:
                continue
            scanned = scoring_text(new.entry.text)
            cues = self.rules.scan(scanned)
            if "correction" in cues and scanned.find(cues["correction"]) <= CORRECTION_AT_MOST:
                target = self.corrected(n, scanned, cues["correction"])
                if target is not None:
                    self.retire(target, n, f"corrected by {place(new.entry)}")
                continue
            retired_cue = cues.get("retired")
            if retired_cue is None:
                continue
            obj = retired_object(scanned, retired_cue)
            if not obj:
                continue
            mine = self.subjects(n)
            for o in self.older_than(n, obj, needed=len(obj)):
                if len((mine - obj) & self.subjects(o)) >= 1:
                    self.retire(
                        o, n, f"replaced: {place(new.entry)} says '{retired_cue} {' '.join(sorted(obj))}'"
                    )

    def subjects(self, i: int) -> frozenset[str]:
        """What entry i is about (see `subject_tokens`), worked out once."""
        found = self._subjects.get(i)
        if found is None:
            text = self.analysis.assessed[i].entry.text
            found = self._subjects[i] = subject_tokens(text, norm=self.analysis.normalised(text))
        return found

    def about(self) -> dict[str, list[int]]:
        """Subject token -> the retirable facts that hold it, in order."""
        if self._about is None:
            self._about = defaultdict(list)
            for o in self.retirable():
                entry = self.analysis.assessed[o].entry
                if entry.kind in FACT_KINDS and len(entry.text) <= FACT_MAX_CHARS:
                    for token in self.subjects(o):
                        self._about[token].append(o)
        return self._about

    def retirable(self) -> list[int]:
        """Entries a newer one may retire: MEMORY.md's, and those of closed notes that stay."""
        if self._retirable is None:
            self._retirable = [
                i
                for i, a in enumerate(self.analysis.assessed)
                if a.role is Role.CORE or (a.role in SOURCE_ROLES and self.closed_note(a))
            ]
        return self._retirable

    _retirable: list[int] | None = None
    _section_of: dict[str, Any]
    _lru: list[int] | None = None  # unpinned MEMORY.md entries, least recently used first
    _about: dict[str, list[int]] | None = None

    def older_than(self, n: int, tokens: frozenset[str], needed: int) -> Iterable[int]:
        """Retirable facts written before entry n (and MEMORY.md's) that share at least
        `needed` of `tokens`, in order."""
        new = self.analysis.assessed[n]
        about = self.about()
        shared: Counter[int] = Counter()
        for token in tokens:
            shared.update(about.get(token, ()))
        for o in sorted(o for o, count in shared.items() if count >= needed):
            old = self.analysis.assessed[o]
            if o == n or o in self.gone or (old.group is not None and old.group == new.group):
                continue  # a copy of the newer entry (its promoted copy in MEMORY.md) is not older news
            if (old.role is Role.CORE and not self.said_since(old, new)) or (
                old.entry.date is not None
                and new.entry.date is not None
                and (old.entry.date, old.entry.file, old.entry.first_line)
                < (new.entry.date, new.entry.file, new.entry.first_line)
            ):
                yield o

    def said_since(self, core: Assessed, new: Assessed) -> bool:
        """Whether a note repeats this MEMORY.md entry on or after the day of `new`: then it
        is not older news, whatever `new` says."""
        seen = self.analysis.groups[core.group].last_seen if core.group is not None else None
        said = [d for d in (seen, self.view.history.said.get(core.entry.id)) if d is not None]
        return bool(said) and new.entry.date is not None and max(said) >= new.entry.date

    def corrected(self, n: int, scanned: str, cue: str) -> int | None:
        """The entry a correction refers to: the most recent earlier one on its subject, or
        the entry right before it when it says no more than "that's wrong"."""
        new = self.analysis.assessed[n]
        mine = subject_tokens(new.entry.text, drop=(cue,))
        best: tuple[int, tuple[Any, ...]] | None = None
        for o in self.older_than(n, mine, needed=2):
            old = self.analysis.assessed[o]
            shared = len(mine & self.subjects(o))
            rank = (shared, old.entry.date or date.min, old.entry.first_line)
            if best is None or rank > best[1]:
                best = (o, rank)
        if best is not None:
            return best[0]
        if len(mine) < 2:
            before = [
                o
                for o, a in enumerate(self.analysis.assessed)
                if a.entry.file == new.entry.file and a.entry.last_line < new.entry.first_line
            ]
            return before[-1] if before else None
        return None

    def retire(self, o: int, n: int, reason: str) -> None:
        old = self.analysis.assessed[o]
        new = self.analysis.assessed[n]
        f = self.file_of(old)
        if old.group is not None:
            self.retired_groups.add(old.group)  # no copy of it goes to MEMORY.md now
        if old.entry.pinned:
            self.notes.append(f"{place(old.entry)} is pinned; not retired ({reason})")
            return
        if f.role is not Role.CORE and not self.closed_note(old):
            if f.rel not in self.archived:
                self.notes.append(f"{place(old.entry)} is in an open note; not retired ({reason})")
            return
        if self.holds_secret(old):
            return  # superseded.md would carry the secret: it stays, and so does the newer entry
        self.gone.add(o)
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
        """Why this entry should go to MEMORY.md, or None."""
        a = self.analysis.assessed[i]
        if a.role not in SOURCE_ROLES or i in self.gone or i in self.promoted or a.tier is not Tier.CORE:
            return None
        if a.entry.kind not in PROMOTE_KINDS:
            return None
        if a.group is not None and (Role.CORE in self.group_roles(a.group) or a.group in self.retired_groups):
            return None  # MEMORY.md has it already, or a newer entry replaced it
        if a.scored.remember:
            return "asked to remember it"
        found = rules_of(a)
        if not DURABLE & found or "short-lived" in found:
            return None  # nothing lasting in it, or it says itself that it will not last
        if a.scored.routine:
            return None
        if a.entry.time is not None and leading_stamp(a.entry.body)[1] is not None:
            return None  # a timestamped line records an event of its day, not a lasting fact
        if estimate_tokens(a.entry.text) > PROMOTE_MAX_TOKENS or is_log(a.entry):
            return None
        if a.scored.score >= self.policy.promote_score:
            return f"score {a.scored.score:g} (from {self.policy.promote_score:g})"
        return f"mentioned on {a.mentions} days"

    def plan_promotions(self) -> None:
        self.promote_back()
        candidates = [(i, why) for i in range(len(self.analysis.assessed)) if (why := self.promotable(i))]
        assessed = self.analysis.assessed

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
            self.promote(i, why, category(assessed[i]))

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
        bullet = promoted_text(a.entry)
        if self.holds_secret(a, bullet):
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
        words = next(c[3] for c in CATEGORIES if c[0] == kind)
        for section in found:
            title = section.heading.title.casefold()
            english = set(_TITLE_WORD.findall(title))
            if section.heading.level >= 2 and (
                english & words or any(w in title for w in words if not w.isascii())
            ):
                return section
        return None

    def title(self, kind: str) -> str:
        english, chinese = next((c[1], c[2]) for c in CATEGORIES if c[0] == kind)
        return chinese if self.core_chinese else english

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


def plan(
    view: View, analysis: Analysis, policy: Policy, rules: Rules, now_local: datetime, fit: bool = False
) -> Plan:
    """Everything gc would do, and why (pure: files, policy, history and time in; plan out).
    With `fit`, a MEMORY.md over its budget is brought within it (see _Planner.plan_fit)."""
    return _Planner(view, analysis, policy, rules, now_local, fit).run()
