"""Duplicates (SPEC §6): normalisation, values, candidate blocking, groups.

- `normalise` folds an entry to what it says: NFKC, case-folded, without
  Markdown, punctuation, timestamps or spaces around CJK characters; only a
  leading list marker or checkbox is taken off.
- `values` are the numbers, dates, times, weekdays, paths, ports, versions,
  identifiers and names an entry carries, each in one spelling (`canonical`:
  下午两点 and 14:00, thirty and 30, May 12 and 5 月 12 日 are one value).
- Whether two entries state the same fact is judgement.duplicates' verdict.
  Here: the blocking (`candidate_pairs`), which proposes the pairs worth judging
  without comparing all of them, and `duplicate_groups`, which folds the verdicts
  into groups whose kept entry holds everything its members say.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from array import array
from bisect import bisect_left
from collections import Counter, defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any, Protocol, TypeVar, overload

from memcli.core.entries import strip_leading_stamp
from memcli.core.judgement import phrasing
from memcli.core.memo import Memo, Table
from memcli.core.rules import compile_cues

_LEAD = re.compile(r"^\s*(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]*)?")
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
    r"|[A-Za-z0-9_]+(?:[-._/\\:][A-Za-z0-9_]+)*(?:(?<=\d)\+)?"  # words: values if a digit or a joint
)
# Capitalised words: product names and acronyms (PostgreSQL, MacBook, CI) are values;
# a plain capitalised word inside a sentence (after a lowercase word, a comma, or Chinese
# text) is taken for a person's name.
_CAPITALISED = re.compile(r"(?<![\w.])[A-Z][A-Za-z0-9]*")
_SLASHED_WORDS = re.compile(r"[A-Za-z]+(?:/[A-Za-z]+)+")
NAME_MARK = "@"  # names are kept apart from other values: a different name is a different fact
_NEGATION = compile_cues((*phrasing.NEGATIONS_EN, *phrasing.NO_LONGER, *phrasing.NEGATIONS_ZH))


def body_of(text: str) -> str:
    """An entry's text as dedupe reads it: NFKC, without list marker, checkbox, leading
    timestamp or comments."""
    return _body(text)


def _body(text: str) -> str:
    """NFKC text without list marker, checkbox, the timestamp it opens with, or comments."""
    if not unicodedata.is_normalized("NFKC", text):
        text = unicodedata.normalize("NFKC", text)
    first, _, rest = text.partition("\n")
    text = strip_leading_stamp(_LEAD.sub("", first, count=1)) + ("\n" + rest if rest else "")
    return _COMMENT.sub(" ", text) if "<!--" in text else text


# --- one spelling for numbers, times, dates and weekdays ---------------------------------------
# "下午两点" and "14:00", "thirty days" and "30 days", "May 12" and "5 月 12 日" state one value.

_ZH_DIGITS = {
    "零": 0,
    "〇": 0,
    "一": 1,
    "二": 2,
    "两": 2,
    "三": 3,
    "四": 4,
    "五": 5,
    "六": 6,
    "七": 7,
    "八": 8,
    "九": 9,
}
_ZH_NUMBER = "[零〇一二两三四五六七八九十百千]"
_ZH_TIME = re.compile(
    rf"(凌晨|早上|上午|中午|下午|傍晚|晚上|夜里|夜间)?\s*(\d{{1,2}}|{_ZH_NUMBER}{{1,3}})\s*点"
    rf"(?:\s*(半|(\d{{1,2}}|{_ZH_NUMBER}{{1,3}})\s*分?))?(?![钟数])"
)
_ZH_COUNT = re.compile(
    rf"(?<![一二三四五六七八九十第星期周礼拜])(?!一个)({_ZH_NUMBER}+)"
    r"(?=\s*(?:个|名|位|次|天|周(?![一二三四五六日天])|个月|年|小时|分钟|秒|层|条|行|人|倍|项|步|轮|遍|份|台|件|种|倍|万))"
)
_EN_TIME = re.compile(r"(?<![\d:])(\d{1,2})(?::(\d{2}))?\s*([ap])\.?m\b\.?", re.IGNORECASE)
_CLOCK = re.compile(r"(?<![\d:])(\d{1,2}):(\d{2})(?=\D|$)")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MONTH = (
    r"(?:[Jj]an(?:uary)?|[Ff]eb(?:ruary)?|[Mm]ar(?:ch)?|[Aa]pr(?:il)?|May|[Jj]une?|[Jj]uly?|[Aa]ug(?:ust)?"
    r"|[Ss]ep(?:t(?:ember)?)?|[Oo]ct(?:ober)?|[Nn]ov(?:ember)?|[Dd]ec(?:ember)?)"
)
_EN_DATE = re.compile(
    rf"\b(?:({_MONTH})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?|(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH}))\b(?!\s*\d{{3}})"
)
_WEEKDAYS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "日": 7, "天": 7}
_ZH_WEEKDAY = re.compile(r"(?<![一])(?:周|星期|礼拜)([一二三四五六日天1-7])(?![次个])")
_EN_WEEKDAY = re.compile(
    r"\b(mon|tue|wed|thu|fri|sat|sun)(?:day|sday|nesday|rsday|urday|s|\.)?s?\b", re.IGNORECASE
)
_EN_NUMBERS = {
    w: n
    for n, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen".split()
    )
    if n >= 2
} | {
    w: 10 * n
    for n, w in enumerate("_ _ twenty thirty forty fifty sixty seventy eighty ninety".split())
    if n >= 2
}
_EN_NUMBER = re.compile(
    r"\b(" + "|".join(_EN_NUMBERS) + r")(?:-(one|two|three|four|five|six|seven|eight|nine))?\b", re.I
)


def _zh_number(text: str) -> int:
    """三 -> 3, 十五 -> 15, 三十 -> 30, 二十五 -> 25, 一百 -> 100 (digits pass through)."""
    if text.isdigit():
        return int(text)
    total, current = 0, 0
    for ch in text:
        if ch in _ZH_DIGITS:
            current = _ZH_DIGITS[ch]
        else:
            unit = {"十": 10, "百": 100, "千": 1000}[ch]
            total += (current or 1) * unit
            current = 0
    return total + current


def _zh_time(m: re.Match[str]) -> str:
    part, hour, minute = m.group(1), _zh_number(m.group(2)), 0
    if m.group(3) == "半":
        minute = 30
    elif m.group(4):
        minute = _zh_number(m.group(4))
    if (part in ("下午", "傍晚", "晚上", "夜里", "夜间") and hour < 12) or (part == "中午" and hour < 11):
        hour += 12
    return f" {hour:02d}:{minute:02d} " if hour < 24 and minute < 60 else m.group(0)


def _en_time(m: re.Match[str]) -> str:
    hour, minute = int(m.group(1)), int(m.group(2) or 0)
    if hour > 12:
        return m.group(0)
    hour = hour % 12 + (12 if m.group(3).lower() == "p" else 0)
    return f" {hour:02d}:{minute:02d} "


def _en_date(m: re.Match[str]) -> str:
    name, day = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
    return f" {_MONTHS.index(name[:3].lower()) + 1}-{int(day)} "


def _en_number(m: re.Match[str]) -> str:
    n = _EN_NUMBERS[m.group(1).lower()]
    if m.group(2):
        n += _EN_NUMBERS.get(m.group(2).lower(), 1 if m.group(2).lower() == "one" else 0)
    return str(n)


_ZH_NUMERALS = frozenset("零〇一二两三四五六七八九十百千")
# "24h" is "24 hours", "30d" "30 days", "45s" "45 seconds"
_UNIT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)(h|hrs?|d|s|secs?|mins?)\b", re.IGNORECASE)
_UNITS = {"h": "hours", "d": "days", "s": "seconds", "m": "minutes"}
_EN_WORD = re.compile(r"[A-Za-z]+")
_EN_TRIGGERS = frozenset(
    [*_EN_NUMBERS, *_MONTHS, "january", "february", "march", "april", "june", "july", "august", "sept",
     "september", "october", "november", "december", "mon", "tue", "tues", "wed", "thu", "thur", "thurs",
     "fri", "sat", "sun", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
     "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays"]
)  # fmt: skip


def canonical(body: str) -> str:
    """The body with one spelling for each value: times as HH:MM, dates as M-D, weekdays as
    wdN, Chinese and English number words as digits. Values and the duplicates judgement
    read this; `normalise` keeps the words as written."""
    if not body.isascii():
        if "月" in body:
            body = _ZH_DATE.sub(lambda m: f" {int(m.group(1))}-{int(m.group(2))} ", body)
        if "点" in body:
            body = _ZH_TIME.sub(_zh_time, body)
        if "周" in body or "星期" in body or "礼拜" in body:
            body = _ZH_WEEKDAY.sub(lambda m: f" wd{_WEEKDAYS.get(m.group(1), m.group(1))} ", body)
        if not _ZH_NUMERALS.isdisjoint(body):
            body = _ZH_COUNT.sub(lambda m: str(_zh_number(m.group(1))), body)
    if ("am" in body or "pm" in body or "AM" in body or "PM" in body) and _EN_TIME.search(body):
        body = _EN_TIME.sub(_en_time, body)
    words = {w.lower() for w in _EN_WORD.findall(body)}
    if not _EN_TRIGGERS.isdisjoint(words):
        body = _EN_DATE.sub(_en_date, body)
        body = _EN_WEEKDAY.sub(_weekday, body)
        body = _EN_NUMBER.sub(_en_number, body)
    if ":" in body:
        body = _CLOCK.sub(lambda m: f"{int(m.group(1)):02d}:{m.group(2)}", body)
    if _UNIT.search(body):
        body = _UNIT.sub(lambda m: f"{m.group(1)} {_UNITS[m.group(2).lower()[0]]}", body)
    return body


def _weekday(m: re.Match[str]) -> str:
    return f" wd{('mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun').index(m.group(1).lower()) + 1} "


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
    body = canonical(body)
    for token in _VALUE.findall(body):
        # a plain word is not a value; digits, joints or camelCase make one, but not words
        # joined by slashes ("requests/min", "and/or")
        if token.isalpha():
            if token[0].islower() and not token.islower():
                found.add(token.casefold())
        elif not _SLASHED_WORDS.fullmatch(token):
            found.add(token.rstrip(".,;:").casefold())
    for m in _CAPITALISED.finditer(body):
        word = m.group(0)
        rest = word[1:]
        if len(word) == 1:
            if word != "I" and m.start() and body[: m.start()].rstrip()[-1:] not in ".!?:":
                found.add(word.casefold())  # "A 项目", "plan B": a one-letter name
        elif not rest.islower() or not rest.isalpha():
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


# Phrases with a negation word that do not deny anything ("don't forget" = remember, 不过 = but).
_NOT_NEGATIONS = compile_cues((*phrasing.NOT_NEGATIONS_EN, *phrasing.NOT_NEGATIONS_ZH))


def _negative(body: str) -> bool:
    folded = body.casefold()
    if _NEGATION.search(folded) is None:
        return False
    return _NEGATION.search(denials(folded)) is not None


def denials(folded: str) -> str:
    """A case-folded text without the phrases that hold a negation word but deny nothing."""
    return _NOT_NEGATIONS.sub(" ", folded.replace("不同意", "不 同意"))


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


# --- blocking -----------------------------------------------------------------------------

HEAVY = 0.5  # features weighing less only shade a fact (as judgement.wording.HEAVY)
PAIR_SHARE = 0.25  # under the least share of the fuller entry a shorter one inside it makes up
VALUE_SLACK = 0.1  # how far below the threshold a restatement sharing a number may score
MAX_WEIGHT = 1.5  # the most one feature weighs (a value)
CONTAINED_KEYS = 3  # rarest features an entry inside another shares with it, looked up together
COMMON = 400  # entries a feature may be filed under and still help find a restatement
JUDGED_HERE = 50_000  # fewer candidate pairs are judged in this process: workers cost more


class Blocking:
    """Which entries an entry is worth judging against, found without comparing all pairs.

    Two entries state one fact only if their values nest (SPEC §6: nothing may be lost), so
    two such entries with values share the values of the one with fewer: an entry with
    values looks up the entries that have its rarest value. An entry without values looks
    its match up by its concepts, words and Chinese characters, which it shares with it in
    one of two ways:

    - it lies wholly inside the fuller one: it looks up the entries filed under each of its
      three rarest features, and keeps those that have all three;
    - the two share most of what they weigh: it looks up the entries filed under its rarest
      features, as many as it takes for the rest to weigh too little to reach the
      threshold, plus one, and keeps those found under two of them at least.

    A feature filed under more than `common` entries is too common to find a fact by and is
    left out of the second look-up. Lengths that cannot reach the threshold are skipped.
    Recall against judging all pairs is measured by bench/dedupe.py.
    """

    def __init__(
        self,
        features: Sequence[Terms],
        value_sets: Sequence[Collection[str]],
        threshold: float,
        common: int = COMMON,
        days: Sequence[tuple[bool, Iterable[date | None]]] | None = None,
    ) -> None:
        # A routine event is matched within its day only: it is filed under its day, not
        # under its features, and looks up the entries of that day.
        # (each sequence read once, in order: a key's days are worked out again when read)
        self.routine: list[bool] = [False] * len(features) if days is None else []
        self.day: list[date | None] = []
        by_day: dict[date | None, list[int]] = defaultdict(list)
        for i, (r, on) in enumerate(days or ()):
            for day in on:
                by_day[day].append(i)
            self.routine.append(r)
            self.day.append(next(iter(on), None) if r else None)
        self.by_day = by_day
        if len(value_sets) != len(self.routine):
            raise ValueError("one set of values an entry")

        # Each key's values and features are read once (each read works them out again
        # from the key: see `_Worked`), and what the later passes need of them is held
        # until they are done: the values of the keys that have some, and the heavy
        # features of those that have none (the others are looked up by their values).
        plains: list[tuple[str, ...]] = []  # (most keys have no value: one empty tuple for them all)
        value_counts: Counter[str] = Counter()
        by_value: dict[str, array[int]] = defaultdict(lambda: array("i"))
        for i, (key_values, routine) in enumerate(zip(value_sets, self.routine, strict=True)):
            vs = {v.removeprefix(NAME_MARK) for v in key_values} if not routine else set()
            if not vs:
                plains.append(())
                continue
            value_counts.update(vs)
            # filed under each value and what it refines: a path under its file name, a
            # model tag under its model (buyer-leads.csv finds leads/buyer-leads.csv)
            for v in {*vs, *(refinements(v) for v in vs if "/" in v or ":" in v)}:
                by_value[v].append(i)
            plains.append(tuple(vs))
        # the rarest values first (by how many entries have them, then by value)
        self.anchor: list[tuple[str, ...]] = [
            tuple(sorted(vs, key=lambda v: (value_counts[v], v))[:CONTAINED_KEYS]) if vs else ()
            for vs in plains
        ]
        # what only one entry is filed under finds no other entry: not kept (most values and
        # features), and let go, with the counts, before the features are filed (50 MB)
        value_counts.clear()
        del plains
        self.by_value = {v: filed for v, filed in by_value.items() if len(filed) > 1}
        del by_value

        # filed under each heavy feature (the postings as arrays: a list holds 8 bytes an entry)
        by_feature: dict[str, array[int]] = defaultdict(lambda: array("i"))
        totals = array("d")
        heavies: list[tuple[tuple[str, ...], tuple[float, ...]] | None] = []
        for i, ((all_names, all_weights), anchor) in enumerate(zip(features, self.anchor, strict=True)):
            totals.append(sum(all_weights))
            if self.routine[i]:
                heavies.append(None)
                continue
            heavy = [(f, w) for f, w in zip(all_names, all_weights, strict=True) if w >= HEAVY]
            for f, _ in heavy:
                by_feature[f].append(i)
            heavies.append(
                None if anchor or not heavy else (tuple(f for f, _ in heavy), tuple(w for _, w in heavy))
            )
        self.by_feature = {f: filed for f, filed in by_feature.items() if len(filed) > 1}
        del by_feature
        kept = self.by_feature

        def entries_with(f: str) -> int:  # (every heavy feature is filed: one entry if not kept)
            return len(kept.get(f, _NOWHERE)) or 1

        dice = max(0.0, threshold - VALUE_SLACK)
        share = dice / (2 - dice)  # of its weight an entry shares at least with its match
        self.rarest: list[tuple[str, ...]] = []
        self.probes: list[tuple[str, ...]] = []
        for i, held in enumerate(heavies):
            if held is None:
                self.rarest.append(())
                self.probes.append(())
                continue
            heavies[i] = None
            # the rarest first (by how many entries have them, then by name: no map of every
            # feature's place is made, 20 MB on a decade)
            names = sorted(held[0], key=lambda f: (entries_with(f), f))
            self.rarest.append(tuple(names[:CONTAINED_KEYS]))
            weights = dict(zip(*held, strict=True))
            need, rest, prefix = totals[i] * share, totals[i], []
            for f in names:
                prefix.append(f)
                rest -= weights[f]
                if rest < need - MAX_WEIGHT:
                    break
            self.probes.append(tuple(f for f in prefix if entries_with(f) <= common))
        self.totals = totals

    def near(self, i: int) -> set[int]:
        """The entries entry i is worth judging against (i itself left out)."""
        n = self.totals[i]
        low, high = n * PAIR_SHARE, n / PAIR_SHARE
        totals = self.totals
        anchor = self.anchor[i]
        seen: set[int] = set()
        if self.routine[i]:
            seen.update(self.by_day[self.day[i]])
        if anchor:
            lists = sorted((self.by_value.get(v, _NOWHERE) for v in anchor), key=len)
            if len(lists) == 1:
                seen.update(lists[0])
            else:
                seen.update(_in_all(lists[0], lists[1:]))
        rarest = self.rarest[i]
        if rarest:
            filed = sorted((self.by_feature.get(f, _NOWHERE) for f in rarest), key=len)
            seen.update(_in_all(filed[0], filed[1:]))
        probes = self.probes[i]
        if len(probes) >= 2:
            hits: Counter[int] = Counter()
            for f in probes:
                hits.update(self.by_feature.get(f, _NOWHERE))
            seen.update(j for j, k in hits.items() if k >= 2)
        seen.discard(i)
        return {j for j in seen if low <= totals[j] <= high}


_NOWHERE: array[int] = array("i")  # what a look-up finds of what one entry alone has, but it


def _in_all(shortest: Sequence[int], others: Sequence[Sequence[int]]) -> Iterator[int]:
    """The entries of the shortest list that every other list holds too. Each list is
    filed in order of the entries, so a look-up is a binary search (a set of each feature's
    entries, made once and kept, was 50 MB on a decade)."""
    for j in shortest:
        for other in others:
            k = bisect_left(other, j)
            if k == len(other) or other[k] != j:
                break
        else:
            yield j


def refinements(value: str) -> str:
    """What a value names more fully than: a path its file, a model tag its model
    (leads/buyer-leads.csv: buyer-leads.csv; gemma3:4b: gemma3); itself for anything else."""
    if "/" in value.rstrip("/"):
        return value.rstrip("/").rsplit("/", 1)[-1]
    head, colon, _ = value.partition(":")
    return head if colon and head and not head.isdigit() and "//" not in value else value


def candidate_pairs(
    features: Sequence[Mapping[str, float]],
    value_sets: Sequence[Collection[str]],
    threshold: float,
    common: int = COMMON,
) -> Iterator[tuple[int, int]]:
    """Pairs (i, j), i < j, worth judging (see `Blocking`), each once; `features`: each
    entry's sketch (judgement.wording.sketch)."""
    blocking = Blocking([terms(fs) for fs in features], value_sets, threshold, common)
    yield from Candidates(blocking, len(features))


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
    values: tuple[str, ...]  # sorted (see `held_values`)
    negative: bool
    routine: bool
    done: bool | None
    members: int | list[int]  # its items: the one (most keys), or a list (see `all_members`)
    text: str
    day: date | None  # the day of a routine event (its key holds that day's copies only)
    # the days of its members: one tuple for each day its one member has, shared by the keys
    # of that day (a tuple each was 9 MB on a decade); a set while they are found
    days: Collection[date | None]
    status: frozenset[str]  # ok, open, bad: its checkbox and status marks

    def all_members(self) -> Sequence[int]:
        """Its members: the items that hold its text."""
        members = self.members
        return members if type(members) is list else (members,)  # type: ignore[return-value]


def values_agree(a: frozenset[str], b: frozenset[str]) -> bool:
    """One entry's values inside the other's (the fuller one is kept): "assigned to Mia" is
    not "assigned to Talia", "port 8080" not "port 9090"."""
    plain_a = {v.removeprefix(NAME_MARK) for v in a}
    plain_b = {v.removeprefix(NAME_MARK) for v in b}
    return plain_a <= plain_b or plain_b <= plain_a


# What dedupe compares of a text: as `describe` gives it, or with its values held as
# `held_values` gives them (a run that holds every text of a decade).
Values = frozenset[str] | tuple[str, ...]  # a set, or held as a sorted tuple (`held_values`)
Description = tuple[str, Values, bool]


def held_values(values: Collection[str]) -> tuple[str, ...]:
    """A text's values as a run that holds many of them keeps them: sorted, in a tuple. A
    set of five values holds 472 bytes, the tuple 80; 200,000 texts hold 65 MB less so. A
    tuple is taken as already held so (sorted, each value once): equal values must be equal
    tuples, or two keys of one fact would be two."""
    return values if type(values) is tuple else tuple(sorted(values))


T = TypeVar("T")


class Mapper(Protocol):
    """Applies a function of one text to many texts, in this process or on every core."""

    def __call__(self, function: Callable[[str], T], texts: Sequence[str]) -> list[T]: ...


def serial_map(function: Callable[[str], T], texts: Sequence[str]) -> list[T]:
    return [function(t) for t in texts]


class _Judged(Protocol):
    @property
    def same(self) -> bool: ...

    @property
    def similarity(self) -> float: ...


def duplicate_groups(
    items: Sequence[Item],
    threshold: float,
    mapper: Mapper = serial_map,
    described: Mapping[str, Description] | None = None,
    memo: Memo | None = None,
) -> list[Group]:
    """Groups of two or more items that state the same fact, each with the item to keep.

    Whether two items state the same fact is judgement.duplicates' verdict; this finds the
    pairs worth asking about and folds the answers into groups in which every member is the
    same fact as the kept one, and the kept one holds everything every member says.
    `mapper` applies `describe` to every distinct text not already in `described`, and
    judges each entry's candidates; a caller may run both in parallel. `memo`: each text's
    sketch, values and shape, and each pair's verdict, as worked out last time (core.memo).
    """
    from memcli.core.judgement.wording import status_marks

    memo = memo or Memo()
    statuses, sketches = (memo.table(f"duplicates.{n}") for n in ("status", "sketch"))
    keys: dict[tuple[object, ...], _Key] = {}
    known = described or {}
    distinct = [t for t in dict.fromkeys(item.text for item in items) if t not in known]
    described = {**known, **dict(zip(distinct, mapper(describe, distinct), strict=True))}
    one_day: dict[date | None, tuple[date | None]] = {}
    for i, item in enumerate(items):
        norm, described_values, neg = described[item.text]
        if not norm:
            continue
        vals = held_values(described_values)
        # A routine event ("heartbeat OK") recurs: copies on different days are separate
        # events, so a routine text is one key per day and is matched within its day only.
        day = (item.date,) if item.routine else ()
        status: frozenset[str] = statuses.get(item.text, status_marks, item.text)
        ident = (norm, vals, neg, item.done, status, *day)
        key = keys.get(ident)
        if key is None:
            days = one_day.get(item.date)
            if days is None:
                days = one_day[item.date] = (item.date,)
            keys[ident] = _Key(
                norm, vals, neg, item.routine, item.done, i, item.text, item.date, days, status
            )
        else:
            if type(key.members) is list:
                key.members.append(i)
            else:
                key.members = [key.members, i]  # type: ignore[list-item]
            key.days = _with_day(key.days, item.date)
    unique = list(keys.values())
    del keys, described, known  # (what found the keys is not needed again)
    values = _value_keys(unique)  # (worked out once a key, not remembered by the module)
    vocabulary = _vocabulary_of(sketches)
    features = _sketches(unique, sketches, vocabulary)
    if vocabulary.base == 0:  # (a new vocabulary: what it holds now is its size)
        vocabulary.base = len(vocabulary.names)
    elif vocabulary.crowded(sum(map(features_in, features))):  # numbered again
        features = _sketches(unique, sketches, vocabulary.compacted(sketches))
    # the tables are done with before the blocking is built: stored (and let go) while
    # the run holds the least it will (storing the sketches takes 30 MB for a moment)
    del statuses, sketches
    memo.finish("duplicates.status", "duplicates.sketch")
    blocking = Blocking(
        _read_as(terms_of, features),
        _Worked(lambda i: _with_words(values[i], unique[i].values), len(unique)),
        threshold,
        days=_Worked(lambda i: (unique[i].routine, unique[i].days), len(unique)),
    )
    del features, vocabulary  # (what the blocking was built from is let go before the pairs are judged)
    candidates = Candidates(blocking, len(unique))
    # the candidates are all found: what found them is let go before the verdicts of last
    # time are loaded and the pairs judged (they have the room the blocking took, 100 MB
    # on a decade)
    del blocking
    verify = _Verifier(unique, values, candidates, threshold, memo)
    here = verify.pairs(candidates) if len(candidates) < JUDGED_HERE else verify.known_pairs(candidates)
    if here is not None:  # (few pairs, or a run that knows most verdicts from the memo)
        found = [here]
    else:  # each entry judges its own candidates on every core (when `mapper` can)
        found = []
        for pairs, judged in mapper(verify, [str(i) for i in range(len(unique))]):
            found.append(pairs)
            for a, b, verdict in judged:  # what a worker judged, for the next run
                verify.verdicts.learn((unique[a].text, unique[b].text), verify.shared(verdict))
        # what the workers found in the memo: kept while both texts are in the workspace
        alive = {k.text for k in unique}
        verify.verdicts.keep(lambda pair: pair[0] in alive and pair[1] in alive)
    # each candidate pair is judged once, from its earlier entry: no pair is found twice
    scored = sorted({t for part in found for t in part}, key=lambda t: (-t[0], t[1], t[2]))
    parent = array("i", range(len(unique)))

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    # the keys of each group merged so far, by its root (a key no pair joined is a group of
    # its own, held by no list: a list for each of a decade's keys was 25 MB)
    merged: dict[int, list[int]] = {}
    for _, a, b in scored:
        ra, rb = find(a), find(b)
        if ra == rb:
            continue
        joined = merged.get(ra, [ra]) + merged.get(rb, [rb])
        if not verify.holds(joined, items):
            continue
        parent[rb] = ra
        merged[ra] = joined
        merged.pop(rb, None)
    roots = (k for k in range(len(unique)) if parent[k] == k)
    groups = [g for g in (verify.group(merged.get(k, [k]), items) for k in roots) if g is not None]
    memo.finish(*(f"duplicates.{n}" for n in ("status", "sketch", "shape", "judged")))
    return sorted(groups, key=lambda g: g.keep)


def _with_day(days: Collection[date | None], day: date | None) -> Collection[date | None]:
    """A key's days with one more: most have a day or two, which a tuple holds in a fifth of
    a set's memory; past four, a set."""
    if type(days) is set:
        days.add(day)
        return days
    if day in days:
        return days
    return (*days, day) if len(days) < 4 else {*days, day}


class _Worked(Sequence[T]):
    """What the blocking reads of each key, worked out each time it is read rather than
    held for all of them while the blocking is built (a decade's value keys with their
    words were 50 MB more at the run's peak)."""

    def __init__(self, work: Callable[[int], T], size: int) -> None:
        self.work = work
        self.size = size

    def __len__(self) -> int:
        return self.size

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> Sequence[T]: ...

    def __getitem__(self, i: int | slice) -> T | Sequence[T]:
        if isinstance(i, slice):
            return [self.work(k) for k in range(self.size)[i]]
        if not -self.size <= i < self.size:
            raise IndexError(i)
        return self.work(i % self.size)

    def __iter__(self) -> Iterator[T]:  # (in order, without a bounds check a read)
        return map(self.work, range(self.size))


def _value_keys(unique: Sequence[_Key]) -> _Worked[frozenset[str]]:
    """Each key's values as the verdict compares them (wording.value_keys), worked out once
    and made a set when read. Where they differ from the key's values (a concept's name, a
    compound word: most keys of a decade) they are held as a tuple: a set of five or more
    values holds five times a tuple's memory, 60 MB for a decade's keys."""
    from memcli.core.judgement.wording import value_keys_once

    differ: list[tuple[str, ...] | None] = []
    keyed: dict[str, str | None] = {}  # (each value's key, worked out once: let go on return)
    for k in unique:
        found = value_keys_once(k.values, keyed)
        same = len(found) == len(k.values) and found.issuperset(k.values)
        differ.append(None if same else tuple(found))

    def read(i: int) -> frozenset[str]:
        held = differ[i]
        return frozenset(unique[i].values if held is None else held)

    return _Worked(read, len(unique))


def _sketches(unique: Sequence[_Key], table: Table, vocabulary: Vocabulary) -> list[Sketch]:
    """Each key's sketch, as last time when the table holds it (a routine event has none:
    it is matched within its day)."""
    return [
        table.get(k.text, vocabulary.sketch, k.norm, k.values) if not k.routine else NO_SKETCH for k in unique
    ]


def _read_as(function: Callable[[Any], T], items: Sequence[Any]) -> _Worked[T]:
    """The items, each read by `function` when it is read (a kept sketch as its terms)."""
    return _Worked(lambda i: function(items[i]), len(items))


def _with_words(keys: frozenset[str], values: Values) -> frozenset[str]:
    """An entry's value keys and the identifiers among its values joined by hyphens
    (atlas-api): words to the verdict, but rare enough to find its restatements by. The
    keys themselves when there are none (most entries: a copy each would cost 80 MB)."""
    words = {v for v in values if "-" in v and v.replace("-", "").isalpha()}
    return keys | words if words and not words <= keys else keys


Terms = tuple[tuple[str, ...], Sequence[float]]  # a sketch's features, and their weights


def terms(sketch: Mapping[str, float]) -> Terms:
    """A sketch as the blocking reads it (`candidate_pairs`; the duplicate finder keeps
    its sketches numbered by a `Vocabulary` and reads them so by `terms_of`)."""
    return tuple(map(sys.intern, sketch)), array("d", sketch.values())


Sketch = tuple["Vocabulary", bytes]  # a sketch as the memo keeps it (see `Vocabulary`)


class Vocabulary:
    """The features and weights of many sketches, each numbered once: a sketch is kept as
    its vocabulary and one bytes object, each feature's number (four bytes) then each
    weight's, in the sketch's order, and last how many bytes a weight's number takes (one
    while the vocabulary has no more than 256 weights: the rules weigh by a handful).
    Loading a decade's 188,000 sketches added 200 MB as a tuple of names and an array of
    weights each, 104 MB with four bytes a weight, and adds 80 MB so; the memo pickles the
    vocabulary once, with the first sketch that refers to it."""

    def __init__(self, names: Sequence[str] = (), weights: Sequence[float] = (), base: int = 0) -> None:
        self.names = list(names)
        self.weights = list(weights)
        self.base = base  # how many names it had when it was last numbered (0: new)
        # the names numbered this run, by their number: a name numbered in an earlier run
        # and met again in a new text is numbered again (a map of every name would hold
        # 20 MB for a decade's few dozen new texts), until the vocabulary is numbered anew
        self._numbers: dict[str, int] = {}
        self._weight_numbers: dict[float, int] | None = None

    def __eq__(self, other: object) -> bool:  # (the same numbering: sketches read the same)
        return isinstance(other, Vocabulary) and (self.names, self.weights) == (other.names, other.weights)

    __hash__ = None  # type: ignore[assignment]  # (it learns new names)

    def __reduce__(self) -> tuple[type[Vocabulary], tuple[list[str], list[float], int]]:
        return (Vocabulary, (self.names, self.weights, self.base))

    def sketch(self, norm: str, values: Values) -> Sketch:
        from memcli.core.judgement.wording import sketch

        return self.kept(sketch(norm, values))

    def kept(self, weights: Mapping[str, float]) -> Sketch:
        """A sketch (feature: weight) numbered by this vocabulary, which learns what it
        has not seen."""
        if self._weight_numbers is None:  # (a handful: the rules' weights)
            self._weight_numbers = {w: k for k, w in enumerate(self.weights)}
        numbers, weight_numbers = self._numbers, self._weight_numbers
        ids = array("I")
        codes = array("I")  # (one byte each when the weights fit: see the docstring)
        for name, weight in weights.items():
            k = numbers.get(name)
            if k is None:
                k = numbers[name] = len(self.names)
                self.names.append(sys.intern(name))
            c = weight_numbers.get(weight)
            if c is None:
                c = weight_numbers[weight] = len(self.weights)
                self.weights.append(weight)
            ids.append(k)
            codes.append(c)
        if len(self.weights) <= 256:
            return (self, ids.tobytes() + array("B", codes).tobytes() + b"\x01")
        return (self, ids.tobytes() + codes.tobytes() + b"\x04")

    def crowded(self, in_use: int) -> bool:
        """Whether it holds many more names than the sketches use (`in_use`: the features
        they hold, a name counted as often as it is held): a quarter more than when it was
        last numbered (a name met again in a new text is numbered again), or twice as many
        as they hold (their texts are gone: a gc archived them)."""
        names = len(self.names)
        return names > 1024 and (names > self.base + self.base // 4 or names > 2 * in_use)

    def compacted(self, table: Table) -> Vocabulary:
        """A vocabulary of only the names the sketches this run asked for use (the others'
        texts are gone), and those sketches numbered by it: it follows the workspace, as the
        tables do. This one is left as it is: a sketch numbered by it still reads the same."""
        fresh = Vocabulary()
        # (an empty sketch too: one left with this vocabulary would have it stored again)
        table.remap(lambda found: fresh.kept(dict(zip(*terms_of(found), strict=True))))
        fresh.base = len(fresh.names)
        fresh._numbers = {}
        return fresh


NO_SKETCH: Sketch = (Vocabulary(), b"")


def _vocabulary_of(table: Table) -> Vocabulary:
    """The vocabulary the table's sketches are numbered by; a new one for a new table."""
    found = table.sample()
    return found[0] if isinstance(found, tuple) and isinstance(found[0], Vocabulary) else Vocabulary()


def terms_of(sketch: Sketch) -> Terms:
    """A kept sketch's features and weights, as the blocking reads them."""
    vocabulary, data = sketch
    if not data:
        return (), ()
    width = data[-1]
    n = (len(data) - 1) // (4 + width)
    view = memoryview(data)
    names, weights = vocabulary.names, vocabulary.weights
    return tuple(map(names.__getitem__, view[: 4 * n].cast("I"))), tuple(
        map(weights.__getitem__, view[4 * n : -1].cast("B" if width == 1 else "I"))
    )


def features_in(sketch: Sketch) -> int:
    """How many features a kept sketch holds."""
    data = sketch[1]
    return (len(data) - 1) // (4 + data[-1]) if data else 0


class Candidates:
    """The pairs (a, b), a < b, that the blocking proposes, each once, in order: the later
    entries each entry is judged against, end to end in one array, and where each entry's
    run of them ends (a set of pairs as tuples holds ten times the memory, an array per
    entry twice)."""

    def __init__(self, blocking: Blocking, size: int) -> None:
        later: list[array[int] | None] = [None] * size  # (most entries have none)
        for i in range(size):
            for j in blocking.near(i):
                a, b = (i, j) if i < j else (j, i)
                found = later[a]
                if found is None:
                    found = later[a] = array("i")
                found.append(b)
        self.flat: array[int] = array("i")
        self.ends: array[int] = array("q")
        for a, js in enumerate(later):
            if js is not None:
                self.flat.extend(sorted(set(js)))
                later[a] = None
            self.ends.append(len(self.flat))

    def __len__(self) -> int:
        return len(self.flat)

    def later(self, a: int) -> array[int]:
        """The entries after `a` that `a` is judged against."""
        return self.flat[self.ends[a - 1] if a else 0 : self.ends[a]]

    def __iter__(self) -> Iterator[tuple[int, int]]:
        flat, start = self.flat, 0
        for a, end in enumerate(self.ends):
            for k in range(start, end):
                yield a, flat[k]
            start = end


class _Verifier:
    """Entry i's duplicates among its candidates: (similarity, a, b) with a < b.
    Called with the entry's index as text, so that a mapper can run it in forked workers,
    which inherit the shapes instead of receiving them."""

    def __init__(
        self,
        unique: Sequence[_Key],
        values: Sequence[frozenset[str]],
        candidates: Candidates,
        threshold: float,
        memo: Memo,
    ) -> None:
        self.unique = unique
        self.values = values
        self.candidates = candidates
        self.threshold = threshold
        self.shapes = _Shapes(unique, memo.table("duplicates.shape", stored=False))
        self.verdicts = memo.table("duplicates.judged")  # (text, text) -> (same, similarity)
        self.judged: list[tuple[int, int, tuple[bool, float]]] | None = None
        self.verdict_objects: dict[tuple[bool, float], tuple[bool, float]] = {}
        from memcli.core.judgement.duplicates import judge, may_be_same
        from memcli.core.judgement.wording import values_nest

        # (imported once: a decade judges millions of pairs)
        self.verdict_of, self.may_be_same, self.values_nest = judge, may_be_same, values_nest

    def _apart_by_key(self, a: int, b: int) -> bool:
        """Done and open, a routine event of another day, another status: what the two keys
        say beyond their texts."""
        ka, kb = self.unique[a], self.unique[b]
        if ka.done is not None and kb.done is not None and ka.done != kb.done:
            return True
        if (ka.routine and ka.day not in kb.days) or (kb.routine and kb.day not in ka.days):
            return True  # a routine event on another day is another event
        return bool(ka.status and kb.status and ka.status != kb.status)

    def _values_nest(self, a: int, b: int) -> bool:
        if not self.unique[a].values and not self.unique[b].values:
            return True  # (most keys have none)
        return self.values_nest(self.values[a], self.values[b])

    def judge(self, a: int, b: int) -> _Judged:
        if self._apart_by_key(a, b):
            return _NOT_SAME
        ka, kb = self.unique[a], self.unique[b]
        key = (ka.text, kb.text)
        # a verdict is kept only for a pair whose values nest, and values are the texts':
        # a pair the memo holds needs no look at its values (nine in ten of a decade's)
        known = self.verdicts.peek(key)
        if known is None:
            if not self._values_nest(a, b):
                return _NOT_SAME
            known = self.verdicts.get(key, lambda: self._judge(a, b))
            if self.judged is not None:
                self.judged.append((a, b, known))
        return _Different(*known) if not known[0] else _Same(known[1])

    def known_pairs(self, pairs: Iterable[tuple[int, int]]) -> list[tuple[float, int, int]] | None:
        """`pairs(pairs)` when fewer than JUDGED_HERE of them need a verdict the memo does
        not hold, else None (they are judged on every core). One pass: the pairs the memo
        knows are read as they come, the others set aside and judged, in order, at the end
        (a verdict of last time read here is kept as if a worker had read it: see
        `Memo.keep`)."""
        if not self.verdicts.loaded:
            return None
        out: list[tuple[float, int, int]] = []
        unknown: list[tuple[int, int]] = []
        unique, peek = self.unique, self.verdicts.peek
        for a, b in pairs:
            if self._apart_by_key(a, b):
                continue
            known = peek((unique[a].text, unique[b].text))
            if known is None:
                if self._values_nest(a, b):
                    unknown.append((a, b))
                    if len(unknown) >= JUDGED_HERE:
                        return None
            elif known[0]:
                out.append((known[1], a, b))
        return out + self.pairs(unknown)

    def _judge(self, a: int, b: int) -> tuple[bool, float]:
        shapes = self.shapes
        if not self.may_be_same(shapes.reach(a), shapes.reach(b), self.threshold):
            return _NOT_SAME_VERDICT  # (what `judge` would say, for a fifth of the cost)
        verdict = self.verdict_of(shapes[a], shapes[b], self.threshold)
        return self.shared((verdict.same, verdict.similarity))

    def shared(self, verdict: tuple[bool, float]) -> tuple[bool, float]:
        """One object for equal verdicts: most are "not the same", and the memo keeps them
        all. How near a pair that is not the same came is read nowhere (a group's similarity
        is its members' to the kept one, each the same fact), so all of them are one."""
        if not verdict[0]:
            return _NOT_SAME_VERDICT
        return self.verdict_objects.setdefault(verdict, verdict)

    def __call__(self, index: str) -> tuple[list[tuple[float, int, int]], list[Any]]:
        """Entry `index`'s duplicates, and the verdicts judged here that were not known
        (a worker's answers go back to the parent, which keeps them for the next run)."""
        i = int(index)
        self.judged = []
        try:
            found = self.pairs((i, j) for j in self.candidates.later(i))
            return found, self.judged
        finally:
            self.judged = None

    def pairs(self, pairs: Iterable[tuple[int, int]]) -> list[tuple[float, int, int]]:
        """The pairs that are the same fact, each as (similarity, a, b)."""
        out = []
        for a, b in pairs:
            verdict = self.judge(a, b)
            if verdict.same:
                out.append((verdict.similarity, a, b))
        return out

    def keeper(self, keys: Iterable[int], items: Sequence[Item]) -> tuple[int, int]:
        """The member kept: in MEMORY.md, else the one that says most, else the earliest."""

        def completeness(km: tuple[int, int]) -> tuple[int, float, int, date, int]:
            k, m = km
            item = items[m]
            return (
                0 if item.in_core else 1,
                -self.shapes[k].heavy,
                -len(self.unique[k].norm),
                item.date or date.min,
                m,
            )

        return min(((k, m) for k in keys for m in self.unique[k].all_members()), key=completeness)

    def holds(self, keys: list[int], items: Sequence[Item]) -> bool:
        """A merged group must have a keeper that every member is the same fact as, and that
        holds every value and word of every member: nothing a duplicate had may be lost."""
        keeper, _ = self.keeper(keys, items)
        from memcli.core.judgement.wording import covers

        kept = self.shapes[keeper]
        kept_has = frozenset(kept.weights.keys() | {v.removeprefix(NAME_MARK) for v in kept.values})
        kept_heavy = {f for f, w in kept.weights.items() if w >= HEAVY}
        for k in keys:
            if k == keeper:
                continue
            other = self.shapes[k]
            if not covers(kept_has, frozenset(v.removeprefix(NAME_MARK) for v in other.values)):
                return False
            if not self.judge(*sorted((keeper, k))).same:
                return False
            adds = any(w >= HEAVY and f not in kept.weights for f, w in other.weights.items())
            if adds and kept_heavy <= other.weights.keys():
                return False  # the member holds all of the kept one and more
        return True

    def group(self, keys: list[int], items: Sequence[Item]) -> Group | None:
        if sum(len(self.unique[k].all_members()) for k in keys) < 2:
            return None
        keeper_key, keeper = self.keeper(keys, items)
        dups: list[tuple[int, float]] = []
        for k in keys:
            sim = 1.0 if k == keeper_key else self.judge(*sorted((keeper_key, k))).similarity
            dups.extend((m, sim) for m in self.unique[k].all_members() if m != keeper)
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


class _Shapes:
    """Each key's shape, read when first asked for (in the process that asks: a forked
    worker reads those of the pairs it judges)."""

    def __init__(self, unique: Sequence[_Key], known: Table) -> None:
        self.unique = unique
        self.known = known
        self.read: dict[int, Any] = {}
        self.reaches: dict[int, Any] = {}

    def reach(self, k: int) -> Any:
        """Key k's `judgement.duplicates.Reach`, read once."""
        found = self.reaches.get(k)
        if found is None:
            from memcli.core.judgement.duplicates import reach

            found = self.reaches[k] = reach(self[k])
        return found

    def __getitem__(self, k: int) -> Any:
        found = self.read.get(k)
        if found is None:
            from memcli.core.judgement.wording import shape

            key = self.unique[k]
            found = self.read[k] = self.known.get(
                key.text, lambda: shape(key.text, (key.norm, key.values, key.negative), key.status)
            )
        return found


@dataclass(frozen=True, slots=True)
class _Different:
    same: bool = False
    similarity: float = 0.0


@dataclass(frozen=True, slots=True)
class _Same:
    similarity: float
    same: bool = True


_NOT_SAME = _Different()
_NOT_SAME_VERDICT = (False, 0.0)
