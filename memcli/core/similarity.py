"""Duplicates (SPEC §6): normalisation, values, candidate blocking, fuzzy groups.

- `normalise` folds an entry to what it says: NFKC, case-folded, without
  Markdown, punctuation, timestamps or spaces around CJK characters.
- Similarity is rapidfuzz's character-level ratio, which works for Chinese
  (no spaces needed) and for mixed text alike.
- Blocking (`candidate_pairs`): an entry is compared only with entries that share
  a rare value or pair of values, or rare bigrams, never with all the others.
- Two entries are duplicates only if their values agree: a number, date, path,
  port, version or identifier one has and the other lacks may not be lost, two that
  each have a value the other lacks (port 8080 / port 9090) differ, and people named
  must be the same. Negation must agree ("我喜欢" / "我不喜欢"), and a person or a
  Chinese phrase swapped for another (交给 徐涛 / 交给 萧静) is a different fact.
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from itertools import chain
from operator import add
from typing import Protocol, TypeVar

from memcli.core.entries import strip_leading_stamp
from memcli.core.rules import NEGATIONS, compile_cues

_LEAD = re.compile(r"\s*(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]*)?")
_COMMENT = re.compile(r"<!--.*?-->", re.DOTALL)
_LINK = re.compile(r"!?\[([^\]]*)\]\(([^)\s]*)[^)]*\)")
_TIME = re.compile(r"(?<![\d:])\d{1,2}:\d{2}(?::\d{2})?(?![\d:])")
_PUNCT = re.compile(r"[^\w\s]|_", re.UNICODE)
_CJK_START = "\u2e80"  # CJK scripts (and emoji) lie above this code point

_ZH_DATE = re.compile(r"(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")  # 11 月 12 日
_VALUE = re.compile(
    r"https?://[^\s)>\]]+"  # URLs
    r"|(?:[a-zA-Z]:\\|~/|\.{1,2}/|/)[\w.\-\\/]*\w"  # paths
    r"|\d{1,3}(?:,\d{3})+(?!\d)"  # 1,000,000
    r"|[A-Za-z0-9_]+(?:[-._/\\:][A-Za-z0-9_]+)*"  # words; kept when they hold a digit or a joint
)
# Capitalised words: product names and acronyms (PostgreSQL, MacBook, CI) are values;
# a plain capitalised word inside a sentence (after a lowercase word, a comma, or Chinese
# text) is taken for a person's name.
_CAPITALISED = re.compile(r"(?<![\w.])[A-Z][A-Za-z0-9]*")
NAME_MARK = "@"  # names are kept apart from other values: a different name is a different fact
_NEGATION = compile_cues(NEGATIONS)


def _body(text: str) -> str:
    """NFKC text without list marker, checkbox, the timestamp it opens with, or comments."""
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    first, _, rest = text.partition("\n")
    text = strip_leading_stamp(_LEAD.sub("", first, count=1)) + ("\n" + rest if rest else "")
    return _COMMENT.sub(" ", text) if "<!--" in text else text


def _normalised(body: str) -> str:
    if "](" in body:
        body = _LINK.sub(r"\1 \2", body)
    text = body.casefold()
    if ":" in text:
        text = _TIME.sub(" ", text)
    words = _PUNCT.sub(" ", text).split()
    if text.isascii() or len(words) < 2:
        return " ".join(words)
    joined = [words[0]]
    for word in words[1:]:
        if joined[-1][-1] >= _CJK_START or word[0] >= _CJK_START:
            joined[-1] += word  # no space next to CJK: "上午 10 点" reads as "上午10点"
        else:
            joined.append(word)
    return " ".join(joined)


def _values(body: str) -> frozenset[str]:
    found: set[str] = set()
    if "月" in body:
        found.update(f"{int(m)}-{int(d)}" for m, d in _ZH_DATE.findall(body))
        body = _ZH_DATE.sub(" ", body)
    for token in _VALUE.findall(body):
        # a plain word is not a value; digits, joints or camelCase make one
        if not token.isalpha() or (token[0].islower() and not token.islower()):
            found.add(token.rstrip(".,;:").casefold())
    for m in _CAPITALISED.finditer(body):
        word = m.group(0)
        rest = word[1:]
        if not rest.islower() or not rest.isalpha():
            if len(word) > 1:
                found.add(word.casefold())  # CamelCase, ALL CAPS, with digits
        elif _inside_sentence(body, m.start()):
            found.add(NAME_MARK + word.casefold())
    return frozenset(found)


def _inside_sentence(text: str, start: int) -> bool:
    if not start:
        return False
    before = text[start - 1]
    if before in ",;(" or before >= _CJK_START:
        return True
    if before == " " and start >= 2:
        previous = text[start - 2]
        return previous.islower() or previous in ",;" or previous >= _CJK_START
    return False


# Phrases with a negation word that do not deny anything ("don't forget" = remember).
_NOT_NEGATIONS = compile_cues(
    (
        "don't forget",
        "do not forget",
        "dont forget",
        "never forget",
        "不要忘",
        "别忘",
        "不过",
        "不仅",
        "不断",
        "不少",
        "不错",
        "不久",
        "不管",
        "不得不",
        "差不多",
        "不一定",
    )
)


def _negative(body: str) -> bool:
    folded = body.casefold()
    if _NEGATION.search(folded) is None:
        return False
    return _NEGATION.search(_NOT_NEGATIONS.sub(" ", folded)) is not None


def normalise(text: str) -> str:
    """What an entry says, for comparison: no marker, markup, punctuation or timestamps."""
    return _normalised(_body(text))


def values(text: str) -> frozenset[str]:
    """Numbers, dates, paths, ports, versions, URLs, identifiers and names an entry carries
    (not the timestamp it opens with: that is when it was written, not what it says)."""
    return _values(_body(text))


def polarity(text: str) -> bool:
    """True when the entry says something is not so (不 / never / no longer …)."""
    return _negative(_body(text))


def describe(text: str) -> tuple[str, frozenset[str], bool]:
    """What dedupe compares: the normalised text, its values, its polarity."""
    body = _body(text)
    return _normalised(body), _values(body), _negative(body)


# The hundred most common Chinese surnames: a changed word that starts with one is likely a name.
SURNAMES = frozenset(
    "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹彭曾肖田董袁潘于蒋蔡余杜叶程苏魏吕丁任"
    "沈姚卢姜崔钟谭陆汪范金石廖贾夏韦付方白邹孟熊秦邱江尹薛闫段雷侯龙史陶黎贺顾毛郝龚邵万钱严覃武戴莫孔向汤萧"
)


SWAPPED_PHRASE = 3  # Chinese characters on both sides of a change that make it another subject


def _is_cjk(ch: str) -> bool:
    return ch >= _CJK_START


def _changes(a: str, b: str) -> list[tuple[str, str, str]]:
    """Where two normalised texts differ: (character before, removed, inserted) per region."""
    from rapidfuzz.distance import Indel

    regions: list[tuple[str, str, str]] = []
    current: list[str] | None = None
    for op in Indel.opcodes(a, b):
        if op.tag == "equal":
            if current is not None:
                regions.append((current[0], current[1], current[2]))
                current = None
            continue
        if current is None:
            current = [a[op.src_start - 1] if op.src_start else "", "", ""]
        current[1] += a[op.src_start : op.src_end]
        current[2] += b[op.dest_start : op.dest_end]
    if current is not None:
        regions.append((current[0], current[1], current[2]))
    return regions


def _name_like(before: str, word: str) -> bool:
    cjk = [ch for ch in word if _is_cjk(ch)]
    if len(cjk) != len(word) or not word:
        return False
    return (word[0] in SURNAMES and 2 <= len(word) <= 3) or (before in SURNAMES and len(word) <= 2)


def substitutes_a_name(a: str, b: str) -> bool:
    """True when one text has a different person or subject where the other has its own:
    a Chinese name replaced (交给 徐涛 / 交给 萧静), a name in one script replaced by one in
    the other (Gustav / 马秀英), or a Chinese phrase of three or more characters replaced by
    another (账号注销 / 签名校验). Values catch the Latin names and numbers."""
    for before, removed, inserted in _changes(a, b):
        old, new = removed.replace(" ", ""), inserted.replace(" ", "")
        if not old or not new:
            continue
        old_cjk, new_cjk = sum(map(_is_cjk, old)), sum(map(_is_cjk, new))
        old_latin = sum(ch.isascii() and ch.isalpha() for ch in old)
        new_latin = sum(ch.isascii() and ch.isalpha() for ch in new)
        if (old_latin >= 2 and new_cjk >= 2) or (old_cjk >= 2 and new_latin >= 2):
            return True
        if old_cjk >= SWAPPED_PHRASE and new_cjk >= SWAPPED_PHRASE:
            return True  # a whole phrase swapped for another: 账号注销 / 签名校验
        if _name_like(before, old) or _name_like(before, new):
            return True
    return False


# --- blocking -----------------------------------------------------------------------------


TEXT_KEYS = 6  # rarest bigrams under which an entry without distinctive values is filed
TEXT_PROBES = 16  # rarest bigrams with which every entry looks those up
SHORT = 16  # up to this length, keys and probes follow the exact prefix-filter bound
DISTINCT_MAX = 24  # a value (or pair) found in more entries than this does not identify a fact
VALUE_KEYS = 6  # rarest values of an entry that make up its keys


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


def _rarest_first(counts: Counter[str]) -> list[str]:
    """Rarest first (ties by text): the order prefix filters pick tokens in."""
    order = sorted(counts)
    order.sort(key=counts.__getitem__)  # stable: ties stay in text order
    return order


def _ranks(counts: Counter[str]) -> dict[str, int]:
    return {t: r for r, t in enumerate(_rarest_first(counts))}


def _pairs(values: Sequence[str]) -> list[tuple[str, str]]:
    return [(a, b) if a < b else (b, a) for i, a in enumerate(values) for b in values[i + 1 :]]


class Blocking:
    """Which entries an entry is worth verifying against, found without comparing all pairs.

    Duplicates must agree on their values, the smaller set inside the larger, so two
    entries that state one fact share its values. An entry is filed under its rarest value,
    or when all its values are common, under its rarest pair of them; every entry looks up
    its rare values and its pairs of common ones. An entry with no such key is filed
    instead under (its rarest value or none, bigram) for its rarest bigrams, and every
    entry looks up (each of its values or none, bigram) with its own rarest bigrams — for
    short entries as many as the prefix-filter bound requires. Lengths that cannot reach
    the ratio are skipped. Recall against all-pairs comparison is measured by
    bench/dedupe.py, not assumed.
    """

    def __init__(self, texts: Sequence[str], value_sets: Sequence[frozenset[str]], threshold: float) -> None:
        value_counts: Counter[str] = Counter(chain.from_iterable(value_sets))
        order = _rarest_first(value_counts)
        value_rank = {t: r for r, t in enumerate(order)}
        rank_of = value_rank.__getitem__
        common_from = sum(1 for c in value_counts.values() if c <= DISTINCT_MAX)  # ranks below: rare
        rare: list[list[str]] = []
        pairs: list[list[tuple[str, str]]] = []
        for vs in value_sets:
            ranks = sorted(map(rank_of, vs))[:VALUE_KEYS]
            rare.append([order[r] for r in ranks if r < common_from])
            pairs.append(_pairs([order[r] for r in ranks if r >= common_from]))
        pair_counts: Counter[tuple[str, str]] = Counter(chain.from_iterable(pairs))
        by_key: dict[object, list[int]] = defaultdict(list)
        textual: dict[int, set[str]] = {}
        for i in range(len(texts)):
            if rare[i]:
                by_key[rare[i][0]].append(i)
                continue
            best = min(pairs[i], key=pair_counts.__getitem__) if pairs[i] else None
            if best is not None and pair_counts[best] <= DISTINCT_MAX:
                by_key[best].append(i)
            else:
                textual[i] = bigrams(texts[i])
        gram_counts: Counter[str] = Counter(chain.from_iterable(textual.values()))
        gram_rank = _ranks(gram_counts)
        lengths = [len(t) for t in texts]
        floor = threshold / (2.0 - threshold) - 1e-9
        by_anchor: dict[str, list[int]] = defaultdict(list)
        for i in textual:
            by_anchor[min(value_sets[i], key=value_rank.__getitem__) if value_sets[i] else ""].append(i)
        small = {a: members for a, members in by_anchor.items() if len(members) <= DISTINCT_MAX}
        by_gram: dict[tuple[str, str], list[int]] = defaultdict(list)
        reach: dict[str, tuple[float, float]] = {}  # lengths that can pair with an anchor's entries
        for anchor, members in by_anchor.items():
            if anchor in small:
                continue
            member_lengths = [lengths[i] for i in members]
            reach[anchor] = (min(member_lengths) * floor, max(member_lengths) / floor)
            for i in members:
                grams = textual[i]
                keep = _prefix(lengths[i], len(grams), lengths[i], threshold, TEXT_KEYS)
                for g in sorted(grams, key=gram_rank.__getitem__)[:keep]:
                    by_gram[(anchor, g)].append(i)
        del textual, by_anchor
        anchor_grams: dict[str, set[str]] = defaultdict(set)
        for anchor, g in by_gram:
            anchor_grams[anchor].add(g)
        self.texts, self.value_sets, self.threshold = texts, value_sets, threshold
        self.rare, self.pairs, self.by_key, self.small, self.reach = rare, pairs, by_key, small, reach
        self.by_gram, self.anchor_grams, self.gram_rank = by_gram, anchor_grams, gram_rank
        self.lengths, self.floor = lengths, floor
        self.anchors = frozenset(small) | frozenset(reach)  # the values worth looking up as anchors
        self.no_value = frozenset(("",)) & self.anchors  # entries without values are under ""

    def near(self, i: int) -> set[int]:
        """The entries entry i is worth verifying against (i itself left out)."""
        text, n, floor = self.texts[i], self.lengths[i], self.floor
        seen: set[int] = set()
        by_key = self.by_key
        for keys in (self.rare[i], self.pairs[i]):
            for key in keys:
                found = by_key.get(key)
                if found:
                    seen.update(found)
        mine = []
        small, reach = self.small, self.reach
        for anchor in self.anchors.intersection(self.value_sets[i]) | self.no_value:
            if anchor in small:
                seen.update(small[anchor])
            elif reach[anchor][0] <= n <= reach[anchor][1]:
                mine.append(anchor)
        if mine:
            grams: set[str] | None = None
            if n <= SHORT:  # as many of its bigrams as the prefix-filter bound asks for
                grams = bigrams(text)
                wanted = _prefix(n, len(grams), n * floor, self.threshold, TEXT_PROBES)
            else:  # at most TEXT_PROBES, found among the anchor's without a set of all its own
                wanted = TEXT_PROBES
            for anchor in mine:
                if grams is None:
                    probes = self.anchor_grams[anchor].intersection(map(add, text, text[1:]))
                else:
                    probes = grams & self.anchor_grams[anchor]
                if len(probes) > wanted:
                    probes = set(sorted(probes, key=self.gram_rank.__getitem__)[:wanted])
                for g in probes:
                    seen.update(self.by_gram[(anchor, g)])
        low, high = n * floor, n / floor
        lengths = self.lengths
        return {j for j in seen if j != i and low <= lengths[j] <= high}


def candidate_pairs(
    texts: Sequence[str], value_sets: Sequence[frozenset[str]], threshold: float
) -> Iterator[tuple[int, int]]:
    """Pairs (i, j), i < j, worth verifying (see `Blocking`), each once."""
    blocking = Blocking(texts, value_sets, threshold)
    size = len(texts)
    emitted: set[int] = set()
    for i in range(size):
        for j in blocking.near(i):
            first, second = (j, i) if j < i else (i, j)
            code = first * size + second
            if code not in emitted:
                emitted.add(code)
                yield first, second


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


def values_agree(a: frozenset[str], b: frozenset[str]) -> bool:
    """One entry's values inside the other's (the fuller one is kept), and the same people
    named when both name someone: "assigned to Mia" is not "assigned to Talia"."""
    if not (a <= b or b <= a):
        return False
    names_a = {v for v in a if v.startswith(NAME_MARK)}
    names_b = {v for v in b if v.startswith(NAME_MARK)}
    return not names_a or not names_b or names_a == names_b


def _compatible(a: _Key, b: _Key) -> bool:
    if a.negative != b.negative or a.done != b.done:
        return False
    return values_agree(a.values, b.values)


def _completeness(key: _Key, items: Sequence[Item], member: int) -> tuple[int, int, int, date, int]:
    item = items[member]
    return (
        0 if item.in_core else 1,
        -len(key.values),
        -len(key.norm),
        item.date or date.min,
        member,
    )


Description = tuple[str, frozenset[str], bool]
T = TypeVar("T")


class Mapper(Protocol):
    """Applies a function of one text to many texts, in this process or on every core."""

    def __call__(self, function: Callable[[str], T], texts: Sequence[str]) -> list[T]: ...


def serial_map(function: Callable[[str], T], texts: Sequence[str]) -> list[T]:
    return [function(t) for t in texts]


def duplicate_groups(
    items: Sequence[Item],
    threshold: float,
    mapper: Mapper = serial_map,
    described: Mapping[str, Description] | None = None,
) -> list[Group]:
    """Groups of two or more items that say the same thing, each with the item to keep.

    `mapper` applies `describe` to every distinct text not already in `described`;
    a caller may run it in parallel.
    """
    keys: dict[tuple[str, frozenset[str], bool, bool | None], _Key] = {}
    known = described or {}
    distinct = [t for t in dict.fromkeys(item.text for item in items) if t not in known]
    described = {**known, **dict(zip(distinct, mapper(describe, distinct), strict=True))}
    for i, item in enumerate(items):
        norm, vals, neg = described[item.text]
        if not norm:
            continue
        ident = (norm, vals, neg, item.done)
        key = keys.get(ident)
        if key is None:
            keys[ident] = _Key(norm, vals, neg, item.routine, item.done, [i])
        else:
            key.members.append(i)
            key.routine = key.routine or item.routine
    # A routine event ("heartbeat OK") recurs: copies on different days are separate events,
    # and routine lines are never matched fuzzily. Only same-day copies are duplicates.
    routine_groups: list[list[int]] = []
    unique: list[_Key] = []
    for key in keys.values():
        if key.routine:
            by_day: dict[date | None, list[int]] = defaultdict(list)
            for i in key.members:
                by_day[items[i].date].append(i)
            routine_groups.extend(m for m in by_day.values() if len(m) > 1)
        else:
            unique.append(key)

    parent = list(range(len(unique)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    cutoff = threshold * 100.0
    norms = [k.norm for k in unique]
    verify = _Verifier(unique, Blocking(norms, [k.values for k in unique], threshold), cutoff)
    # each entry probes and verifies its own neighbours (on every core when `mapper` can);
    # a pair found from both of its sides is the same triple, kept once
    found = mapper(verify, [str(i) for i in range(len(unique))])
    scored = sorted({t for part in found for t in part}, key=lambda t: (-t[0], t[1], t[2]))
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
    groups = [g for g in (_make_group(m, unique, items) for m in members.values()) if g is not None]
    for same_day in routine_groups:
        keep, *rest = sorted(same_day, key=lambda i: (0 if items[i].in_core else 1, i))
        day = items[keep].date
        groups.append(Group(keep, tuple((i, 1.0) for i in rest), int(day is not None), day, day))
    return sorted(groups, key=lambda g: g.keep)


class _Verifier:
    """Entry i's duplicates among those blocking proposes: (similarity, a, b) with a < b.
    Called with the entry's index as text, so that a mapper can run it in forked workers,
    which inherit the index instead of receiving it."""

    def __init__(self, unique: Sequence[_Key], blocking: Blocking, cutoff: float) -> None:
        self.unique = unique
        self.blocking = blocking
        self.cutoff = cutoff

    def __call__(self, index: str) -> list[tuple[float, int, int]]:
        from rapidfuzz.fuzz import ratio

        i = int(index)
        unique, norms = self.unique, self.blocking.texts
        out = []
        for j in self.blocking.near(i):
            a, b = (i, j) if i < j else (j, i)
            s = ratio(norms[a], norms[b], score_cutoff=self.cutoff)
            if s and _compatible(unique[a], unique[b]) and not substitutes_a_name(norms[a], norms[b]):
                out.append((s, a, b))
        return out


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
        if not values_agree(other.values, keeper.values):
            return False
        if other.done != keeper.done:
            return False
        if k != keeper_key and (
            ratio(keeper.norm, other.norm, score_cutoff=cutoff) == 0
            or substitutes_a_name(keeper.norm, other.norm)
        ):
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
