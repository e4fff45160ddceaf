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

_VALUE = re.compile(
    r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]"  # 11 月 12 日
    r"|https?://[^\s)>\]]+"  # URLs
    r"|(?:[a-zA-Z]:\\|~/|\.{1,2}/|/)[\w.\-\\/]*\w"  # paths
    r"|(?<![\w.])\w[\w-]*(?:[._/\\-]\w+)+"  # identifiers: atlas-api, core.autocrlf, 2.3.1
    r"|\d+(?:[.,:/]\d+)*"  # numbers, times, ratios
)
_NAME = re.compile(r"(?<![\w.])[A-Z][a-zA-Z0-9]*[A-Z0-9][a-zA-Z0-9]*|(?<=[a-z,;] )[A-Z][a-z]+")
_NEGATION = compile_cues(NEGATIONS)


def normalise(text: str) -> str:
    """What an entry says, for comparison: no marker, markup, punctuation or timestamps."""
    first, _, rest = text.partition("\n")
    text = strip_leading_stamp(_LEAD.sub("", first, count=1)) + ("\n" + rest if rest else "")
    if "<!--" in text:
        text = _COMMENT.sub(" ", text)
    if "](" in text:
        text = _LINK.sub(r"\1 \2", text)
    text = unicodedata.normalize("NFKC", text).casefold()
    if ":" in text:
        text = _TIME.sub(" ", text)
    text = _PUNCT.sub(" ", text)
    if not text.isascii():
        text = _SPACE_NEAR_CJK.sub("", text)
    return " ".join(text.split())


def values(text: str) -> frozenset[str]:
    """Numbers, dates, paths, ports, versions, URLs, identifiers and names an entry carries
    (not the timestamp it opens with: that is when it was written, not what it says)."""
    text = _COMMENT.sub(" ", unicodedata.normalize("NFKC", text))
    first, _, rest = text.partition("\n")
    text = strip_leading_stamp(_LEAD.sub("", first, count=1)) + ("\n" + rest if rest else "")
    found: set[str] = set()
    for m in _VALUE.finditer(text):
        if m.group(1) is not None:
            found.add(f"{int(m.group(1))}-{int(m.group(2))}")
        else:
            token = m.group(0).rstrip(".,;:").casefold()
            if token:
                found.add(token)
    for m in _NAME.finditer(text):
        found.add(m.group(0).casefold())
    return frozenset(found)


def describe(text: str) -> tuple[str, frozenset[str], bool]:
    """What dedupe compares: the normalised text, its values, its polarity."""
    return normalise(text), values(text), polarity(text)


def polarity(text: str) -> bool:
    """True when the entry says something is not so (不 / never / no longer …)."""
    return _NEGATION.search(unicodedata.normalize("NFKC", text).casefold()) is not None


def similarity(a: str, b: str) -> float:
    from rapidfuzz.fuzz import ratio

    return float(ratio(a, b)) / 100.0


# --- blocking -----------------------------------------------------------------------------


TEXT_KEYS = 6  # rarest bigrams under which an entry without distinctive values is filed
TEXT_PROBES = 16  # rarest bigrams with which every entry looks those up
SHORT = 16  # up to this length, keys and probes follow the exact prefix-filter bound
DISTINCT_MAX = 24  # a value found in more entries than this does not identify a fact


def bigrams(text: str) -> set[str]:
    if len(text) <= 2:
        return {text}
    return {text[i : i + 2] for i in range(len(text) - 1)}


def _min_overlap(total_length: float, threshold: float) -> int:
    """Bigram occurrences two strings of this combined length share at least when their
    ratio reaches the threshold: LCS = r(la+lb)/2, and each character outside the LCS
    breaks at most one run of it, so shared ≥ 3·LCS − (la+lb) − 1."""
    return max(0, math.ceil(total_length * (1.5 * threshold - 1.0) - 1.0 - 1e-9))


def _prefix(n: int, grams: int, partner_length: float, threshold: float, cap: int) -> int:
    """How many of an entry's rarest bigrams to file or probe."""
    if n <= SHORT:
        return max(1, grams - _min_overlap(n + partner_length, threshold) + 1)
    return cap


def candidate_pairs(
    texts: Sequence[str], value_sets: Sequence[frozenset[str]], threshold: float
) -> Iterator[tuple[int, int]]:
    """Pairs (i, j), i < j, worth verifying, found without comparing all pairs.

    Duplicates must agree on their values, the smaller set inside the larger, so two
    entries that share a fact share its rarest value: entries are filed under each value
    few entries carry. Entries with no such value are filed under their rarest bigrams,
    which every entry looks up with its own rarest bigrams (for short entries, as many as
    the prefix-filter bound requires). Lengths that cannot reach the ratio are skipped.
    Recall against all-pairs comparison is measured by bench/dedupe.py, not assumed.
    """
    counts: Counter[str] = Counter()
    for vs in value_sets:
        counts.update(vs)
    distinct = [[v for v in vs if counts[v] <= DISTINCT_MAX] for vs in value_sets]
    by_value: dict[str, list[int]] = defaultdict(list)
    for i, mine in enumerate(distinct):
        for v in mine:
            by_value[v].append(i)
    grams = [bigrams(t) for t in texts]
    lengths = [len(t) for t in texts]
    floor = threshold / (2.0 - threshold) - 1e-9
    textual = [i for i, mine in enumerate(distinct) if not mine]
    frequency: Counter[str] = Counter()
    for i in textual:
        frequency.update(grams[i])
    by_gram: dict[str, list[int]] = defaultdict(list)
    for i in textual:
        n = lengths[i]
        keep = _prefix(n, len(grams[i]), n, threshold, TEXT_KEYS)
        for g in sorted(grams[i], key=lambda g: (frequency[g], g))[:keep]:
            by_gram[g].append(i)
    indexed = set(by_gram)
    for i in range(len(texts)):
        seen: set[int] = set()
        for v in distinct[i]:
            seen.update(by_value[v])
        n = lengths[i]
        probes = grams[i].intersection(indexed)
        wanted = _prefix(n, len(grams[i]), n * floor, threshold, TEXT_PROBES)
        if len(probes) > wanted:
            probes = set(sorted(probes, key=lambda g: (frequency[g], g))[:wanted])
        for g in probes:
            seen.update(by_gram[g])
        low, high = n * floor, n / floor
        mine_distinct = bool(distinct[i])
        for j in seen:
            if j < i:
                if low <= lengths[j] <= high:
                    yield j, i
            elif j > i and mine_distinct and not distinct[j] and low <= lengths[j] <= high:
                yield i, j


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
    described: dict[str, tuple[str, frozenset[str], bool]] = {}
    for i, item in enumerate(items):
        described_as = described.get(item.text)
        if described_as is None:
            described_as = described[item.text] = describe(item.text)
        norm, vals, neg = described_as
        if not norm:
            continue
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
    for a, b in candidate_pairs(norms, [k.values for k in unique], threshold):
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
