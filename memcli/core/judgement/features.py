"""How a text is cut into weighed features (the duplicates judgement reads an entry with
them: judgement.wording).

The word lists (judgement.concepts, judgement.phrasing) become lookup tables: a Chinese
phrase or a group of English words stands for the features of its concept, for a negation
cue or for a comparison; an English word for its concept, or for its stem. A folded text
is cut into tokens, and each token into features: values (numbers, times, paths,
identifiers), concepts, other English words by their stem, and Chinese characters outside
known words. Each feature weighs what it tells: a value most, a character least, a
function word ("use", 用) little. Words and Chinese runs recur: what each stands for is
remembered.
"""

from __future__ import annotations

import re

from memcli.core.judgement import concepts as co
from memcli.core.judgement import phrasing as ph

VALUE, CONCEPT, WORD, CHAR, LIGHT = 1.5, 1.0, 1.0, 0.5, 0.25  # what a feature weighs
HEAVY = 0.5  # features weighing at least this carry the fact; lighter ones only shade it

Feature = tuple[str, float, str]  # feature, weight (negative: a negation cue), class or ""
DENY: Feature = ("", -1.0, "")
PIVOT: Feature = ("", -2.0, "")  # "over", "而不是": what stands on each side of it is the fact
# a unit after a number: "30 天" is "30 days"; a measure word alone says nothing
_UNITS_ZH = {"天": "day", "日": "day", "周": "week", "个月": "month", "月": "month", "年": "year",
             "小时": "hour", "分钟": "minute", "秒": "second", "行": "line", "名": "person",
             "位": "person", "人": "person", "个": "", "次": "", "倍": "times"}  # fmt: skip
_TOKEN = re.compile(r"[a-z0-9_~/.][a-z0-9_.:/\\~'-]*|[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]+")
_TRIM = ".:/-_'~\\"
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
COMPOUND = re.compile(r"[a-z]+(?:-[a-z]+)+")  # words joined by hyphens: design-team


def concept_feature(concept: str) -> Feature:
    return (concept, LIGHT if concept in co.LIGHT_CONCEPTS else CONCEPT, co.CLASSES.get(concept, ""))


def _lexicon() -> tuple[
    dict[str, tuple[Feature, ...]], dict[tuple[str, ...], tuple[Feature, ...]], dict[str, str]
]:
    """Chinese phrases and English word groups -> the features they stand for; English words
    (and their stems) -> concepts."""
    zh: dict[str, tuple[Feature, ...]] = {}
    multi: dict[tuple[str, ...], tuple[Feature, ...]] = {}
    words: dict[str, str] = {}

    def put(phrase: str, features: tuple[Feature, ...], first: bool = True) -> None:
        if phrase.isascii():
            key = tuple(map(ph.stem, phrase.split()))
            if first:
                multi.setdefault(key, features)
            else:
                multi[key] = features
        elif first:
            zh.setdefault(phrase, features)
        else:
            zh[phrase] = features

    for concept, english, chinese in co.CONCEPTS:
        for p in chinese:
            put(p, (concept_feature(concept),))
        for w in english:
            if w.isalpha():
                words.setdefault(w, concept)
                if w not in co.SURFACE_ONLY:
                    words.setdefault(ph.stem(w), concept)
            else:
                put(w, (concept_feature(concept),))
    for p in ph.LIGHT_ZH:
        put(p, ((p, LIGHT, ""),))
    for p in (*ph.NEGATIONS_ZH, *ph.NO_LONGER):
        put(p, (DENY,), first=False)
    for p in (*ph.NOT_NEGATIONS_ZH, *ph.NOT_NEGATIONS_EN):
        put(p, ((p, LIGHT, ""),), first=False)
    for concept, _, chinese in co.CONCEPTS:  # a concept word of its own overrides a cue in it
        for p in chinese:
            if p.startswith(("不", "无", "未", "没", "非")):
                put(p, (concept_feature(concept),), first=False)
    put("不同意", (DENY, concept_feature("accept")), first=False)
    for p in ph.COMPARATORS:
        if not p.isascii() or " " in p:
            put(
                p,
                (PIVOT, *(multi.get(tuple(map(ph.stem, p.split())), ()) if p.isascii() else zh.get(p, ()))),
                first=False,
            )
    return zh, multi, words


ZH, MULTI, WORDS = _lexicon()
ZH_LONGEST = max(map(len, ZH))
MULTI_LONGEST = max(map(len, MULTI))
STARTS = frozenset(key[0] for key in MULTI if len(key) > 1)
_MEMO: dict[str, tuple[Feature, ...]] = {}
_WORD_MEMO = _MEMO
_RUNS: dict[str, tuple[Feature, ...]] = {}
_ZH_PAIRS = frozenset(p[:2] for p in ZH if len(p) > 1)
_PIVOT_WORDS = frozenset(p for p in ph.COMPARATORS if p.isascii() and " " not in p)


def stem(token: str) -> str:
    found = _STEMS.get(token)
    if found is None:
        found = ph.stem(token)
        if len(_STEMS) < 100_000:
            _STEMS[token] = found
    return found


_STEMS: dict[str, str] = {}


def word(token: str) -> tuple[Feature, ...]:
    """The features of one English word (remembered: words recur)."""
    found = _MEMO.get(token)
    if found is not None:
        return found
    stemmed = ph.stem(token)
    concept = WORDS.get(token) or WORDS.get(stemmed)
    if token in ph.NEGATIONS_EN:
        found = (DENY,)
    elif token in _PIVOT_WORDS:
        found = (PIVOT, concept_feature(concept)) if concept is not None else (PIVOT,)
    elif token in ph.STOP_EN:
        found = ()
    elif concept is not None:
        found = (concept_feature(concept),)
    elif token in ph.LIGHT_EN or stemmed in ph.LIGHT_EN:
        found = ((stemmed, LIGHT, ""),)
    else:
        found = ((stemmed, WORD, ""),)
    if len(_MEMO) < 100_000:
        _MEMO[token] = found
    return found


def _chinese(run: str, after_number: bool) -> tuple[Feature, ...]:
    """A run of Chinese split into the known phrases (longest first) and single characters
    (remembered: runs recur)."""
    key = run if not after_number else "#" + run
    found = _RUNS.get(key)
    if found is not None:
        return found
    out: list[Feature] = []
    i, n = 0, len(run)
    if after_number and not any(run[:size] in ZH for size in range(min(ZH_LONGEST, n), 1, -1)):
        unit = run[:2] if run[:2] in _UNITS_ZH else run[:1] if run[:1] in _UNITS_ZH else ""
        if unit:
            if _UNITS_ZH[unit]:
                out.append((_UNITS_ZH[unit], CONCEPT, ""))
            i = len(unit)
    while i < n:
        if run[i : i + 2] in _ZH_PAIRS:
            for size in range(min(ZH_LONGEST, n - i), 1, -1):
                phrase = ZH.get(run[i : i + size])
                if phrase is not None:
                    out.extend(phrase)
                    i += size
                    break
            else:
                size = 0
            if size:
                continue
        ch = run[i]
        single = ZH.get(ch)
        if single is not None:
            out.extend(single)
        elif ch not in ph.STOP_ZH:
            out.append((ch, CHAR, ""))
        i += 1
    result = tuple(out)
    if len(_RUNS) < 50_000:
        _RUNS[key] = result
    return result


def features_of(folded: str) -> list[tuple[tuple[Feature, ...], str]]:
    """The features of a folded text in order, each group with the token it came from."""
    tokens = _TOKEN.findall(folded)
    out: list[tuple[tuple[Feature, ...], str]] = []
    append = out.append
    after_number = False
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        i += 1
        if token[0] >= "\u3040":
            append((_chinese(token, after_number), token))
            after_number = False
            continue
        token = token.strip(_TRIM)
        if not token:
            continue
        if token.isalpha() or (token.replace("'", "").isalpha() and token.isascii()):
            if stem(token) in STARTS:
                for size in range(min(MULTI_LONGEST, n - i + 1), 1, -1):
                    found = MULTI.get(tuple(stem(t.strip(_TRIM)) for t in tokens[i - 1 : i - 1 + size]))
                    if found is not None:
                        append((found, token))
                        i += size - 1
                        break
                else:
                    append((word(token), token))
            else:
                append((_WORD_MEMO.get(token) or word(token), token))
            after_number = False
        else:
            known = MULTI.get((token,))
            if known is None and COMPOUND.fullmatch(token):  # design-team reads as design team
                for part in token.split("-"):
                    append((word(part), part))
                after_number = False
                continue
            append((known if known is not None else ((token, VALUE, ""),), token))
            after_number = token.isdigit() or _NUMBER.fullmatch(token) is not None
    return out


def unprefixed(word: str) -> set[tuple[str, str]]:
    """A denied word with a negative prefix, and its base: incomplete -> (incomplet, complet)."""
    return {
        (ph.stem(word), ph.stem(word[len(p) :]))
        for p in ph.NEGATIVE_PREFIXES
        if word.startswith(p) and len(word) > len(p) + 3
    }
