"""What the duplicates judgement reads from an entry: its features, in order and weighed
(judgement.features cuts a text into them), and what they say besides.

An entry is folded (NFKC, case, markup, one spelling per value) and cut into features.
Negation cues and what they deny, comparisons ("X over Y"), exclusive classes (on / off,
staging / production) and status marks (✅ / ❌, [x] / [ ]) are read on the way; values
are compared as the verdict compares them (a word naming a concept is that concept).

`shape` reads an entry for the verdict; `sketch` reads only a normalised text, for
the blocking, cheaply.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from memcli.core.judgement import phrasing as ph
from memcli.core.judgement.features import (
    COMPOUND,
    HEAVY,
    MULTI,
    MULTI_LONGEST,
    PIVOT,
    STARTS,
    VALUE,
    WORD,
    WORDS,
    features_of,
    stem,
    unprefixed,
    word,
)
from memcli.core.similarity import NAME_MARK, Description, Values, body_of, canonical, describe, refinements

__all__ = [
    "HEAVY",
    "VALUE",
    "Shape",
    "covers",
    "shape",
    "sketch",
    "status_marks",
    "value_keys",
    "value_keys_once",
    "values_nest",
]


@dataclass(frozen=True, slots=True, eq=False)
class Shape:
    """What the verdict reads from one entry."""

    norm: str
    values: frozenset[str]
    seq: tuple[str, ...]  # the heavy features in order, for finding a swapped slot
    weights: Mapping[str, float]  # every feature and its weight
    total: float
    negations: int
    negated: frozenset[str]  # what the negations deny: the feature after each
    prefixed: frozenset[tuple[str, str]]  # denied words with a negative prefix: (word, base)
    classes: Mapping[str, frozenset[str]]  # class -> members named (on/off, staging/production …)
    status: frozenset[str]  # ok, open, bad: from checkboxes and status marks
    order: frozenset[tuple[str, str]] = frozenset()  # (before, after) a comparison: tabs over spaces

    @property
    def heavy(self) -> float:
        return sum(w for w in self.weights.values() if w >= HEAVY)

    @property
    def blocking(self) -> Mapping[str, float]:
        """The features the blocking files it under: its own, and the base of a denied
        negative word ("not incomplete" is found beside "complete")."""
        if not self.prefixed:
            return self.weights
        return {**self.weights, **{base: WORD for _, base in self.prefixed}}


_STATUS_MARKS = {"✅": "ok", "✔": "ok", "☑": "ok", "🟢": "ok", "❌": "bad", "✖": "bad", "✗": "bad",
                 "🔴": "bad", "⛔": "bad", "🚫": "bad", "🟡": "open", "⏳": "open", "🚧": "open"}  # fmt: skip
_STATUS = re.compile("[" + "".join(_STATUS_MARKS) + "]")
_MARKUP = re.compile(r"\*\*|__|~~|`|!?\[([^\]]*)\]\([^)]*\)")
# "on" as a state, not a preposition: "notifications are on", "left it on."
_SWITCHED_ON = re.compile(
    r"\b(is|are|was|were|be|been|stays?|remains?|turned|switched|set|left|kept|it)\s+on\b"
    r"(?=\s*(?:[.!;,)]|$|by default))"
)


def shape(text: str, description: Description | None = None, status: frozenset[str] | None = None) -> Shape:
    """Read an entry for the verdict; `description` is `similarity.describe(text)` and
    `status` its `status_marks` when known."""
    norm, values, _ = description if description is not None else describe(text)
    folded = canonical(body_of(text)).casefold()
    if "`" in folded or "*" in folded or "](" in folded or "~~" in folded or "_" in folded:
        folded = _MARKUP.sub(lambda m: m.group(1) or " ", folded)
    if " on" in folded:
        folded = _SWITCHED_ON.sub(r"\1 enabled", folded)
    seq: list[str] = []
    weights: dict[str, float] = {}
    negated: set[str] = set()
    prefixed: set[tuple[str, str]] = set()
    classes: dict[str, set[str]] = {}
    negations = 0
    denying = False
    pivot: str | None = None
    pivot_token = ""
    order: set[tuple[str, str]] = set()
    get = weights.get
    for features, token in features_of(folded):
        for feature, weight, cls in features:
            if weight < 0:
                if weight == PIVOT[1]:
                    pivot, pivot_token = (seq[-1] if seq else ""), token
                    continue
                negations += 1
                denying = True
                continue
            if pivot is not None and weight >= HEAVY and token is not pivot_token:
                order.add((pivot, feature))
                pivot = None
            if get(feature, 0.0) < weight:
                weights[feature] = weight
            if weight >= HEAVY:
                seq.append(feature)
                if denying:
                    negated.add(feature)
                    denying = False
                    if weight == WORD:
                        prefixed.update(unprefixed(token))
            if cls:
                classes.setdefault(cls, set()).add(feature)
    return Shape(
        norm,
        value_keys(values),
        tuple(seq),
        weights,
        sum(weights.values()),
        negations,
        frozenset(negated),
        frozenset(prefixed),
        {k: frozenset(v) for k, v in classes.items()},
        status if status is not None else status_marks(text),
        frozenset(order),
    )


def sketch(norm: str, values: Values = frozenset()) -> dict[str, float]:
    """The features of a normalised text (`similarity.normalise`) and its values, without
    reading the entry again: what the blocking files an entry under. Near enough to its
    shape's for finding candidates; the verdict reads the shape."""
    weights: dict[str, float] = dict.fromkeys(value_keys(values), VALUE)
    get = weights.get
    tokens = [t for t in norm.split() if not t.isascii() or t.isalpha()]  # digits: in its values
    i, n = 0, len(tokens)
    while i < n:
        token = tokens[i]
        i += 1
        known = _SKETCHED.get(token)
        if known is None:
            known = _sketched(token)
        starts, negation, features = known
        if starts:
            for size in range(min(MULTI_LONGEST, n - i + 1), 1, -1):
                found = MULTI.get(tuple(map(stem, tokens[i - 1 : i - 1 + size])))
                if found is not None:
                    i += size - 1
                    for feature, weight, _ in found:
                        if weight > get(feature, 0.0) and weight < VALUE:
                            weights[feature] = weight
                    break
            else:
                found = None
            if found is not None:
                continue
        if negation and i < n:  # "not incomplete" is found beside "complete"
            for _, base in unprefixed(tokens[i]):
                weights[base] = WORD
        for feature, weight in features:
            if weight > get(feature, 0.0):
                weights[feature] = weight
    return weights


def _sketched(token: str) -> tuple[bool, bool, tuple[tuple[str, float], ...]]:
    """What `sketch` reads from one token (remembered: tokens recur): whether a group of
    English words may start with it, whether it is a negation, and its features."""
    starts = token.isascii() and stem(token) in STARTS
    plain = token.isascii() and token.isalpha() and token.islower()  # a word: one group, its own
    groups = (word(token),) if plain else (group for group, _ in features_of(token))
    features = tuple((f, w) for group in groups for f, w, _ in group if 0 < w < VALUE)
    found = (starts, token in ph.NEGATIONS_EN, features)
    if len(_SKETCHED) < 100_000:
        _SKETCHED[token] = found
    return found


_SKETCHED: dict[str, tuple[bool, bool, tuple[tuple[str, float], ...]]] = {}


def value_keys(values: Values) -> frozenset[str]:
    """Values as the verdict compares them (see `_value`); words joined by hyphens
    (design-team, end-to-end) are words, not values. Remembered: sets of values recur. A
    set that is its own keys is handed back itself (a decade's 200,000 texts hold a set of
    values each, and a copy of each costs 100 MB); values held as a tuple
    (similarity.held_values) give a set of their keys."""
    found = _VALUE_KEYS.get(values)
    if found is None:
        found = value_keys_once(values)
        if len(_VALUE_KEYS) < 100_000:
            _VALUE_KEYS[values] = found
    return found


def value_keys_once(values: Values, keyed: dict[str, str | None] | None = None) -> frozenset[str]:
    """`value_keys`, not remembered: for a caller that asks once for each of many sets (the
    duplicate finder's keys, whose sets are mostly one of a kind: remembered, 100,000 of
    them held 40 MB until the process ended). `keyed`: each value's key (None: a compound
    word) as worked out for the sets before, which it adds to: the sets are one of a kind,
    their values are not (a decade's keys read 984,000 values, 234,000 of them distinct)."""
    if keyed is None:
        found = frozenset(k for k in map(_value_key, values) if k is not None)
    else:
        keys = []
        for v in values:
            k = keyed.get(v, _UNKEYED)
            if k is _UNKEYED:
                k = keyed[v] = _value_key(v)
            if k is not None:
                keys.append(k)
        found = frozenset(keys)
    return values if isinstance(values, frozenset) and found == values else found


def _value_key(value: str) -> str | None:
    """A value's key (`_value`), or None for words joined by hyphens."""
    return None if COMPOUND.fullmatch(value.removeprefix(NAME_MARK)) else sys.intern(_value(value))


_UNKEYED: Any = object()


_VALUE_KEYS: dict[Values, frozenset[str]] = {}


def covers(fuller: frozenset[str], other: frozenset[str]) -> bool:
    """Every value of `other` is in `fuller`, or refined there: a file by its path
    (buyer-leads.csv in leads/buyer-leads.csv), a model by its tag (gemma3 in gemma3:4b)."""
    missing = other - fuller
    if not missing:
        return True
    return missing <= _refined(fuller)


def values_nest(a: frozenset[str], b: frozenset[str]) -> bool:
    """The values of one entry all in the other's (see `_covers`)."""
    plain_a, plain_b = _plain(a), _plain(b)
    return covers(plain_a, plain_b) or covers(plain_b, plain_a)


def _plain(values: frozenset[str]) -> frozenset[str]:
    """Values without the mark of a name (remembered: an entry's values are compared with
    those of each of its candidates, and a long entry carries dozens)."""
    found = _PLAIN.get(values)
    if found is None:
        # (most hold no name: then the very set, not a copy of it)
        found = frozenset(v.removeprefix(NAME_MARK) for v in values) if _names_in(values) else values
        if len(_PLAIN) < 100_000:
            _PLAIN[values] = found
    return found


def _names_in(values: frozenset[str]) -> bool:
    return any(v.startswith(NAME_MARK) for v in values)


def _refined(values: frozenset[str]) -> frozenset[str]:
    """What the values name more fully than (see `refinements`), remembered the same way."""
    found = _REFINED.get(values)
    if found is None:
        found = frozenset(refinements(v) for v in values)
        if len(_REFINED) < 100_000:
            _REFINED[values] = found
    return found


_PLAIN: dict[frozenset[str], frozenset[str]] = {}
_REFINED: dict[frozenset[str], frozenset[str]] = {}


def _value(value: str) -> str:
    """A value as the verdict compares it: a word that names a known concept (TS, English,
    k8s, PRs) is that concept, not a name."""
    word = value.removeprefix(NAME_MARK)
    if word.endswith("s") and word[:-1].upper() == value[: len(word) - 1].upper() and len(word) <= 5:
        word = word[:-1] if word[:-1] in WORDS else word
    concept = WORDS.get(word) or next((c for c, _, _ in MULTI.get((word,), ()) if c), None)
    return concept if concept is not None else value


def status_marks(text: str) -> frozenset[str]:
    """ok, open or bad, as a checkbox or a status mark says (✅ / ❌ / 🟡, [x] / [ ])."""
    status = {_STATUS_MARKS[ch] for ch in _STATUS.findall(text)}
    head = text.lstrip()[:8]
    if "[ ]" in head:
        status.add("open")
    elif "[x]" in head or "[X]" in head:
        status.add("ok")
    found = frozenset(status)
    return _STATUSES.setdefault(found, found)  # one object for each of the few statuses


_STATUSES: dict[frozenset[str], frozenset[str]] = {}
