"""What an older entry states, and of what (asked by judgement.supersede).

Whether a newer entry replaces an older one turns on what the older one states: `holds`
(all of a phrase's words, most of its Chinese characters, its values), `given_up` (what it
states that the newer one drops), `clauses_of` and `clauses_about` (its clauses; those about
a subject), `said_of` and `valued` (a phrase or a value said of the subject, in one clause),
`negated` (said only in the negative: "never email"), `in_context` (said in a clause sharing
a word with the rest of the newer entry), `mostly` (much of its clause), `says` (the new
value already); with `is_subject` (a number or a common word alone is no subject) and
`overlap` (two labels naming the same).
"""

from __future__ import annotations

import re

from memcli.core.judgement.cues import PARENS
from memcli.core.judgement.kinds import WEAK_ZH
from memcli.core.judgement.profiles import Profile
from memcli.core.subjects import Words, coverage, covers, merged, words_of

COMMON = frozenset(
    "work works worked need needs needed necessary required relevant valid true case apply applies happen "
    "happens exist exists available possible allowed enabled same fine good bad issue problem thing "
    "需要 支持 使用 可以 能够 有效 存在 问题 这样 那样 一样 东西 事情 工作".split()
)


def given_up(old: Words, new: Words) -> str:
    """What the older entry states that the newer one does not: its values, words and
    Chinese stretches (two characters or more; else one: 王 of 王医生 for 李医生, 三 of 周三 for
    周五) the newer one lacks."""
    lost = sorted(old.values - new.values) + [n for n in old.names if n not in new.words]
    single: list[str] = []
    for run in old.runs:
        hit = [False] * len(run)
        for i in range(len(run) - 1):
            if run[i : i + 2] in new.bigrams:
                hit[i] = hit[i + 1] = True
        gaps = re.split("x+", "".join("x" if h else ch for h, ch in zip(hit, run, strict=True)))
        strong = [(s, sum(ch not in WEAK_ZH for ch in s)) for s in gaps]
        lost += [s for s, n in strong if n >= 2]
        single += [s for s, n in strong if n == 1]
    return " ".join(dict.fromkeys(lost or single))


def is_subject(x: Words) -> bool:
    """A name or a content word: a number or a common word alone is no subject."""
    return any(n not in COMMON for n in x.names) or any(r not in COMMON for r in x.runs)


def holds(old: Words, x: Words) -> bool:
    """Whether the older entry states x: all of its words (compounds whole: "in-memory" is
    not "memory"), most of its Chinese characters, and its values."""
    if x.blank or not x.values <= old.values or not x.ids <= old.words:
        return False
    compounds = {n for n in x.names if any(ch in n for ch in "-_/.")}
    if not compounds <= old.words:
        return False
    got, total = coverage(x, old)
    return total == 0 or got >= 0.75 * total


def overlap(a: str, b: str) -> bool:
    """Two labels name the same: equal, or one holding a pair of Chinese characters of the
    other ("知识页面", "页面")."""
    if a == b:
        return True
    if a.isascii() or b.isascii():
        return False
    short, long = sorted((a, b), key=len)
    return any(short[i : i + 2] in long for i in range(len(short) - 1))


_NEGATION = re.compile(
    r"(?:\b(?:not|no|never|without|don't|avoid)\b|不要|不用|不|别|禁止|避免)\s*(?:to\s+|use\s+|用\s*)?$"
)


def negated(scanned: str, x: Words) -> bool:
    """Whether the text says what x names only in the negative ("never email", "别用 npm")."""
    names = [n for n in x.names if n in scanned] or [r for r in x.runs if r in scanned]
    if not names:
        return False
    at = scanned.find(names[0])
    return _NEGATION.search(scanned, max(0, at - 12), at) is not None


_CLAUSE = re.compile(r"[,;，；。]|\s[—–-]\s")
# (a colon after a lone letter is a drive's, "c:\\users"; between digits, a time's)
_CLAUSE_OR_LABEL = re.compile(
    r"[,;，；。]|(?<![^a-z][a-z])(?<!^[a-z])(?<!\d)[:：]|(?<=\d)[:：](?!\d)|\s[—–-]\s|\.\s"
)


def clauses_of(p: Profile, labels: bool = True) -> list[str]:
    """The clauses of an entry, without remarks in brackets; with `labels`, a label stays with
    its value ("release cadence: monthly"), else it is a clause of its own ("lin only asked
    one thing: whether …")."""
    splitter = _CLAUSE if labels else _CLAUSE_OR_LABEL
    return [c for c in splitter.split(PARENS.sub(" ", p.scanned)) if c.strip()]


def clauses_about(old: Profile, subject: Words) -> list[tuple[str, Words]]:
    """The clauses of the older entry about the subject, with their words: those that name
    it, and the value of a label that is nothing but the subject, or a name or two holding it
    ("release cadence: monthly", "project repo: C:\\code"; not "lin only asked one thing:
    whether …")."""
    found = []
    for clause in clauses_of(old, labels=False):
        words = words_of(clause)
        if covers(words, subject):
            found.append((clause, words))
    for clause in clauses_of(old):
        label, colon, value = clause.partition(":")
        named = words_of(label)
        if not colon or named.empty:
            continue
        if covers(subject, named) or (len(named.names) <= 2 and not named.runs and covers(named, subject)):
            found.append((clause, merged(named, words_of(value))))
    return found


def said_of(old: Profile, x: Words, subject: Words) -> bool:
    """Whether the older entry says x of the subject: both in one clause."""
    return any(holds(words, x) for _, words in clauses_about(old, subject))


def valued(old: Profile, values: frozenset[str], subject: Words) -> bool:
    """Whether the older entry says one of these values in a clause about the subject."""
    if subject.empty:
        return False
    return any(value in values and covers(words_of(clause), subject) for _, value, clause in old.slots)


def in_context(old: Profile, new: Profile, x: Words) -> bool:
    """Whether the older entry says x in a clause sharing a word with the rest of the newer
    entry ("email" of "alerts … rather than email" is not the "email" of "email digest")."""
    rest = new.body.content - x.content
    return any(
        holds(words := words_of(clause), x) and (words.content - x.content) & rest
        for clause in clauses_of(old)
    )


def says(old: Profile, value: Words) -> bool:
    """Whether the older entry says the new value already: all of it (a Chinese name as
    written: 工商银行 is not 招商银行, which shares 商银 and 银行 with it)."""
    if not holds(old.words, value):
        return False
    return all(run in old.scanned for run in value.runs if len(run) <= 6)


def mostly(old: Profile, x: Words) -> bool:
    """Whether what is given up is much of the clause of the older entry that says it ("ING"
    of "We bank with ING", "LastPass" of "Password manager: LastPass"): a third of it."""
    for clause in clauses_of(old):
        words = words_of(clause)
        if holds(words, x) and 3 * coverage(x, words)[0] >= words.units():
            return True
    return False
