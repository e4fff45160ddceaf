"""Which older facts each newer entry of a workspace replaces (SPEC §7, issue 17).

judgement.supersede says whether one newer entry replaces one older one. This module
asks it of a whole workspace, in the order the entries were written, and decides:

- which entries take part: a newer entry that may say something changed (a cue, a
  correction, a state or a value; in MEMORY.md, only a change said by a cue: there, only
  a cue tells which entry is newer), and the older facts it may retire (a list item, a
  paragraph or a quote of a note or of MEMORY.md that states one fact, not a report);
- which pairs are judged: only those judgement.candidates finds by key;
- what holds across pairs: an older fact is replaced once, by the first newer entry that
  replaces it; of several values said before, a value said again replaces the one said
  last (which replaced the rest); a correction retires the entry it refers to; a
  MEMORY.md entry a note repeats on or after the newer entry's day is no older news; an
  entry that would retire more than `AT_MOST` facts is a misreading and retires none.

The planner (core.lifecycle) gives every entry as plain data (`Fact`) and turns the
answer (`Found`) into actions. Each distinct text is read once, however often it recurs.

What one newer entry replaces rests on the entries written before it alone (and on two
things outside them: whether a note repeated a MEMORY.md entry since, and which entries
are copies of one fact). So a search can go on from where the workspace changed
(`Resume`, kept in the memo): last run's answers for the entries of the files before the
first changed one hold as they were, once those two things are checked to be as they
were, and only the entries from that file on are read and searched again. A night's new
note is the last file: only its entries are searched.
"""

from __future__ import annotations

import hashlib
import itertools
import re
import sys
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence, Set
from dataclasses import dataclass
from datetime import date

from memcli.core.judgement.candidates import Older, Query, first_keys, keys_of, lookup, plain_lookup
from memcli.core.judgement.changes import Reading, read_changes
from memcli.core.judgement.profiles import Profile, corrects, may_change, profile, template_of
from memcli.core.judgement.supersede import AT_MOST, CUELESS, Verdict, judge, judge_correction
from memcli.core.memo import Memo
from memcli.core.similarity import Mapper
from memcli.core.subjects import light_words

RESUME_MOST = 5_000  # entries to search again past which a search starts over (with the memo)
SAID_AGAIN_TRIES = 4  # older entries of other days an entry without a change cue is judged against

FACT_KINDS = frozenset({"bullet", "paragraph", "quote"})
FACT_MAX_CHARS = 400  # longer entries are reports, not facts one newer line can replace
SERIES_MIN = 12  # a file's lines of one shape (numbers aside) that make a log series
READ_AHEAD_FROM = 2_000  # texts new to the memo from which a search reads them on every core first
# newer entries from which a search finds and judges their pairs ahead (no fewer than
# READ_AHEAD_FROM: the planner's mapper works in this process below that)
JUDGED_AHEAD_FROM = 2_000
_NUMBERS = re.compile(r"\d+")
_HAS_ITEMS = re.compile(r"\n[ \t]+(?:[-+*]|\d{1,9}[.)])[ \t]")  # a list entry with items of its own
CORE, NOTE = "core", "note"  # where an entry is: MEMORY.md, a daily note (else it takes no part)


@dataclass(frozen=True, slots=True)
class Fact:
    """One entry, as the search for replacements sees it."""

    text: str  # as written
    kind: str  # bullet, paragraph, quote, task, …
    where: str  # CORE, NOTE, or anything else (an entry that takes no part)
    day: date | None  # the day of its note (None in MEMORY.md)
    file: str
    first_line: int
    last_line: int
    group: int | None  # its duplicate group: copies of one fact count as one fact


@dataclass(frozen=True)
class Found:
    """What the newer entries replace."""

    replaced: tuple[tuple[int, tuple[tuple[int, Verdict], ...]], ...]  # newer, older facts: in time order
    superseded: frozenset[int]  # every older fact replaced
    held_back: frozenset[int]  # newer entries that must not go up: they replace a MEMORY.md
    # entry a note repeats since
    misread: tuple[tuple[int, int], ...]  # newer entries that would retire more than AT_MOST facts (how many)


Step = tuple[int, tuple[tuple[int, Verdict], ...], bool]  # a newer entry, the older facts it was
# found to replace, and whether that many was a misreading


@dataclass(frozen=True)
class Resume:
    """Where a search can go on from: what it found, by the rank of each entry that takes
    part (MEMORY.md's and the notes') in the order they were written."""

    files: tuple[tuple[str, int, bytes], ...]  # file by file in that order: name, entries, digest
    steps: tuple[Step, ...]  # the newer entries that were found to replace something
    asked: tuple[tuple[int, int, bool], ...]  # (o, n, answer) of each `repeated(o, n)` asked
    index: dict[str, bytes]  # key -> the ranks of the retirable entries holding it (array "I")


def find_replacements(
    facts: Sequence[Fact],
    read: Callable[[str], str],
    repeated: Callable[[int, int], bool],
    memo: Memo | None = None,
    mapper: Mapper | None = None,
) -> Found:
    """Which older facts each newer entry replaces. `read(text)`: the text as the judgement
    reads it (core.scoring.scoring_text); `repeated(o, n)`: whether a note repeats MEMORY.md's
    entry o on or after the day of entry n (then n does not replace it). `memo`: what was
    read from each text, and judged of each pair, last time, and where last run's search
    can go on from (core.memo). `mapper`: reads the texts new to the memo on every core
    before a whole search, when there are many (`_Search.read_ahead`), and judges the
    pairs it will ask about (`_Search.judge_ahead`)."""
    memo = memo or Memo()
    resumes = memo.table("replacements.resume")
    search = _Search(facts, read, repeated)
    last = resumes.peek(_LAST)
    found = search.go_on(last) if isinstance(last, Resume) else None
    if found is None:
        search.use(memo)
        if mapper is not None:
            search.read_ahead(mapper)
        search.mapper = mapper
        found = search.run()
    if search.resume is not None and search.resume is not last:
        resumes.put(_LAST, search.resume)
    memo.finish("replacements.resume", *(f"replacements.{n}" for n in _TABLES))
    return found


_TABLES = ("changes", "template", "words", "keys", "profile", "queries", "judged")
_LAST = "last"


Read = tuple[tuple[Reading, ...], frozenset[str], list[Query] | None]


def read_for_search(item: str) -> Read | None:
    """What the search reads from one text, all at once (for a worker process): the changes
    it states, the keys it is found by, and, when it may say that something changed, how
    it is looked up. `item`: the text, after "C" for an entry of MEMORY.md (where only a cue
    says which entry is newer), else "N". None when reading it fails: the search reads it
    again if it asks for it, and fails there as it would have (a text it never asks for
    must not stop it)."""
    try:
        return _read_for_search(item)
    except Exception:  # (see above)
        return None


def _read_for_search(item: str) -> Read:
    core, text = item[0] == "C", item[1:]
    changes = read_changes(text)
    template = template_of(text)
    words = light_words(text)
    keys = keys_of(text, template, words)
    asks = bool(changes) if core else may_change(text)
    return changes, keys, queries_of(text, core, changes, keys, template, words) if asks else None


def queries_of(
    text: str,
    core: bool,
    changes: tuple[Reading, ...],
    keys: frozenset[str],
    template: str | None,
    words: Set[str],
) -> list[Query]:
    """How a text is looked up: by the changes it states, and by its keys (in MEMORY.md,
    only a cue says which entry is newer). One formula for the search and its read-ahead."""
    return lookup(changes) + plain_lookup(text, keys, template, cues_only=core, light=words)


def _ranks_by_key(
    entries: Sequence[int], start: int, keys: dict[int, frozenset[str]]
) -> dict[str, array[int]]:
    """The ranks of these entries (the first's is `start`) by each key they hold."""
    index: dict[str, array[int]] = {}
    for r, i in enumerate(entries, start):
        for key in keys.get(i, ()):
            posting = index.get(key)
            if posting is None:
                posting = index[key] = array("I")
            posting.append(r)
    return index


class _Search:
    def __init__(
        self,
        facts: Sequence[Fact],
        read: Callable[[str], str],
        repeated: Callable[[int, int], bool],
    ) -> None:
        self.facts = facts
        self.repeated = repeated
        # each text as the judgement reads it (only facts take part: the others are never read)
        self.scanned = [read(f.text) if f.kind in FACT_KINDS else "" for f in facts]
        self.written = [(f.day or date.min, f.file, f.first_line) for f in facts]
        self.when = self.written.__getitem__  # the order entries were written in: MEMORY.md's first
        # the entries that take part, in that order (a rank is a place in it)
        self.order = sorted((i for i, f in enumerate(facts) if f.where in (CORE, NOTE)), key=self.when)
        self.held_back: set[int] = set()
        self.taken: set[int] = set()  # older facts replaced so far
        self.out: list[tuple[int, tuple[tuple[int, Verdict], ...]]] = []
        self.misread: list[tuple[int, int]] = []
        self.steps: list[Step] = []  # as in Resume, by index
        self.asked: list[tuple[int, int, bool]] = []
        self.resume: Resume | None = None  # where the next search can go on from
        self.in_series: frozenset[int] = frozenset()
        self.ready: dict[str, tuple[tuple[Reading, ...], frozenset[str]]] = {}  # read ahead: changes, keys
        self._asks: dict[tuple[str, bool], list[Query]] = {}  # and how it looks a text up
        self.mapper: Mapper | None = None  # judges pairs ahead on a whole search (`judge_ahead`)
        self._before: dict[int, list[int]] = {}  # each newer entry's candidates, found once
        self._judged_ahead: dict[tuple[int, int], Verdict | None] = {}  # (o, n): judged ahead
        self._profiled_ahead: dict[str, Profile] = {}  # what the pairs judged ahead read
        self._ahead: tuple[dict[int, list[Query]], Older] | None = None  # while judging ahead
        self.use(Memo())

    def use(self, memo: Memo) -> None:
        """Read each distinct text (scanned) once, or take what was read last time."""
        self._changes = memo.table("replacements.changes", stored=False)
        self._templates = memo.table("replacements.template", stored=False)
        self._words = memo.table("replacements.words", stored=False)
        self._keys = memo.table("replacements.keys")
        self._profiles = memo.table("replacements.profile")
        self._queries = memo.table("replacements.queries")
        self._judged = memo.table("replacements.judged")

    def log_series(self, entries: Sequence[int]) -> frozenset[int]:
        """The entries of a log series: a file's lines of one shape but for their numbers
        ("- deployed build 4121", "- build 4122", … a thousand a day). One of them says no
        value again that another held: each is its own event. (`entries`: whole files.)"""
        by_shape: dict[tuple[str, str], list[int]] = {}
        for i in entries:
            if self.scanned[i]:
                by_shape.setdefault((self.facts[i].file, _NUMBERS.sub("#", self.scanned[i])), []).append(i)
        return frozenset(i for series in by_shape.values() if len(series) >= SERIES_MIN for i in series)

    def files(self) -> tuple[tuple[str, int, bytes], ...] | None:
        """The files of the entries that take part, in the order written: each one's name, how
        many entries it has and a digest of them as the search reads them (its duplicate
        groups aside). None when a file's entries are not written one after the other."""
        out = []
        for name, members in itertools.groupby(self.order, key=lambda i: self.facts[i].file):
            digest = hashlib.blake2b(digest_size=16)
            count = 0
            for i in members:
                f = self.facts[i]
                digest.update(
                    f"{f.kind}\0{f.where}\0{f.day}\0{f.first_line}\0{f.last_line}\0{len(f.text)}\0{f.text}".encode()
                )
                count += 1
            out.append((name, count, digest.digest()))
        if len({name for name, _, _ in out}) < len(out):
            return None
        return tuple(out)

    # --- what is read from a text ----------------------------------------------------

    def read_ahead(self, mapper: Mapper) -> None:
        """Read the texts of the facts that take part on every core (`mapper`), on a run
        whose memo holds no keys, when READ_AHEAD_FROM of them at least may be retired (a
        first run: a tenth of a cold run went to them, on one core). The tables are asked
        as they would be without it, in the same order; only the answers they work out come
        from what was read here (the same function's, so the search, and what the memo
        keeps, are the same)."""
        if self._keys.loaded:
            return  # (a run given last run's keys reads few texts: it does not even look)
        items: dict[str, None] = {}
        new = 0  # (of the facts that may be retired: the memo keeps the keys of all of them)
        for i in self.order:
            text, fact = self.scanned[i], self.facts[i]
            if text and len(fact.text) <= FACT_MAX_CHARS and not self._keys.has(text):
                items["C" + text if fact.where == CORE else "N" + text] = None
                new += self.retirable(i)
        if new < READ_AHEAD_FROM:
            return
        intern = sys.intern  # (keys come back as copies: one string for each, as when read here)
        for item, read in zip(items, mapper(read_for_search, list(items)), strict=True):
            if read is None:
                continue
            changes, keys, queries = read
            text = item[1:]  # (a text of MEMORY.md and of a note reads the same)
            self.ready.setdefault(text, (changes, frozenset(map(intern, keys))))
            if queries is not None:  # (but is looked up its own way in each)
                self._asks[(text, item[0] == "C")] = queries

    def changes(self, i: int) -> tuple[Reading, ...]:
        """The changes entry i states by a cue (see `read_changes`)."""
        text = self.scanned[i]
        found: tuple[Reading, ...] = self._changes.get(text, self._read_changes, text)
        return found

    def _read_changes(self, text: str) -> tuple[Reading, ...]:
        ready = self.ready.get(text)
        return ready[0] if ready is not None else read_changes(text)

    def template(self, text: str) -> str | None:
        found: str | None = self._templates.get(text, lambda: template_of(text))
        return found

    def words(self, text: str) -> Set[str]:
        """The text's `light_words` (never changed: the keys and queries copy from it)."""
        found: Set[str] = self._words.get(text, lambda: light_words(text))
        return found

    def keys(self, i: int) -> frozenset[str]:
        """What entry i is found by (see `keys_of`)."""
        text = self.scanned[i]
        ready = self.ready.get(text)
        found: frozenset[str] = self._keys.get(
            text,
            lambda: ready[1] if ready is not None else keys_of(text, self.template(text), self.words(text)),
        )
        return found

    def profile(self, i: int) -> Profile:
        """What the supersede judgement reads from entry i."""
        text = self.scanned[i]
        found: Profile = self._profiles.get(text, lambda: profile(text, self.changes(i)))
        return found

    def lookup(self, n: int) -> list[Query]:
        """How entry n is looked up: by the changes it states (`lookup`), and by its keys
        (`plain_lookup`); in MEMORY.md, only a cue says which entry is newer."""
        core = self.facts[n].where == CORE
        text = self.scanned[n]
        found: list[Query] = self._queries.get((text, core), self._look_up, n, text, core)
        return found

    def _look_up(self, n: int, text: str, core: bool) -> list[Query]:
        changes, keys = self.changes(n), self.keys(n)  # (asked either way: the memo keeps the keys)
        ready = self._asks.get((text, core))
        if ready is not None:
            return ready
        return queries_of(text, core, changes, keys, self.template(text), self.words(text))

    # --- who takes part ----------------------------------------------------------------

    def may_replace(self, i: int) -> bool:
        """A fact of a note (or of MEMORY.md, saying what changed) that may say something changed."""
        f = self.facts[i]
        if f.kind not in FACT_KINDS or len(f.text) > FACT_MAX_CHARS:
            return False
        if f.where == CORE:
            return bool(self.changes(i))
        return f.where == NOTE and may_change(self.scanned[i])

    def says_a_change(self, i: int) -> bool:
        """An entry that may replace an older one: a line of a log series only by a cue."""
        return self.may_replace(i) and (i not in self.in_series or bool(self.changes(i)))

    def retirable(self, i: int) -> bool:
        """Whether a newer entry may replace entry i: a fact of MEMORY.md or of a note (an
        open note's stays where it is, but goes up no more). A list with items of its own
        is no one fact."""
        f = self.facts[i]
        return (
            f.where in (CORE, NOTE)
            and f.kind in FACT_KINDS
            and len(f.text) <= FACT_MAX_CHARS
            and not _HAS_ITEMS.search(f.text)
        )

    # --- the search ------------------------------------------------------------------------

    def run(self) -> Found:
        """Every newer entry, from the first."""
        self.held_back, self.taken, self.out, self.misread = set(), set(), [], []
        self.steps, self.asked = [], []
        order = self.order
        self.in_series = self.log_series(order)
        newer = [i for i in order if self.says_a_change(i)]
        queries = {n: self.lookup(n) for n in newer}
        self._asks = {}  # (read ahead: the memo holds them now)
        wanted = frozenset(first_keys(q for found in queries.values() for q in found))
        keys: dict[int, frozenset[str]] = {i: self.keys(i) for i in order if self.retirable(i)}
        older = Older(keys, keys.__getitem__, self.when, self.evergreen, only=wanted)
        self.judge_ahead(newer, queries, older)
        self.search(newer, queries, older)
        files = self.files()
        if files is not None:
            index = _ranks_by_key(order, 0, keys)
            self.resume = self.resume_at(files, {k: v.tobytes() for k, v in index.items()})
        return self.found()

    def go_on(self, last: Resume) -> Found | None:
        """The search from the first file that changed since `last`, given what `last` found
        before it; None when it cannot go on: no file before it is the same, too many entries
        come after it, or what the answers before it rest on outside them changed (a note
        repeated a MEMORY.md entry since, or the duplicate groups made a misreading of an
        entry's finds, or stopped making one)."""
        files = self.files()
        if files is None:
            return None
        start = 0
        for mine, theirs in zip(files, last.files, strict=False):
            if mine != theirs:
                break
            start += mine[1]
        order = self.order
        if start == 0 or len(order) - start > RESUME_MOST:
            return None
        asked = [(order[o], order[n], said) for o, n, said in last.asked if n < start]
        if any(self.repeated(o, n) != said for o, n, said in asked):
            return None
        for n, found, misread in last.steps:
            if n >= start:
                continue
            step = (order[n], tuple((order[o], v) for o, v in found), misread)
            if self.settle(*step[:2]) != misread:
                return None
            self.steps.append(step)
        self.asked = asked
        self.held_back.update(n for _, n, said in asked if said)
        # the entries from that file on, looked up among all those before them
        after = order[start:]
        self.in_series = self.log_series(after)
        newer = [i for i in after if self.says_a_change(i)]
        queries = {n: self.lookup(n) for n in newer}
        wanted = first_keys(q for found in queries.values() for q in found)
        fresh = {i: self.keys(i) for i in after if self.retirable(i)}
        about: dict[str, list[int]] = {}
        for key in wanted:
            ranks = last.index.get(key)
            if ranks is not None:
                held = array("I", ranks)
                about[key] = [order[r] for r in held[: bisect_left(held, start)]]
        for i, held_keys in fresh.items():
            for key in held_keys & wanted:
                about.setdefault(key, []).append(i)
        older = Older.filed(about, self.keys, self.when, self.evergreen)
        self.search(newer, queries, older)
        if not after and len(files) == len(last.files):
            self.resume = last  # nothing changed: last run's answers are this run's
            return self.found()
        # where the next search can go on from: the index of the entries before, and the new
        index = dict(last.index)
        if start < sum(count for _, count, _ in last.files):
            for key, stored in last.index.items():
                held = array("I", stored)
                cut = bisect_left(held, start)
                if cut < len(held):
                    index[key] = held[:cut].tobytes()
        for key, more in _ranks_by_key(after, start, fresh).items():
            index[key] = index.get(key, b"") + more.tobytes()
        self.resume = self.resume_at(files, {k: v for k, v in index.items() if v})
        return self.found()

    def resume_at(self, files: tuple[tuple[str, int, bytes], ...], index: dict[str, bytes]) -> Resume:
        rank = {i: r for r, i in enumerate(self.order)}
        return Resume(
            files,
            tuple(
                (rank[n], tuple((rank[o], v) for o, v in found), misread) for n, found, misread in self.steps
            ),
            tuple((rank[o], rank[n], said) for o, n, said in self.asked),
            index,
        )

    def found(self) -> Found:
        return Found(tuple(self.out), frozenset(self.taken), frozenset(self.held_back), tuple(self.misread))

    def evergreen(self, i: int) -> bool:
        return self.facts[i].where == CORE

    def search(self, newer: Sequence[int], queries: dict[int, list[Query]], older: Older) -> None:
        """What each newer entry replaces, in time order, among the older facts `older` holds."""
        taken = self.taken
        for n in newer:
            mine = self.scanned[n]
            before = self._before.pop(n, None)
            if before is None:
                before = self.before(n, queries[n], older)
            found = self.corrected(n, before) if corrects(mine) else []
            if not found and not self.profile(n).readings:
                found = self.said_again(n, before, taken)
            elif not found:
                found = [(o, v) for o in before if o not in taken and (v := self.judged(o, n))]
                cueless = [(o, v) for o, v in found if v.family in CUELESS]
                if len(cueless) > 1:  # a value said again replaces the one said last, which replaced the rest
                    found = [(o, v) for o, v in found if v.family not in CUELESS] + cueless[-1:]
            if found:
                step = (n, tuple(found))
                self.steps.append((*step, self.settle(*step)))
        self._judged_ahead.clear()  # (what was judged ahead and never asked about)

    def before(self, n: int, queries: list[Query], older: Older) -> list[int]:
        """The older entries newer entry n is judged against: its candidates (those
        `older` finds by its queries), in time order, but copies of its own text."""
        mine = self.scanned[n]
        return [o for o in older.find(n, queries) if self.scanned[o] != mine]

    def judge_ahead(self, newer: Sequence[int], queries: dict[int, list[Query]], older: Older) -> None:
        """On a whole search whose memo holds no verdict (a first run, or one after memcli
        or the rules changed), with JUDGED_AHEAD_FROM newer entries at least: each one's
        candidates found, and the pairs judged, on every core (`mapper`) first. The search
        then asks the memo of each pair and of each profile as it would without it, in the
        same order; only the verdicts it works out come from the workers (the same
        function's, so the search, and what the memo keeps, are the same). Which pairs it
        judges rests on what it took before, so the workers judge all it may
        (`pairs_ahead`)."""
        if self.mapper is None or self._judged.loaded or len(newer) < JUDGED_AHEAD_FROM:
            return
        self._ahead = (queries, older)
        try:
            for n, ahead in zip(newer, self.mapper(self._judge_ahead, [str(n) for n in newer]), strict=True):
                if ahead is None:
                    continue  # (the search finds its candidates, and fails there as it would have)
                before, judged = ahead
                self._before[n] = list(before)
                for o, verdict in judged:
                    self._judged_ahead[(o, n)] = verdict
        finally:
            self._ahead = None
            self._profiled_ahead = {}  # (what the pairs judged read, when the mapper ran here)

    def _judge_ahead(
        self, item: str
    ) -> tuple[tuple[int, ...], tuple[tuple[int, Verdict | None], ...]] | None:
        """What a worker finds and judges of one newer entry (see `judge_ahead`): its
        candidates, and the verdict on each pair it may be asked about; None when finding
        them fails. A pair it fails to judge is left out: the search judges it again if it
        asks about it, and fails there as it would have (a pair it never asks about must
        not stop it)."""
        assert self._ahead is not None
        queries, older = self._ahead
        n = int(item)
        try:
            before = self.before(n, queries[n], older)
        except Exception:  # (see above)
            return None
        judged: list[tuple[int, Verdict | None]] = []
        for o in self.pairs_ahead(n, before):
            try:
                judged.append((o, self.judge_pair(o, n, self._profile_ahead)))
            except Exception:  # (see above)
                continue
        return tuple(before), tuple(judged)

    def pairs_ahead(self, n: int, before: list[int]) -> list[int]:
        """Of the older entries found for newer entry n (`before`), those it may be judged
        against, whatever was taken before it: every one of an entry that states a change,
        and of one that does not, the newest SAID_AGAIN_TRIES of other days (see
        `said_again`). None of a correction's (judged its own way first, and rarely more)."""
        if not before or corrects(self.scanned[n]):
            return []
        try:
            if self._profile_ahead(n).readings:
                return before
        except Exception:  # (the search reads it again, and fails there as it would have)
            return []
        return list(itertools.islice(self.other_days(n, before), SAID_AGAIN_TRIES))

    def other_days(self, n: int, before: Sequence[int]) -> Iterator[int]:
        """Of the older entries found for entry n, those of other days than n's, the newest
        first: what `said_again` walks (a value said twice in one day is no change)."""
        day = self.facts[n].day
        return (o for o in reversed(before) if day is None or self.facts[o].day != day)

    def _profile_ahead(self, i: int) -> Profile:
        """Entry i's profile, for a pair judged ahead: read as `profile` reads it, but
        asking no table of the memo (a mapper may run in this process, when it is given few
        items or has one core: the memo must be asked as it would be without it)."""
        text = self.scanned[i]
        found = self._profiled_ahead.get(text)
        if found is None:
            found = self._profiled_ahead[text] = profile(text, self._read_changes(text))
        return found

    def judge_pair(
        self, o: int, n: int, profile_of: Callable[[int], Profile] | None = None
    ) -> Verdict | None:
        """judgement.supersede's verdict on the pair, as the memo keeps it (see `judged`);
        `profile_of`: how each entry's profile is had (`profile`)."""
        profile_of = profile_of or self.profile
        same_day, both_core = self.how(o, n)
        return judge(profile_of(o), profile_of(n), same_day=same_day, evergreen=both_core)

    def how(self, o: int, n: int) -> tuple[bool, bool]:
        """How the pair is judged (and kept in the memo): whether both are notes of one day
        (a value said twice that day is no change), and whether both are in MEMORY.md."""
        old, new = self.facts[o], self.facts[n]
        return old.day is not None and old.day == new.day, old.where == CORE and new.where == CORE

    def settle(self, n: int, found: tuple[tuple[int, Verdict], ...]) -> bool:
        """What entry n replaces, found: taken, or a misreading when that is more than AT_MOST
        facts (copies of one fact count once). Whether it was a misreading."""
        facts = self.facts
        replaced = {facts[o].group if facts[o].group is not None else -1 - o for o, _ in found}
        if len(replaced) > AT_MOST:
            self.misread.append((n, len(replaced)))
            return True
        self.taken.update(o for o, _ in found)
        self.out.append((n, found))
        return False

    def said_again(self, n: int, before: list[int], taken: set[int]) -> list[tuple[int, Verdict]]:
        """What an entry that states no change by a cue replaces: only a value said again, a
        state that ended or a value turned round, and only the one said last (which replaced
        the rest). So the search goes from the newest older entry back, and gives up after
        SAID_AGAIN_TRIES entries of other days (a day's log of a thousand alike lines must
        not cost a thousand judgements per line)."""
        tries = 0
        for o in self.other_days(n, before):
            if o in taken:
                continue
            verdict = self.judged(o, n)
            if verdict is not None:
                return [(o, verdict)]
            tries += 1
            if tries >= SAID_AGAIN_TRIES:
                break
        return []

    def judged(self, o: int, n: int) -> Verdict | None:
        """Whether entry n replaces the older entry o. A MEMORY.md entry a note repeats on
        or after n's day is not older news: n does not replace it, nor goes up beside it."""
        verdict: Verdict | None = self._judged.get(
            (self.scanned[o], self.scanned[n], *self.how(o, n)), self._judge, o, n
        )
        if verdict is not None and self.facts[o].where == CORE:
            said = self.repeated(o, n)
            self.asked.append((o, n, said))
            if said:
                self.held_back.add(n)
                return None
        return verdict

    def _judge(self, o: int, n: int) -> Verdict | None:
        """The pair's verdict: judged ahead, or now."""
        if (o, n) not in self._judged_ahead:
            return self.judge_pair(o, n)
        self.profile(o), self.profile(n)  # (asked either way: the memo keeps the profiles)
        return self._judged_ahead.pop((o, n))

    def corrected(self, n: int, before: list[int]) -> list[tuple[int, Verdict]]:
        """The entry a correction refers to: the most recent earlier one (of `before`, those
        it was found beside) sharing most with it, or the entry right before it in its file
        when it says no more than "that's wrong"."""
        new = self.facts[n]
        mine = self.profile(n)
        best: tuple[int, tuple[object, ...]] | None = None
        for o in before:
            shared = judge_correction(self.profile(o), mine)
            rank = (shared, self.when(o))
            if shared and (best is None or rank > best[1]):
                best = (o, rank)
        if best is not None:
            return [(best[0], Verdict("correction", "", ""))]
        if len(mine.body.content) < 2:
            above = [
                o for o, f in enumerate(self.facts) if f.file == new.file and f.last_line < new.first_line
            ]
            if above:
                return [(above[-1], Verdict("correction", "", ""))]
        return []
