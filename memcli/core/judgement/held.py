"""Whether something is said again: in the same session, or already in memory (SPEC §9:
a flush writes each item once).

- `same_wording(new, old)`: `new` says what `old` said — the same words once normalised,
  all of its words in `old` but for function words ("Also: always run X" after "Also
  please always run X, not inside Y"), or the same fact in other words or language
  (core.judgement.duplicates). A word or a figure of its own (RabbitMQ for Redis,
  service-2 for service-1) makes it another;
- `Held`: what memory holds. Every entry is searched for the item's exact words (one
  search of all of memory per item); the entries `near` — MEMORY.md and today's note,
  where a flush would have put it — are also compared by `same_wording`, only those that
  share enough words with the item (a decade of notes is never compared pair by pair).

Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

from memcli.core.judgement.duplicates import judge
from memcli.core.judgement.kinds import FUNCTION, WEAK_ZH
from memcli.core.judgement.wording import Shape, shape
from memcli.core.similarity import normalise

SAME_FACT = 0.8  # the similarity from which two texts state the same fact (dedupe_threshold)
NEAR_OVERLAP = 0.4  # the share of words two texts must share before they are compared

_WORDS = re.compile(r"[^\W\d_]+|\d+|[\u4e00-\u9fff]")
_SPARE = (
    FUNCTION
    | WEAK_ZH
    | frozenset(
        "also btw please pls ok okay so oh fyi yes yeah sure right well".split()
        + list("的了吗呢吧啊呀嘛哦我你他她它们这那个也都就还再很")
    )
)


def _covered(new: str, old: str) -> bool:
    """Whether an earlier text holds all the words of a later one, but for function words
    ("Also: always run X" after "Also please always run X, not Y"): said again. A word or a
    figure of its own (RabbitMQ for Redis, service-2 for service-1) makes it another."""
    words = set(_WORDS.findall(normalise(new)))
    return bool(words - _SPARE) and words - set(_WORDS.findall(normalise(old))) <= _SPARE


_DIGITS = re.compile(r"\d+")


@lru_cache(maxsize=8192)
def _shape(text: str) -> Shape:
    return shape(text)  # a text is compared with many: read once


def same_wording(new: str, old: str) -> bool:
    """Whether `new` says again what `old` said: the same words, all of its words in `old`
    (but for function words), or the same fact in other words (core.judgement.duplicates).
    Figures that do not nest (retry policy 11 / retry policy 21) say another thing at once."""
    a, b = normalise(new), normalise(old)
    if a == b or _covered(new, old):
        return True
    x, y = set(_DIGITS.findall(a)), set(_DIGITS.findall(b))
    if x and y and not (x <= y or y <= x):
        return False
    return judge(_shape(new), _shape(old), SAME_FACT).same


class Held:
    """What memory already says: an item is held when some entry holds its words exactly,
    or when an entry of `near` says it again (`same_wording`)."""

    def __init__(self, everything: Iterable[str], near: Iterable[str] = ()) -> None:
        self.keys = {normalise(t) for t in everything}
        self.keys.discard("")
        # one search of all of memory per item (NUL never occurs in a normalised text): a
        # loop over every entry made a flush quadratic in the size of memory
        self._joined: str | None = None
        self.near = [(t, set(_WORDS.findall(normalise(t)))) for t in near]

    def holds(self, text: str) -> bool:
        key = normalise(text)
        if not key:
            return True
        if self._joined is None:
            self._joined = "\0".join(self.keys)
        if key in self.keys or key in self._joined:
            return True
        words = set(_WORDS.findall(key))
        for old, known in self.near:
            shared = len(words & known)
            if not words or shared < NEAR_OVERLAP * min(len(words), len(known) or 1):
                continue
            if same_wording(text, old):
                return True
        return False

    def add(self, texts: Iterable[str]) -> None:
        for text in texts:
            self.keys.add(normalise(text))
            self.near.append((text, set(_WORDS.findall(normalise(text)))))
        self._joined = None
