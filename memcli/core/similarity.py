"""Duplicates (SPEC §6): normalisation, values, candidate blocking, fuzzy groups.

- `normalise` folds an entry to what it says: NFKC, case-folded, without
  Markdown, punctuation, timestamps or spaces around CJK characters.
- Similarity is rapidfuzz's character-level ratio, which works for Chinese
  (no spaces needed) and for mixed text alike.
- Blocking: an entry is compared only with entries sharing one of its rarest
  character bigrams (a prefix filter), never with all the others.
- Two entries are duplicates only if their values agree: a number, date, path,
  port, version or name that one has and the other lacks may not be lost, and
  two that each have a value the other lacks (port 8080 / port 9090) differ.
  Negation must agree too ("我喜欢" / "我不喜欢").
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import date

from memcli.core.entries import strip_leading_stamp
from memcli.core.rules import NEGATIONS, compile_cues
from memcli.core.tokens import CJK_RANGES

_LEAD = re.compile(r"\s*(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]*)?")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]*)[^)]*\)")
_TIME = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:])")
_PUNCT = re.compile(r"[^\w\s]|_", re.UNICODE)
_SPACE_NEAR_CJK = re.compile(f"(?<=[{CJK_RANGES}])\\s+|\\s+(?=[{CJK_RANGES}])")
_SPACES = re.compile(r"\s+")

_VALUE_PATTERNS = (
    re.compile(r"https?://[^\s)>\]]+", re.IGNORECASE),  # URLs
    re.compile(r"(?:[a-z]:\\|~/|\.{1,2}/|/)[\w.\-\\/]*[\w]", re.IGNORECASE),  # paths
    re.compile(r"(?<![\w.])[\w][\w-]*(?:[._/\\-][\w]+)+"),  # identifiers: atlas-api, core.autocrlf, 2.3.1
    re.compile(r"\d+(?:[.,:/]\d+)*"),  # numbers, versions, times, ratios
)
_ZH_DATE = re.compile(r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_NAME = re.compile(r"(?<![\w.])[A-Z][a-zA-Z0-9]*[A-Z0-9][a-zA-Z0-9]*|(?<=[a-z,;] )[A-Z][a-z]+")
_NEGATION = compile_cues(NEGATIONS)

MIN_PREFIX = 4
PREFIX_SHARE = 0.25


def normalise(text: str) -> str:
    """What an entry says, for comparison: no marker, markup, punctuation or timestamps."""
    first, _, rest = text.partition("\n")
    text = strip_leading_stamp(_LEAD.sub("", first, count=1)) + ("\n" + rest if rest else "")
    text = _COMMENT.sub(" ", text)
    text = _LINK.sub(r"\1 \2", text)
    text = unicodedata.normalize("NFKC", text).casefold()
    text = _TIME.sub(" ", text)
    text = _PUNCT.sub(" ", text)
    text = _SPACE_NEAR_CJK.sub("", text)
    return _SPACES.sub(" ", text).strip()


def values(text: str) -> frozenset[str]:
    """Numbers, dates, paths, ports, versions, URLs, identifiers and names an entry carries
    (not the timestamp it opens with: that is when it was written, not what it says)."""
    text = _COMMENT.sub(" ", unicodedata.normalize("NFKC", text))
    first, _, rest = text.partition("\n")
    text = strip_leading_stamp(_LEAD.sub("", first, count=1)) + ("\n" + rest if rest else "")
    found: set[str] = set()
    for m in _ZH_DATE.finditer(text):
        found.add(f"{int(m.group(1))}-{int(m.group(2))}")
    body = _ZH_DATE.sub(" ", text)
    for pattern in _VALUE_PATTERNS:
        for m in pattern.finditer(body):
            token = m.group(0).rstrip(".,;:").casefold()
            if token:
                found.add(token)
        body = pattern.sub(" ", body)
    for m in _NAME.finditer(text):
        found.add(m.group(0).casefold())
    return frozenset(found)


def polarity(text: str) -> bool:
    """True when the entry says something is not so (不 / never / no longer …)."""
    return _NEGATION.search(unicodedata.normalize("NFKC", text).casefold()) is not None


def similarity(a: str, b: str) -> float:
    from rapidfuzz.fuzz import ratio

    return float(ratio(a, b)) / 100.0


# --- blocking -----------------------------------------------------------------------------


def _grams(text: str) -> list[str]:
    compact = text.replace(" ", "")
    if len(compact) < 2:
        return [compact] if compact else []
    return [compact[i : i + 2] for i in range(len(compact) - 1)]


def candidate_pairs(texts: Sequence[str], threshold: float) -> Iterator[tuple[int, int]]:
    """Pairs (i, j), i < j, worth verifying: they share one of their rarest bigrams and
    their lengths allow a ratio of `threshold`."""
    grams = [sorted(set(_grams(t))) for t in texts]
    frequency: Counter[str] = Counter()
    for gs in grams:
        frequency.update(gs)
    ratio_floor = threshold / (2.0 - threshold)
    order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
    index: dict[str, list[int]] = defaultdict(list)
    for i in order:
        gs = sorted(grams[i], key=lambda g: (frequency[g], g))
        k = min(len(gs), max(MIN_PREFIX, math.ceil(len(gs) * PREFIX_SHARE)))
        prefix = gs[:k]
        shortest = len(texts[i]) * ratio_floor
        seen: set[int] = set()
        for g in prefix:
            for j in index[g]:
                if j not in seen and len(texts[j]) >= shortest:
                    seen.add(j)
        for j in seen:
            yield (j, i) if j < i else (i, j)
        for g in prefix:
            index[g].append(i)


# --- groups ----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Item:
    """What dedupe needs to know of an entry."""

    text: str
    date: date | None
    in_core: bool = False
    routine: bool = False
    done: bool | None = None


@dataclass(frozen=True, slots=True)
class Group:
    keep: int
    duplicates: tuple[tuple[int, float], ...]  # (item index, similarity to the kept item)
    mentions: int
    first_seen: date | None
    last_seen: date | None


@dataclass(slots=True)
class _Key:
    norm: str
    values: frozenset[str]
    negative: bool
    routine: bool
    done: bool | None
    members: list[int]


def _compatible(a: _Key, b: _Key, items: Sequence[Item]) -> bool:
    if a.negative != b.negative or a.done != b.done:
        return False
    if not (a.values <= b.values or b.values <= a.values):
        return False
    if a.routine or b.routine:
        days = {items[i].date for i in a.members} | {items[i].date for i in b.members}
        return len(days) <= 1
    return True


def _completeness(key: _Key, items: Sequence[Item], member: int) -> tuple[int, int, int, date, int]:
    item = items[member]
    return (
        0 if item.in_core else 1,
        -len(key.values),
        -len(key.norm),
        item.date or date.min,
        member,
    )


def duplicate_groups(items: Sequence[Item], threshold: float) -> list[Group]:
    """Groups of two or more items that say the same thing, each with the item to keep."""
    keys: dict[tuple[str, frozenset[str], bool, bool | None], _Key] = {}
    for i, item in enumerate(items):
        norm = normalise(item.text)
        if not norm:
            continue
        vals = values(item.text)
        neg = polarity(item.text)
        ident = (norm, vals, neg, item.done)
        key = keys.get(ident)
        if key is None:
            keys[ident] = _Key(norm, vals, neg, item.routine, item.done, [i])
        else:
            key.members.append(i)
            key.routine = key.routine or item.routine
    unique = list(keys.values())
    # exact copies of a routine event on different days are separate events
    split: list[_Key] = []
    for key in unique:
        if key.routine and len({items[i].date for i in key.members}) > 1:
            by_day: dict[date | None, list[int]] = defaultdict(list)
            for i in key.members:
                by_day[items[i].date].append(i)
            split.extend(_Key(key.norm, key.values, key.negative, True, key.done, m) for m in by_day.values())
        else:
            split.append(key)
    unique = split

    parent = list(range(len(unique)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    from rapidfuzz.fuzz import ratio

    cutoff = threshold * 100.0
    scored: list[tuple[float, int, int]] = []
    norms = [k.norm for k in unique]
    for a, b in candidate_pairs(norms, threshold):
        s = ratio(norms[a], norms[b], score_cutoff=cutoff)
        if s and _compatible(unique[a], unique[b], items):
            scored.append((s, a, b))
    scored.sort(key=lambda t: (-t[0], t[1], t[2]))
    members: dict[int, list[int]] = {i: [i] for i in range(len(unique))}
    for _, a, b in scored:
        ra, rb = find(a), find(b)
        if ra == rb:
            continue
        merged = members[ra] + members[rb]
        if not _group_holds(merged, unique, items, cutoff):
            continue
        parent[rb] = ra
        members[ra] = merged
        del members[rb]
    return [g for g in (_make_group(m, unique, items) for m in members.values()) if g is not None]


def _group_keeper(keys: Iterable[int], unique: Sequence[_Key], items: Sequence[Item]) -> tuple[int, int]:
    return min(
        ((k, m) for k in keys for m in unique[k].members),
        key=lambda km: _completeness(unique[km[0]], items, km[1]),
    )


def _group_holds(keys: list[int], unique: Sequence[_Key], items: Sequence[Item], cutoff: float) -> bool:
    """A merged group must have a keeper that carries every value and resembles every member."""
    from rapidfuzz.fuzz import ratio

    keeper_key, _ = _group_keeper(keys, unique, items)
    keeper = unique[keeper_key]
    for k in keys:
        other = unique[k]
        if not other.values <= keeper.values or other.negative != keeper.negative:
            return False
        if other.done != keeper.done:
            return False
        if k != keeper_key and ratio(keeper.norm, other.norm, score_cutoff=cutoff) == 0:
            return False
    if any(unique[k].routine for k in keys):
        days = {items[i].date for k in keys for i in unique[k].members}
        if len(days) > 1:
            return False
    return True


def _make_group(keys: list[int], unique: Sequence[_Key], items: Sequence[Item]) -> Group | None:
    if sum(len(unique[k].members) for k in keys) < 2:
        return None
    from rapidfuzz.fuzz import ratio

    keeper_key, keeper = _group_keeper(keys, unique, items)
    dups: list[tuple[int, float]] = []
    for k in keys:
        sim = 1.0 if k == keeper_key else float(ratio(unique[keeper_key].norm, unique[k].norm)) / 100.0
        dups.extend((m, sim) for m in unique[k].members if m != keeper)
    dups.sort(key=lambda d: (items[d[0]].date or date.min, d[0]))
    every = [keeper] + [d[0] for d in dups]
    days = sorted({d for d in (items[i].date for i in every) if d is not None})
    return Group(
        keep=keeper,
        duplicates=tuple(dups),
        mentions=len(days),
        first_seen=days[0] if days else None,
        last_seen=days[-1] if days else None,
    )
