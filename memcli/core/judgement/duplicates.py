"""Do two entries state the same fact? The pair verdict dedupe groups by (SPEC §6).

A pair is the same fact only when nothing speaks against it and enough speaks for it.

Against it (different, with the reason):
- **value**: values that do not nest (port 8080 / 9090, 14:00 / 15:00, Mia / Talia), or a
  status that differs (open / done, ✅ / ❌);
- **polarity**: one denies what the other states (用 / 不要用, required / not required, still /
  no longer), the two deny different things ("Redis, not RabbitMQ" / "RabbitMQ, not Redis"),
  or they name opposites (on / off, succeeded / failed, allow / 禁止);
- **subject**: the same template with another subject in one slot ("paired on auth" /
  "paired on billing", 产品部 / 市场部), an exclusive member of one class swapped (staging /
  production, 早上 / 晚上), or too little in common;
- **routine**: a routine event ("heartbeat OK") on another day is another event (SPEC §7).

For it (same): the same words once markup, status marks and list numbering are set aside
(**exact**), or the same concepts in other words, order or language, the values agreeing
(**paraphrase**) — including one entry holding all of the other, when keeping the fuller one
loses nothing.

What an entry says is read by `wording` (its features, cut by `features`: values,
concepts from the Chinese–English glossary of `concepts`, words by `phrasing`'s stems,
Chinese characters).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from memcli.core.judgement.wording import (
    HEAVY,
    VALUE,
    Shape,
    shape,
    values_nest,
)
from memcli.core.similarity import NAME_MARK, refinements

MIN_CONTAINED = 2.0  # the weight an entry needs before "all of it is in the other" means anything
MIN_COVERAGE = 0.3  # the share of the fuller entry the shorter one must make up
VALUE_BONUS = 0.1  # a shared number, time or identifier vouches for a restatement
LONG_SHARED = 8.0  # weight two entries share (a value among it) before a swapped word is a rewording
REWORDED_SHARE = 0.15  # the most of the shorter entry's weight such a rewording swaps


@dataclass(frozen=True, slots=True)
class Verdict:
    same: bool
    reason: str  # exact, paraphrase | value, polarity, subject, routine
    similarity: float
    why: str = ""


# --- the verdict -------------------------------------------------------------------------------

_POLAR_CLASSES = frozenset(
    {"switch", "outcome", "direction", "edit", "state", "scope", "exposure", "presence", "answer", "bound",
     "age", "order", "lifecycle", "reference"}
)  # fmt: skip


_BAD_STATES = frozenset({"fail", "off", "offline", "reject", "close"})


def judge(a: Shape, b: Shape, threshold: float = 0.8) -> Verdict:
    """Whether `a` and `b` state the same fact, why, and how alike they are (0–1; a pair is
    the same when nothing speaks against it and its similarity reaches `threshold`)."""
    if a.status and b.status and a.status != b.status:
        return Verdict(
            False, "value", 0.0, f"status {'/'.join(sorted(a.status))} vs {'/'.join(sorted(b.status))}"
        )
    if not values_nest(a.values, b.values):
        only = sorted((a.values ^ b.values) - {v.lstrip(NAME_MARK) for v in a.values & b.values})
        return Verdict(False, "value", 0.0, "values differ: " + ", ".join(only[:4]))
    if a.norm == b.norm:
        return Verdict(True, "exact", 1.0, "the same words")
    for cls in a.classes.keys() & b.classes.keys():
        x, y = a.classes[cls], b.classes[cls]
        if not (x <= y or y <= x):
            reason = "polarity" if cls in _POLAR_CLASSES else "subject"
            return Verdict(False, reason, 0.0, f"{'/'.join(sorted(x))} vs {'/'.join(sorted(y))}")
    polarity, a, b = _polarity(a, b)
    if polarity:
        return Verdict(False, "polarity", 0.0, polarity)
    a, b = _refined(a, b), _refined(b, a)
    score, why = _alike(a, b)
    if score < threshold:
        return Verdict(False, "subject", score, why)
    swapped = _swapped(a, b)
    if swapped:
        return Verdict(False, "subject", 0.0, swapped)
    return Verdict(True, "paraphrase", score, why)


def _alike(a: Shape, b: Shape) -> tuple[float, str]:
    """How alike two entries are, 0–1, and why: one holding all of the other scores from
    0.8 up (by how much of the fuller one it makes up); otherwise the share of weight they
    have in common, a shared number vouching a little."""
    wa, wb = a.weights, b.weights
    shared = sum(min(w, wb[f]) for f, w in wa.items() if f in wb)
    if not shared:
        return 0.0, "nothing in common"
    a_adds = any(w >= HEAVY and f not in wb for f, w in wa.items())
    b_adds = any(w >= HEAVY and f not in wa for f, w in wb.items())
    if not a_adds or not b_adds:
        small, large = (a, b) if not a_adds else (b, a)
        state = [f for f in large.weights if f not in small.weights and f in _BAD_STATES]
        if state:  # "login works" / "login is broken": the fuller one says it does not
            return 0.0, f"the fuller one adds a state ({'/'.join(sorted(state))})"
        coverage = shared / large.total
        if small.heavy >= MIN_CONTAINED and coverage >= MIN_COVERAGE and small.heavy * coverage >= 0.6:
            why = "the fuller one holds all of it" if a_adds or b_adds else "restated in other words"
            return min(0.99, 0.8 + 0.2 * coverage), why
    dice = 2 * shared / (a.total + b.total)
    bonus = VALUE_BONUS if any(any(ch.isdigit() for ch in v) for v in a.values & b.values) else 0.0
    score = min(0.99, dice + bonus)
    return score, "restated in other words" if score >= 0.8 else f"too little in common ({dice:.0%})"


def _polarity(a: Shape, b: Shape) -> tuple[str, Shape, Shape]:
    """Why the two differ in what they deny ("" when they agree), and the two shapes with a
    double negation resolved: "not incomplete" reads as "complete"."""
    neg_a, neg_b = a.negations > 0, b.negations > 0
    if neg_a != neg_b:
        denier, other = (a, b) if neg_a else (b, a)
        for word, base in denier.prefixed:
            if base in other.weights and word not in other.weights:
                resolved = _rename(denier, word, base)
                return ("", resolved, other) if denier is a else ("", other, resolved)
        return "one denies what the other states", a, b
    if neg_a and _denies_what_the_other_states(a, b) and _denies_what_the_other_states(b, a):
        x, y = "/".join(sorted(a.negated)), "/".join(sorted(b.negated))
        return f"they deny different things ({x} vs {y})", a, b
    for before, after in a.order:
        if (after, before) in b.order:
            return f"{before} and {after} change places", a, b
    return "", a, b


def _denies_what_the_other_states(a: Shape, b: Shape) -> bool:
    """`a` denies something `b` states without denying it ("not RabbitMQ" / "RabbitMQ, not
    Redis")."""
    return any(f in b.weights and f not in b.negated for f in a.negated - b.negated)


def _refined(a: Shape, b: Shape) -> Shape:
    """`a` with each value that `b` names more fully read as `b`'s: buyer-leads.csv as
    leads/buyer-leads.csv, gemma3 as gemma3:4b (the values already nest)."""
    for f, w in a.weights.items():
        if w == VALUE and f not in b.weights:
            fuller = next((g for g in b.values if g != f and refinements(g) == f), None)
            if fuller is not None and fuller in b.weights:
                a = _rename(a, f, fuller, denied=False)
    return a


def _rename(s: Shape, old: str, new: str, denied: bool = True) -> Shape:
    weights = {(new if f == old else f): w for f, w in s.weights.items()}
    seq = tuple(new if f == old else f for f in s.seq)
    if not denied:
        return replace(s, seq=seq, weights=weights)
    return replace(s, seq=seq, weights=weights, negations=s.negations - 1, negated=s.negated - {old})


def _swapped(a: Shape, b: Shape) -> str:
    """A slot of one template filled with another subject: between the same neighbours, each
    has words the other lacks altogether ("paired on auth" / "paired on billing"). In a long
    entry held together by values both share (a date, a host, a person), a word swapped for
    a small share of it is a rewording (一定 / 务必, configured / set), not another subject."""
    if not a.seq or not b.seq:
        return ""
    from rapidfuzz.distance import Indel

    shared = sum(min(w, b.weights[f]) for f, w in a.weights.items() if f in b.weights)
    anchored = shared >= LONG_SHARED * 1.5 or (shared >= LONG_SHARED and bool(a.values & b.values))
    small = min(a.total, b.total) * REWORDED_SHARE

    removed: list[str] = []
    inserted: list[str] = []
    ops = list(Indel.opcodes(a.seq, b.seq))
    for n, op in enumerate(ops):
        if op.tag != "equal":
            removed.extend(f for f in a.seq[op.src_start : op.src_end] if f not in b.weights)
            inserted.extend(f for f in b.seq[op.dest_start : op.dest_end] if f not in a.weights)
        if op.tag == "equal" or n == len(ops) - 1:
            if removed and inserted:
                swapped = max(
                    sum(map(a.weights.__getitem__, removed)), sum(map(b.weights.__getitem__, inserted))
                )
                if not anchored or swapped >= small:
                    return f"{' '.join(removed)} vs {' '.join(inserted)}"
            removed, inserted = [], []
    return ""


# --- a bound, for the pairs the blocking proposes -------------------------------------------


@dataclass(frozen=True, slots=True)
class Reach:
    """What bounds how alike an entry can come out beside any other, read once an entry
    (see `may_be_same`)."""

    norm: str
    weights: Mapping[str, float]
    features: frozenset[str]
    renamable: tuple[str, ...]  # what `judge` may rename to meet the other: values, denied prefixed words
    fixed: frozenset[str]  # the heavy features no rename touches (none of its values)
    bases: frozenset[str]  # what its denied prefixed words may become: the other's features
    total: float


def reach(s: Shape) -> Reach:
    weights = s.weights
    renamable = {f for f, w in weights.items() if w == VALUE} | {
        word for word, _ in s.prefixed if word in weights
    }
    heavy = {f for f, w in weights.items() if w >= HEAVY}
    return Reach(
        s.norm,
        weights,
        frozenset(weights),
        tuple(renamable),
        frozenset(heavy - renamable - s.values),
        frozenset(base for _, base in s.prefixed),
        s.total,
    )


def may_be_same(a: Reach, b: Reach, threshold: float = 0.8) -> bool:
    """False only for a pair `judge` finds not the same, whatever else it reads: a bound on
    `_alike` worked out without renaming anything, so that most of the pairs the blocking
    proposes (nine in ten of a real workspace's) cost a set intersection, not a verdict.

    `judge` says "the same" for the same words, or when `_alike` reaches the threshold once
    values and denied words are renamed to meet the other's (`_refined`, `_polarity`).
    Renames keep each entry's total and only ever add to what the two share: at most the
    weight of every feature that may be renamed. So the pair cannot be the same when that
    much shared still leaves Dice (with the bonus of a shared value) under the threshold, and
    each entry adds a heavy feature that no rename can bring into the other (then neither
    holds all of the other).
    """
    if a.norm == b.norm:
        return True
    wa, wb, fa, fb = a.weights, b.weights, a.features, b.features
    shared = 0.0
    for f in fa & fb:
        x, y = wa[f], wb[f]
        shared += x if x < y else y
    for f in a.renamable:
        if f not in fb:
            shared += wa[f]
    for f in b.renamable:
        if f not in fa:
            shared += wb[f]
    if not shared:
        return False
    if 2 * shared / (a.total + b.total) + VALUE_BONUS >= threshold:
        return True
    # whether one may hold all of the other: a value of one may be renamed to the other's
    # fuller one, a denied word to its base
    a_adds = bool(a.fixed - fb - b.bases)
    b_adds = bool(b.fixed - fa - a.bases)
    return not (a_adds and b_adds)


def same_fact(a: str, b: str, threshold: float = 0.8) -> Verdict:
    """The verdict on two entry texts."""
    return judge(shape(a), shape(b), threshold)
