"""What an entry is about, for telling whether a newer entry replaces or corrects it.

An entry's words (`Words`): its content words (English stems and compounds, Chinese runs
cut at function words), its values (numbers, times, dates, versions), and a few virtual
words: the kind of thing a name is (`Neovim` is an editor), and the attribute a word or a
value names (`schedule` and `02:00` are both a time). A file path is one name, whichever
way its slashes lean (`C:\\Users\\lin\\atlas` is "c:/users/lin/atlas"), and names its attribute
("#path"); "1,200" is one number. A number, a function word or a common verb is never a
subject.

`subject_tokens` and `retired_object` are the older, flat view (used by `memcli check`).
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable
from dataclasses import dataclass

from memcli.core.judgement.kinds import (
    FUNCTION,
    PAIR_FIRSTS,
    PAIRS,
    PHRASE,
    PHRASES,
    SINGLE,
    SINGLE_WORDS,
    WEAK_ZH,
    ZH_CUT,
)
from memcli.core.similarity import normalise

_WORD = re.compile(r"[a-z][a-z0-9_]{2,}|\d+(?:[.:]\d+)*")
_CJK_RUN = re.compile(r"[\u2e80-\u9fff\uf900-\ufaff]+")

STOP = frozenset(
    """
    about after again all also and any are been before being but can correct correction could did
    does don don't done each every for from get got had has have her here his how incorrect instead
    into its just longer lot lots may might migrated more most move moved must new not now off old
    once only onto other our ours out over per rather replaced set should some still switch switched
    than that that's thats the their them then there they this too under use used uses using very
    via was were what when where which who whom why will with would wrong yet you your
    """.split()
)
STOP_BIGRAMS = frozenset(
    "一个 上次 不再 不对 不要 了的 以后 取代 可以 已经 应该 我们"
    " 换了 换成 改成 改用 是错 替换 现在 用的 的是 这个 这样 错了 错的".split()
)


def subject_tokens(text: str, drop: Iterable[str] = (), norm: str | None = None) -> frozenset[str]:
    """Content tokens of an entry's text (cue phrases in `drop` removed first); `norm` is
    the text already normalised, when the caller has it."""
    if norm is None:
        norm = normalise(text)
    for phrase in drop:
        norm = norm.replace(normalise(phrase), " ")
    tokens = {w for w in _WORD.findall(norm) if w not in STOP}
    for run in _CJK_RUN.findall(norm):
        if len(run) == 1:
            continue
        tokens.update(run[i : i + 2] for i in range(len(run) - 1))
    return frozenset(t for t in tokens if t not in STOP_BIGRAMS)


_BREAK = re.compile(r"[,.;:!?，。；：！？、()（）\n]")


def retired_object(scanned: str, cue: str) -> frozenset[str]:
    """The tokens of what follows the cue that gives something up ("no longer on Windows",
    "不再用 MySQL", "instead of npm") up to the end of its clause."""
    at = scanned.find(cue)
    if at < 0:
        return frozenset()
    clause = _BREAK.split(scanned[at + len(cue) :], maxsplit=1)[0]
    return subject_tokens(clause)


# --- words ---------------------------------------------------------------------------------

_PARTS = re.compile(r"[-_/]")
_ASCII = re.compile(r"[a-z][a-z0-9]*")
_COMPOUND = re.compile(r"(?<![a-z0-9])[a-z0-9]+(?:[-_./][a-z0-9]+)+")

# values: numbers with what makes them a time, date, percentage or version
VALUE = re.compile(
    r"(?<![a-z0-9_.\-/])(?:\d{4}-\d{1,2}-\d{1,2}(?!\d)|\d{1,2}\s*月\s*\d{1,2}\s*[日号]|[一二两三四五六七八九十]{1,3}点半?|(?:v(?=\d))?(?:\d{1,3}(?:,\d{3})+(?!\d)|\d+)(?:[.:]\d+)*(?:\s?(?:%|am|pm|点半|点|时|月|日|号|天|h|ms|s|gb|mb|k|x|倍|次|个|元|块|usdt|usd|rmb))?)(?![a-z0-9_]|\.[a-z0-9])"
)
_WORDS = re.compile(r"[a-z][a-z0-9+#]*(?:[-_./'][a-z0-9]+)*")
_CJK = re.compile(r"[\u2e80-\u2fff\u3040-\u9fff\uf900-\ufaff]+")  # (not its punctuation: "。")
# a file path: absolute, from home, from a drive or a variable, or relative with backslashes
_PATH = re.compile(
    r"(?<![\w/\\~%.])(?:[a-z]:[\\/]|~[\\/]|%[a-z_]+%[\\/]|\.{1,2}[\\/]|[\\/](?=[\w.~-]))"
    r"[\w.~%\-]*(?:[\\/][\w.~%\-]+)*[\\/]?"
    r"|(?<![\w/\\])[\w.\-]+(?:\\[\w.\-]+)+"
)
_MONTH = re.compile(r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+\d")
_WEEKDAY = frozenset(
    "monday tuesday wednesday thursday friday saturday sunday mon tue wed thu fri sat sun".split()
)
_ZH_WEEKDAY = re.compile(r"(?:周|星期|礼拜)[一二三四五六日天末]")


@functools.lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """A light English stem, the same on both sides of a comparison: backups -> backup,
    blocked / blocking -> block, deploys -> deploy."""
    if "-" in word or "." in word or "_" in word or "/" in word or word in SINGLE:
        return word  # (a compound, or a name: "windows" is not "window")
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 4 and word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is", "os")):
        word = word[:-1]
    if len(word) > 5 and word.endswith("ing"):
        return _undouble(word[:-3])
    if len(word) > 4 and word.endswith("ed"):
        return _undouble(word[:-2])
    return word


def _undouble(stem: str) -> str:
    """running -> run, stopped -> stop (not fill, pass, buzz)."""
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] in "bdgmnprt":
        return stem[:-1]
    return stem


_CLOCK = re.compile(r"\d{1,2}:\d{2}")
_ISO_DAY = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")


def value_kind(value: str) -> str:
    """time, date, percent, version or number."""
    if value.endswith(("am", "pm", "点", "点半", "时")) or _CLOCK.fullmatch(value):
        return "time"
    if value.endswith(("月", "日", "号")) or _ISO_DAY.fullmatch(value):
        return "date"
    if value.endswith("%"):
        return "percent"
    if value.startswith("v") or value.count(".") >= 1:
        return "version"
    return "number"


_LEADING_ZERO = re.compile(r"^0(\d:)")


def canonical(value: str) -> str:
    """A value as compared: no space before its unit, no leading zero on an hour."""
    value = value.replace(" ", "").replace(",", "")  # ("1,200": 1200)
    return _LEADING_ZERO.sub(r"\1", value) if value[0] == "0" else value


@dataclass(frozen=True, slots=True)
class Words:
    """What a piece of text says, as sets to compare."""

    words: frozenset[str]  # English stems and compounds, and virtual words (@kind, #attribute)
    values: frozenset[str]  # canonical values
    bigrams: frozenset[str]  # pairs of Chinese content characters
    runs: tuple[str, ...]  # Chinese content runs
    names: tuple[str, ...]  # English content words in order (stems), for coverage

    @property
    def content(self) -> frozenset[str]:
        """Everything but values and virtual words."""
        return frozenset(w for w in self.words if w[0] not in "@#") | self.bigrams

    @property
    def kinds(self) -> frozenset[str]:
        return frozenset(w for w in self.words if w[0] == "@")

    @property
    def empty(self) -> bool:
        """No words (values aside)."""
        return not self.names and not any(_strong(r) for r in self.runs)

    @property
    def blank(self) -> bool:
        """Nothing at all."""
        return self.empty and not self.values

    @property
    def ids(self) -> frozenset[str]:
        """Identifiers: names with a digit, a dot, a dash or a slash (atlas-api, vpn2.acme.io)."""
        return frozenset(n for n in self.names if _ID.search(n))

    def units(self) -> int:
        """How much there is to cover: two per English word, one per Chinese character."""
        return NAME_UNITS * len(self.names) + sum(_strong(r) for r in self.runs)


NAME_UNITS = 2  # an English word weighs as much as a two-character Chinese word
_ID = re.compile(r"[\d\-_./]")


def _strong(run: str) -> int:
    """The characters of a Chinese run that carry its meaning."""
    return sum(ch not in WEAK_ZH for ch in run)


EMPTY = Words(frozenset(), frozenset(), frozenset(), (), ())


@functools.lru_cache(maxsize=1 << 16)
def words_of(text: str) -> Words:
    """The words of (scanned: NFKC, case-folded) text (kept for the texts read lately: the
    supersede judgement reads the same clauses of many entries again and again)."""
    if not text.strip():
        return EMPTY
    words: set[str] = set()
    values: set[str] = set()
    for m in VALUE.finditer(text):
        value = canonical(m.group(0))
        values.add(value)
        words.add(f"#{value_kind(value)}")
    if _MONTH.search(text) or _ZH_WEEKDAY.search(text):
        words.add("#date")
    rest = VALUE.sub(" ", text)
    names: list[str] = []
    if "/" in text or "\\" in text:  # a path is one name, whichever way its slashes lean
        for m in _PATH.finditer(text):
            path = m.group(0).replace("\\", "/").rstrip("/.")
            if len(path) > 1:
                words.update((path, "#path"))
                names.append(path)
    if not rest.isascii():
        words.update(PHRASES[m.group(0)] for m in PHRASE.finditer(rest))
    previous = ""
    for m in _WORDS.finditer(rest):
        word = m.group(0).strip("'./-_")
        pair = PAIRS.get((previous, word))
        if pair is not None:
            words.add(pair)
        previous = word
        if len(word) < 2 or word in FUNCTION or word.endswith("n't"):
            continue  # (a negation, "doesn't", says nothing is so: no subject)
        virtual = SINGLE.get(word)
        if virtual is not None:
            words.add(virtual)
        if word in _WEEKDAY or word.rstrip("s") in _WEEKDAY:  # "mondays"
            words.add("#date")
        s = stem(word)
        if s in FUNCTION:
            continue
        words.add(s)
        names.append(s)
        if any(ch in word for ch in "-_/"):  # a compound counts whole, and by its parts
            for part in re.split(r"[-_/]", word):
                if len(part) >= 2 and part[0].isalpha() and part not in FUNCTION:
                    words.add(stem(part))
                    if part in SINGLE:
                        words.add(SINGLE[part])
    runs: list[str] = []
    bigrams: set[str] = set()
    for run in _CJK.findall(rest):
        for piece in ZH_CUT.split(run):
            if len(piece) < 2 or not _strong(piece):
                continue
            runs.append(piece)
            bigrams.update(piece[i : i + 2] for i in range(len(piece) - 1))
    return Words(frozenset(words), frozenset(values), frozenset(bigrams), tuple(runs), tuple(names))


def light_words(text: str) -> set[str]:
    """The keys a text is found by, made quickly: the stems of its English words (compounds
    whole and cut into their parts, numbers left out), its Chinese pairs, and the kinds of
    things it names. `keys_for` turns the names of `words_of` into these."""
    words = _ASCII.findall(text)
    out = set(map(stem, words))
    distinct = set(words)
    out.update(SINGLE[w] for w in distinct & SINGLE_WORDS)
    if distinct & PAIR_FIRSTS:
        out.update(PAIRS[p] for p in itertools.pairwise(words) if p in PAIRS)
    if not text.isascii():
        for run in _CJK.findall(text):
            out.update(run[i : i + 2] for i in range(len(run) - 1))
        out.update(PHRASES[m.group(0)] for m in PHRASE.finditer(text))
    if "-" in text or "." in text or "_" in text or "/" in text:
        out.update(_COMPOUND.findall(text))
    return out


def keys_for(names: Iterable[str]) -> frozenset[str]:
    """The keys (see `light_words`) of names `words_of` found: a compound whole (atlas-api),
    other words by their parts' stems."""
    keys: set[str] = set()
    for name in names:
        if _COMPOUND.fullmatch(name):
            keys.add(name)
        else:
            keys.update(map(stem, _ASCII.findall(name)))
    return frozenset(keys)


def ids_of(text: str) -> frozenset[str]:
    """The identifiers a text names (see `Words.ids`), without reading the rest of it."""
    words = (w.strip("'./-_") for w in _WORDS.findall(VALUE.sub(" ", text)))
    return frozenset(w for w in words if _ID.search(w) and w not in FUNCTION)


def merged(*parts: Words) -> Words:
    """The words of several pieces of text together."""
    return Words(
        frozenset().union(*(p.words for p in parts)),
        frozenset().union(*(p.values for p in parts)),
        frozenset().union(*(p.bigrams for p in parts)),
        tuple(r for p in parts for r in p.runs),
        tuple(n for p in parts for n in p.names),
    )


def coverage(phrase: Words, of: Words) -> tuple[int, int]:
    """How many of a phrase's units (English words, Chinese characters) the other text
    holds: (covered, total). A word naming an attribute is covered when the other text
    states that attribute ("schedule" by "02:00"); a Chinese character by any pair of
    characters the other text shares with it."""
    covered = 0
    for name in phrase.names:
        attribute = SINGLE.get(name, "")
        if name in of.words or (attribute.startswith("#") and attribute in of.words):
            covered += NAME_UNITS
    for run in phrase.runs:
        hit = [False] * len(run)
        for i in range(len(run) - 1):
            if run[i : i + 2] in of.bigrams:
                hit[i] = hit[i + 1] = True
        for name, virtual in PHRASES.items():
            if virtual[0] == "#" and not name.isascii() and name in run and virtual in of.words:
                at = run.find(name)
                for i in range(at, at + len(name)):
                    hit[i] = True
        covered += sum(h for h, ch in zip(hit, run, strict=True) if ch not in WEAK_ZH)
    return covered, phrase.units()


def covers(of: Words, phrase: Words, share: float = 0.75) -> bool:
    """Whether `of` holds at least `share` of the phrase, and at least one of its words or
    Chinese pairs itself (an attribute alone is no subject)."""
    got, total = coverage(phrase, of)
    if total == 0 or got < share * total:
        return False
    return bool(phrase.content & of.content)


def shared_subject(a: Words, b: Words) -> frozenset[str]:
    """Content both hold (values and virtual words left out: a number is no subject)."""
    return a.content & b.content
