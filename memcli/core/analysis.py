"""Every entry of a workspace assessed: score, tier, decay, mentions, staleness.

This is where the scoring rules, decay and duplicate groups meet; `list`,
`dedupe` and the gc planner read its result.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from itertools import accumulate

from memcli.core.decay import age_days, decayed_score, is_stale
from memcli.core.entries import Document, Entry
from memcli.core.judgement import routine
from memcli.core.memo import Memo
from memcli.core.policy import Policy
from memcli.core.roles import MemoryFile, Role
from memcli.core.rules import Rules
from memcli.core.scoring import Scored, Tier, score_scanned, scoring_text, tier_of
from memcli.core.similarity import (
    Description,
    Group,
    Item,
    Mapper,
    describe,
    duplicate_groups,
    normalise,
    serial_map,
)

# Entries compared for duplicates; code, tables and HTML are kept as they are.
DEDUPE_KINDS = frozenset({"bullet", "task", "paragraph", "quote"})


@dataclass(frozen=True, slots=True)
class Assessed:
    entry: Entry
    role: Role
    scored: Scored
    tier: Tier
    decayed: float
    stale: bool
    evergreen: bool
    mentions: int
    first_seen: date | None
    last_seen: date | None
    group: int | None  # index into Analysis.groups


@dataclass(frozen=True, slots=True)
class DuplicateGroup:
    keep: int  # index into Analysis.assessed
    duplicates: tuple[tuple[int, float], ...]
    mentions: int
    first_seen: date | None
    last_seen: date | None


@dataclass(frozen=True)
class Analysis:
    assessed: tuple[Assessed, ...]
    groups: tuple[DuplicateGroup, ...]
    texts: Mapping[str, TextFacts] = field(default_factory=dict, repr=False, compare=False)
    memo: Memo = field(default_factory=Memo, repr=False, compare=False)  # for the planner too
    found: Standing | None = field(default=None, repr=False, compare=False)  # what it was assessed by

    def normalised(self, text: str) -> str:
        """The text as dedupe compares it, read once by the analysis when it could."""
        facts = self.texts.get(text)
        return facts.description[0] if facts is not None else normalise(text)


@dataclass(frozen=True, slots=True)
class TextFacts:
    """What memcli reads from one entry text, once however often the text recurs."""

    description: Description  # what dedupe compares
    scoring: str  # the text the scoring rules read
    routine: bool  # a routine event ("heartbeat OK")
    signals: dict[str, str] | None  # signal -> cue; None when not scanned yet


TextFields = tuple[Description, str, bool, dict[str, str] | None]  # TextFacts, as a plain tuple


class _TextReader:
    """Reads texts into TextFacts; a plain object so forked workers can inherit it."""

    def __init__(self, rules: Rules, scan: bool) -> None:
        self.rules = rules
        self.routine = rules["routine"]
        self.scan = scan

    def __call__(self, text: str) -> TextFields:
        """The fields of TextFacts, as a plain tuple: it crosses from a worker process
        much faster than a dataclass, which pickles its field names with every instance."""
        scoring = scoring_text(text)
        if self.scan:
            signals = self.rules.scan(scoring)
            return describe(text), scoring, "routine" in signals, signals
        return describe(text), scoring, self.routine.find(scoring) is not None, None


def texts_to_read(doc: Document) -> Iterator[str]:
    """The texts of a document's entries that dedupe compares (and read_texts reads)."""
    return (e.text for e in doc.entries if e.kind in DEDUPE_KINDS)


def reader(rules: Rules, scan: bool) -> Callable[[str], TextFields]:
    """What read_texts applies to each text; its results become TextFacts."""
    return _TextReader(rules, scan)


def read_texts(
    files: Sequence[tuple[MemoryFile, Document]], rules: Rules, scan: bool, mapper: Mapper = serial_map
) -> dict[str, TextFacts]:
    """Every distinct text of the entries compared for duplicates, read once (perhaps in parallel);
    with `scan`, the scoring rules' scan of it too."""
    distinct = list(dict.fromkeys(t for _, doc in files for t in texts_to_read(doc)))
    read = mapper(reader(rules, scan), distinct)
    return {text: TextFacts(*fields) for text, fields in zip(distinct, read, strict=True)}


def compared(
    files: Sequence[tuple[MemoryFile, Document]], facts: Mapping[str, TextFacts], recurring: Mapping[str, int]
) -> tuple[list[int], list[Item]]:
    """The entries dedupe compares: each one's place among all entries in order, and what
    dedupe needs of it."""
    picked: list[int] = []
    items: list[Item] = []
    i = -1
    for f, doc in files:
        for e in doc.entries:
            i += 1
            if e.kind not in DEDUPE_KINDS:
                continue
            picked.append(i)
            items.append(
                Item(
                    text=e.text,
                    date=e.date if f.role is not Role.CORE else None,
                    in_core=f.role is Role.CORE,
                    routine=facts[e.text].routine or e.text in recurring,
                    done=e.done,
                )
            )
    return picked, items


def _lift(group: Group, picked: list[int]) -> DuplicateGroup:
    return DuplicateGroup(
        keep=picked[group.keep],
        duplicates=tuple((picked[i], s) for i, s in group.duplicates),
        mentions=group.mentions,
        first_seen=group.first_seen,
        last_seen=group.last_seen,
    )


@dataclass(frozen=True, slots=True)
class Standing:
    """What assessing an entry needs from the rest of the workspace: the duplicate groups
    (indices into every entry, in file order), the group of each entry in one, the groups
    MEMORY.md has a member of, and the texts routine by their recurrence. It depends on
    the files' contents, the rules and the policy only, never on the clock, so a run may
    keep it for the next over the same files (list, dedupe and gc do: services.analysed)."""

    groups: tuple[DuplicateGroup, ...]
    membership: Mapping[int, int]  # entry index -> index into groups
    core_groups: frozenset[int]
    recurring: Mapping[str, int]
    sizes: tuple[int, ...]  # each file's number of entries, in order


def standing(
    files: Sequence[tuple[MemoryFile, Document]],
    policy: Policy,
    rules: Rules,
    mapper: Mapper = serial_map,
    facts: Mapping[str, TextFacts] | None = None,
    memo: Memo | None = None,
) -> Standing:
    """The duplicate groups and the routine learnt from recurrence (see `Standing`)."""
    if facts is None:
        facts = read_texts(files, rules, True, mapper)
    return standing_of(Reading(files, facts), policy, rules, mapper, memo)


@dataclass(slots=True)
class Reading:
    """The memory files and their texts' facts, handed to `standing_of`, which lets go of
    them once it has taken what it needs: a run that keeps no other hold of them (list
    after a change) has them freed before the duplicates are looked for."""

    files: Sequence[tuple[MemoryFile, Document]]
    facts: Mapping[str, TextFacts]


def standing_of(
    reading: Reading, policy: Policy, rules: Rules, mapper: Mapper = serial_map, memo: Memo | None = None
) -> Standing:
    """The Standing of what was read (see `standing`); `reading` is emptied."""
    recurring = learn_routine(reading.files, reading.facts, rules)
    picked, items = compared(reading.files, reading.facts, recurring)
    sizes = tuple(len(doc.entries) for _, doc in reading.files)
    found = duplicate_groups(items, policy.dedupe_threshold, mapper, _descriptions(reading), memo)
    core_groups = frozenset(
        n
        for n, group in enumerate(found)
        if any(items[i].in_core for i in (group.keep, *(d for d, _ in group.duplicates)))
    )
    groups = tuple(_lift(g, picked) for g in found)
    membership: dict[int, int] = {}
    for n, group in enumerate(groups):
        membership[group.keep] = n
        for i, _ in group.duplicates:
            membership[i] = n
    return Standing(groups, membership, core_groups, recurring, sizes)


def _descriptions(reading: Reading) -> dict[str, Description]:
    """Each text's description, the last thing taken from the reading, which is emptied:
    the duplicate finder holds the descriptions alone, and lets go of them once its keys
    are made."""
    described = {t: fact.description for t, fact in reading.facts.items()}
    reading.files, reading.facts = (), {}
    return described


def analyse(
    files: Sequence[tuple[MemoryFile, Document]],
    policy: Policy,
    rules: Rules,
    now_local: datetime,
    only_duplicates: bool = False,
    mapper: Mapper = serial_map,
    facts: Mapping[str, TextFacts] | None = None,
    memo: Memo | None = None,
    found: Standing | None = None,
) -> Analysis:
    """Assess every entry at `now_local` (naive, in the user's time zone); with
    `only_duplicates`, only those in a duplicate group are scored (what `dedupe` shows).
    `facts` are the texts already read (`read_texts` with a scan, or the same made while
    the files were parsed). `memo`: what the judgement worked out from each text, and each
    pair, last time (core.memo); the planner goes on with it. `found`: the Standing of these
    very files, when a run before worked it out (else it is worked out here)."""
    memo = memo or Memo()
    if facts is None:
        facts = read_texts(files, rules, not only_duplicates, mapper)
    if found is None:
        found = standing(files, policy, rules, mapper, facts, memo)
    entries = [(f, e) for f, doc in files for e in doc.entries]
    picked = sorted(found.membership) if only_duplicates else range(len(entries))
    position = {i: k for k, i in enumerate(picked)}
    assessor = Assessor(policy, rules, now_local, found)
    assessor.scans.update((t, (f.scoring, f.signals)) for t, f in facts.items() if f.signals is not None)
    assessed = tuple(assessor.assess(*entries[i], i) for i in picked)
    return Analysis(
        assessed,
        tuple(
            DuplicateGroup(
                position[g.keep],
                tuple((position[i], s) for i, s in g.duplicates),
                g.mentions,
                g.first_seen,
                g.last_seen,
            )
            for g in found.groups
        ),
        facts,
        memo,
        found,
    )


def assess_in_order(
    files: Iterable[tuple[int, MemoryFile, Document, Mapping[str, TextFacts]]],
    found: Standing,
    policy: Policy,
    rules: Rules,
    now_local: datetime,
) -> Iterator[Assessed]:
    """The entries of files `found` was worked out from assessed as `analyse` assesses
    them, one file at a time: each file with its place k among them (in order; any may be
    left out) and the facts of its texts (or none: they are read again). Only one file's
    entries and facts are held at a time."""
    assessor = Assessor(policy, rules, now_local, found)
    starts = list(accumulate(found.sizes, initial=0))
    for k, file, doc, facts in files:
        if len(doc.entries) != found.sizes[k]:
            raise ValueError(f"{file.rel} is not the file the duplicate groups were worked out from")
        assessor.scans = {t: (f.scoring, f.signals) for t, f in facts.items() if f.signals is not None}
        for i, entry in enumerate(doc.entries, starts[k]):
            yield assessor.assess(file, entry, i)


class Assessor:
    """Scores, tiers and decays entries one by one, reusing the scan of a text seen before."""

    def __init__(self, policy: Policy, rules: Rules, now_local: datetime, found: Standing) -> None:
        self.policy = policy
        self.rules = rules
        self.now_local = now_local
        self.today = now_local.date()
        self.scans: dict[str, tuple[str, dict[str, str]]] = {}
        self.found = found

    def scan(self, text: str) -> tuple[str, dict[str, str]]:
        t = scoring_text(text)
        return t, self.rules.scan(t)

    def assess(self, file: MemoryFile, entry: Entry, i: int) -> Assessed:
        """Entry i (its index among every entry of the files `found` was worked out from)."""
        policy = self.policy
        in_core = file.role is Role.CORE
        found = self.found
        g = found.membership.get(i)
        mentions: int = 0
        first: date | None = None
        last: date | None = None
        if g is not None:
            group = found.groups[g]
            mentions, first, last = group.mentions, group.first_seen, group.last_seen
        elif entry.date is not None and not in_core:
            mentions, first, last = 1, entry.date, entry.date
        scanned = self.scans.get(entry.text)
        if scanned is None:
            scanned = self.scans[entry.text] = self.scan(entry.text)
        scored = score_scanned(
            *scanned,
            self.rules,
            kind=entry.kind,
            importance=entry.importance,
            today=self.today,
            written=entry.date,
            mentions=mentions,
            repeats_core=g is not None and g in found.core_groups and not in_core,
            recurring=0 if in_core else found.recurring.get(entry.text, 0),
        )
        evergreen = file.evergreen or entry.pinned
        age = 0.0 if evergreen else age_days(entry.date, entry.time, self.now_local)
        decayed = decayed_score(scored.score, age, policy.half_life_days, evergreen)
        if in_core:
            tier = Tier.CORE
            stale = (
                last is not None and (self.today - last).days > policy.core_unused_days and not entry.pinned
            )
        else:
            tier = tier_of(scored, policy, mentions)
            stale = not entry.pinned and is_stale(decayed, policy.stale_below)
        return Assessed(entry, file.role, scored, tier, decayed, stale, evergreen, mentions, first, last, g)


def learn_routine(
    files: Sequence[tuple[MemoryFile, Document]], facts: Mapping[str, TextFacts], rules: Rules
) -> dict[str, int]:
    """Texts of the daily notes that are routine by their recurrence (judgement.routine),
    with the days their line shape was written on."""
    dated = [
        (e.text, f.date)
        for f, doc in files
        if f.role in _DAILY and f.date is not None
        for e in doc.entries
        if e.kind in DEDUPE_KINDS
    ]

    def normalised(text: str) -> str:
        known = facts.get(text)
        return known.description[0] if known is not None else normalise(text)

    def signals(text: str) -> Collection[str]:
        known = facts.get(text)
        if known is not None and known.signals is not None:
            return known.signals.keys()
        return rules.scan(scoring_text(text)).keys()

    return routine.learn(dated, normalised, signals)


_DAILY = frozenset({Role.DAILY, Role.DAILY_SLUG})


@dataclass(frozen=True, slots=True)
class Selection:
    """Which entries to show: file globs, a date range, a tier, only stale ones."""

    files: tuple[str, ...] = ()
    since: date | None = None
    until: date | None = None
    tier: Tier | None = None
    stale: bool = False

    def matches_file(self, rel: str) -> bool:
        return not self.files or any(
            fnmatch.fnmatch(rel, p) or rel == p.removeprefix("./") for p in self.files
        )

    def __call__(self, a: Assessed) -> bool:
        day = a.entry.date
        return (
            self.matches_file(a.entry.file)
            and (self.since is None or (day is not None and day >= self.since))
            and (self.until is None or (day is not None and day <= self.until))
            and (self.tier is None or a.tier is self.tier)
            and (not self.stale or a.stale)
        )
