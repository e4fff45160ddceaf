"""Finding the older entries a newer one may replace, near-linearly (SPEC §7, §6's scale).

Comparing every entry with every older one is out of the question on a decade of notes.
Every entry gets cheap keys (`keys_of`: its words, Chinese pairs, kinds, template and
state); a newer entry asks a few queries (`lookup`, `plain_lookup`) that an older entry it
replaces must answer (hold a share of some keys), and `Older` finds the candidates by the
rarest keys of each query, the most recent `PER_KEY` holding each. Only those are judged
(judgement.supersede). A change is looked up by what it gives up and by what changed
(without a head naming only the attribute: "backup window" by "backup"), a move of a
person by who moved ("They moved to Porto"), a new path by its last parts, and a state
said to be back by any word of what was down.
"""

from __future__ import annotations

import itertools
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Sequence, Set
from datetime import date
from typing import Any

from memcli.core.judgement.changes import Reading, read_changes
from memcli.core.judgement.cues import DIGIT, ID_CHARS, PARENS, SHORT
from memcli.core.judgement.kinds import FUNCTION, SINGLE, is_attribute
from memcli.core.judgement.profiles import (
    RECOVERED,
    Profile,
    corrects,
    has_state,
    may_change,
    profile,
    state_core,
    state_of,
    template_of,
)
from memcli.core.judgement.same_subject import PRONOUN, subject_core
from memcli.core.judgement.supersede import AT_MOST, judge, judge_correction, may_oppose, path_tail
from memcli.core.subjects import VALUE, canonical, keys_for, light_words, value_kind

PER_KEY = 40  # older entries a newer one is checked against, per key it is looked up by
RAREST_KEYS = 3  # keys of each query used: its rarest


def keys_of(scanned: str, template: str | None, words: Set[str] | None = None) -> frozenset[str]:
    """What an older entry is found by (cheaply, for every entry): its words, compounds and
    their parts, its Chinese pairs, the kinds of things it names, and its template
    ("~连续 # 零回滚率", see `template_of`). Every key `lookup` gives is among these when the
    entry holds it. `words`: its `light_words`, when known."""
    keys = light_words(scanned) if words is None else set(words)
    if DIGIT.search(scanned):  # a value holds its attribute: "02:00" a time
        keys.update(map(_kind_key, VALUE.findall(scanned)))
    state = state_of(scanned) if has_state(scanned) else None
    if state is not None:  # found in its state by what is in that state (see `state_core`)
        keys.update(f"!{state}{k}" for k in light_words(state_core(scanned)) if k not in FUNCTION)
        keys.add(f"!{state}")
    if template is not None:
        keys.add(TEMPLATE + template)
    return frozenset(keys)


def _kind_key(value: str) -> str:
    """The key of a value's attribute ("#time" for "02:00"), remembered: values recur."""
    found = _KIND_KEYS.get(value)
    if found is None:
        found = f"#{value_kind(canonical(value))}"
        if len(_KIND_KEYS) < 100_000:
            _KIND_KEYS[value] = found
    return found


_KIND_KEYS: dict[str, str] = {}


Need = tuple[frozenset[str], float]  # keys, and the share of them an older entry must hold
# (a negative share: the share of the keys of its state the older entry must share)
Query = tuple[Need, ...]  # found by the rarest keys of its first need, kept when it meets all
STATES = {"!up": "!down", "!down": "!up"}  # the state an older entry must be in, for each state
TEMPLATE = "~"  # the key of a template


def lookup(changes: tuple[Reading, ...]) -> list[Query]:
    """How to find the older entries a newer one may replace by its cues, by the keys of
    `keys_of`: queries, each a few needs an older entry must meet (a share of some keys it
    holds). For each change, what it gives up and what changed, and for a switch naming
    no subject, the kind of its new value."""
    queries: list[Query] = []
    for r in changes:
        needs: list[Need] = [(keys_for(r.ids), 1.0)]  # its identifiers, first: the rarest keys of all
        if not r.given_up.blank:
            needs.append((keys_for(r.given_up.names) | r.given_up.bigrams, 0.6))
        subject = (subject_core(r) or r.subject) if r.family == "switch" else r.subject  # "backup (window)"
        names = keys_for(n for n in subject.names if not is_attribute(n))
        names |= {SINGLE[n] for n in subject.names if is_attribute(n)}  # "schedule": "02:00" holds it
        if names:
            needs.append((names, 0.75))
        if subject.bigrams:
            needs.append((subject.bigrams, 0.3))
        if r.family == "switch" and "#path" in r.value.words:  # a path moved: found by its last parts
            tails = {part for n in r.value.names if "/" in n for part in path_tail(n)}
            queries.append(((frozenset(k for t in tails for k in light_words(t)), 1.0),))
        if r.subject.empty and r.family == "switch":
            needs.append((r.value.kinds, 0.01))
            if PRONOUN.fullmatch(r.topic.strip()):  # "They moved to Porto": what they said of themselves
                needs.append((frozenset(light_words(r.topic.strip())), 1.0))
        queries.append(tuple(n for n in needs if n[0]))
    return [q for q in queries if q]


def plain_lookup(
    scanned: str,
    keys: frozenset[str],
    template: str | None,
    cues_only: bool = False,
    light: Set[str] | None = None,
) -> list[Query]:
    """How to find the older entries a newer one may replace without a change it states,
    from its keys alone: for a correction, those sharing a word with it; those of the same
    template; for a short entry with a value, those holding most of its words; for a
    state, those in the other state saying little it does not. (`cues_only`: only the
    correction's; `light`: the text's `light_words`, when known.)"""
    queries: list[Query] = []
    if corrects(scanned):
        light = light_words(scanned) if light is None else light
        queries.append(((frozenset(k for k in light if k not in FUNCTION), 0.01),))
    if cues_only:
        return queries
    if template is not None:
        queries.append(((frozenset({TEMPLATE + template}), 1.0),))
    if may_oppose(scanned):
        light = light_words(scanned) if light is None else light
        queries.append(((frozenset(k for k in light if k not in FUNCTION), 0.15),))
    if len(scanned) <= SHORT and DIGIT.search(scanned):
        body = PARENS.sub(" ", scanned)
        if body != scanned or light is None:
            light = light_words(body)
        words = frozenset(w for w in light if w not in FUNCTION)
        ids = frozenset(k for k in words if ID_CHARS.search(k) and k[0].isascii())
        queries.append(((ids, 1.0), (words, 0.75)) if ids else ((words, 0.75),))
    for state, other in STATES.items():
        if state in keys:
            # (a state said to be back names at least one word of what was down: see judge_state)
            share = -0.01 if state == "!up" and RECOVERED.search(scanned) else -1.0
            queries.append(((frozenset(other + k for k in keys if k[0] not in "!~="), share),))
    return queries


class Older:
    """Older entries by key, to find those a newer entry may replace. `evergreen` entries
    (MEMORY.md's) have no date: they are older than any note, and the only candidates of
    a newer evergreen entry. With `only`, entries are filed under those keys alone: the
    keys the queries to come look up first (see `first_keys`)."""

    def __init__(
        self,
        entries: Iterable[int],
        keys: Callable[[int], frozenset[str]],
        when: Callable[[int], Any],
        evergreen: Callable[[int], bool],
        only: frozenset[str] | None = None,
    ) -> None:
        self.keys = keys
        self.when = when
        self.evergreen = evergreen
        self.about: dict[str, list[int]] = defaultdict(list)
        about = self.about
        for o in sorted(entries, key=when):
            for key in keys(o) if only is None else keys(o) & only:
                about[key].append(o)
        self._state_size: dict[int, int] = {}

    @classmethod
    def filed(
        cls,
        about: dict[str, list[int]],
        keys: Callable[[int], frozenset[str]],
        when: Callable[[int], Any],
        evergreen: Callable[[int], bool],
    ) -> Older:
        """Older entries already filed by key, each key's in time order."""
        older = cls((), keys, when, evergreen)
        older.about.update(about)
        return older

    def state_size(self, o: int) -> int:
        """How many keys say what the state of entry o is about (see `keys_of`)."""
        found = self._state_size.get(o)
        if found is None:
            found = self._state_size[o] = sum(k[0] == "!" for k in self.keys(o)) - 1
        return found

    def find(self, n: int, queries: Sequence[Query]) -> list[int]:
        """The older entries that meet one of entry n's queries, in time order."""
        mine = self.when(n)
        evergreen = self.evergreen(n)
        about, when = self.about, self.when
        found: set[int] = set()
        for first, *rest in queries:
            keys, share = first
            # the keys with entries before n, the rarest first (then by key: the same every run)
            postings = sorted(
                (end, k, posting)
                for k in keys
                if (posting := about.get(k))
                and (end := len(posting) if evergreen else bisect_left(posting, mine, key=when))
            )
            candidates: Counter[int] = Counter()
            for end, _, posting in postings if share < 0 else postings[:RAREST_KEYS]:
                if evergreen:  # (MEMORY.md's come first: they are older than any note)
                    candidates.update(itertools.takewhile(self.evergreen, posting[:PER_KEY]))
                    continue
                candidates.update(posting[max(0, end - PER_KEY) : end])
                if end > PER_KEY:  # and MEMORY.md's, however many notes say it since
                    oldest = posting[: min(end - PER_KEY, PER_KEY)]
                    candidates.update(itertools.takewhile(self.evergreen, oldest))
            if share < 0:  # n names most of what the older entry's state is about
                found.update(o for o, count in candidates.items() if count >= -share * self.state_size(o))
                continue
            needs = [(k, max(1.0, s * len(k))) for k, s in (first, *rest)]  # (each checked once a query)
            keys_of_o = self.keys
            for o in candidates:
                if o in found:
                    continue
                held = keys_of_o(o)
                for k, least in needs:
                    if len(k & held) < least:
                        break
                else:
                    found.add(o)
        found.discard(n)
        return sorted(found, key=self.when)


def first_keys(queries: Iterable[Query]) -> set[str]:
    """The keys `Older.find` looks these queries up by (those of their first need)."""
    return {key for first, *_ in queries for key in first[0]}


def superseded_among(texts: Sequence[str], days: Sequence[date | None]) -> set[int]:
    """Which of these entries (scanned texts; `days` when each was written, None for one of
    MEMORY.md) a later one of them replaces: for a digest or a recall, which must not
    present them as current."""
    templates = [template_of(t) for t in texts]
    keys = [keys_of(t, m) for t, m in zip(texts, templates, strict=True)]
    changes: dict[int, tuple[Reading, ...]] = {}
    profiles: dict[int, Profile] = {}

    def when(i: int) -> tuple[date, int]:
        return (days[i] or date.min, i)

    def read(i: int) -> Profile:
        if i not in profiles:
            profiles[i] = profile(texts[i], changes.get(i))
        return profiles[i]

    older = Older(range(len(texts)), keys.__getitem__, when, lambda i: days[i] is None)
    out: set[int] = set()
    for n in sorted(range(len(texts)), key=when):
        if not may_change(texts[n]):
            continue
        changes[n] = read_changes(texts[n])
        evergreen = days[n] is None
        queries = lookup(changes[n]) + plain_lookup(texts[n], keys[n], templates[n], cues_only=evergreen)
        found = [o for o in older.find(n, queries) if o not in out and texts[o] != texts[n]]
        if corrects(texts[n]):
            ranked = [(judge_correction(read(o), read(n)), when(o), o) for o in found]
            best = max((r for r in ranked if r[0]), default=None)
            if best is not None:
                out.add(best[2])
                continue
        replaced = [
            o
            for o in found
            if judge(
                read(o),
                read(n),
                same_day=days[o] is not None and days[o] == days[n],
                evergreen=evergreen and days[o] is None,
            )
        ]
        if len(replaced) <= AT_MOST:  # more is a misreading
            out.update(replaced)
    return out
