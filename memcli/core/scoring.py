"""Importance 0–10 from transparent rules, with the reasons that produced it (SPEC §3),
and the tier an entry belongs to (SPEC §4).

"I use Windows, mind the backslashes in paths" = 3 (preference) + 2
(environment) = 5: each signal counts once, with the first cue that fired.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any

from memcli.core.entries import strip_leading_stamp
from memcli.core.policy import Policy
from memcli.core.rules import ADDITIVE, DEFAULT_RULES, PLEASANTRIES, Rules, compile_cues

MAX_SCORE = 10.0
REMEMBER_AT_MOST = 8  # "remember this" counts when the entry opens with it
NOISE_SCORE = -1.0

_LEAD = re.compile(r"\s*(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]*)?")
_MARKUP = re.compile(r"\*\*|__|~~|<!--.*?-->|^#+\s|^>\s?", re.MULTILINE)
_PLEASANTRY = compile_cues(PLEASANTRIES)
_MEANINGFUL = re.compile(r"[^\W_]", re.UNICODE)
_ADDITIVE = frozenset(ADDITIVE)

_ISO_DAY = re.compile(r"(?<!\d)(\d{4})-(\d{1,2})-(\d{1,2})(?!\d)")
_ZH_DAY = re.compile(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月\s*(\d{1,2})\s*[日号]")
_MONTHS = {
    m: i + 1
    for i, m in enumerate(
        ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
    )
}
_EN_DAY = re.compile(
    r"\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?\s+(\d{1,2})(?:st|nd|rd|th)?\b"
)


class Tier(StrEnum):
    CORE = "core"
    TASK = "task"
    SESSION = "session"
    DISCARD = "discard"


@dataclass(frozen=True, slots=True)
class Reason:
    rule: str
    points: float
    cue: str


@dataclass(frozen=True, slots=True)
class Scored:
    score: float
    reasons: tuple[Reason, ...]
    remember: bool = False
    noise: bool = False
    routine: bool = False
    explicit: bool = False
    signals: frozenset[str] = frozenset()  # every signal whose cue the text carries


def scoring_text(text: str) -> str:
    """The words the rules look at: no list marker, checkbox, leading timestamp or markup."""
    first, _, rest = text.partition("\n")
    first = strip_leading_stamp(_LEAD.sub("", first, count=1))
    body = first + ("\n" + rest if rest else "")
    body = _MARKUP.sub(" ", body)
    return unicodedata.normalize("NFKC", body).casefold()


PLEASANTRY_MAX_CHARS = 80  # longer texts always say something more


def is_pleasantry(text: str) -> bool:
    """Nothing but 好的 / thanks / got it and punctuation."""
    if len(text) > PLEASANTRY_MAX_CHARS:
        return False
    return _MEANINGFUL.search(_PLEASANTRY.sub(" ", text)) is None


def mentioned_dates(text: str, year: int) -> list[date]:
    days: list[date] = []
    for y, m, d in _ISO_DAY.findall(text):
        days.extend(_safe_date(int(y), int(m), int(d)))
    for y, m, d in _ZH_DAY.findall(text):
        days.extend(_safe_date(int(y) if y else year, int(m), int(d)))
    for mon, d in _EN_DAY.findall(text):
        days.extend(_safe_date(year, _MONTHS[mon], int(d)))
    return days


def _safe_date(y: int, m: int, d: int) -> list[date]:
    try:
        return [date(y, m, d)]
    except ValueError:
        return []


def score_text(
    text: str,
    rules: Rules = DEFAULT_RULES,
    *,
    kind: str = "paragraph",
    importance: int | None = None,
    today: date | None = None,
    written: date | None = None,
    mentions: int = 1,
    repeats_core: bool = False,
) -> Scored:
    """Score one entry's text. `today` enables "past its date"; `written` is the entry's date
    (the year of a date written without one); `mentions` counts distinct days it appears on."""
    t = scoring_text(text)
    return score_scanned(
        t,
        rules.scan(t),
        rules,
        kind=kind,
        importance=importance,
        today=today,
        written=written,
        mentions=mentions,
        repeats_core=repeats_core,
    )


def score_scanned(
    t: str,
    cues: dict[str, str],
    rules: Rules,
    *,
    kind: str = "paragraph",
    importance: int | None = None,
    today: date | None = None,
    written: date | None = None,
    mentions: int = 1,
    repeats_core: bool = False,
) -> Scored:
    """`score_text` for a text already reduced by `scoring_text` and scanned by `rules.scan`."""
    remember = cues.get("remember")
    if remember is not None and t.find(remember) > REMEMBER_AT_MOST:
        remember = None  # "记住：…" asks; "…值得记住" only remarks
    routine = cues.get("routine")
    flags: dict[str, Any] = {
        "remember": remember is not None,
        "routine": routine is not None,
        "signals": frozenset(cues),
    }
    if importance is not None:
        reason = Reason("importance marker", float(importance), f"<!-- importance: {importance} -->")
        return Scored(float(importance), (reason,), explicit=True, **flags)
    if remember is None and _ADDITIVE.isdisjoint(cues) and is_pleasantry(t):
        points = rules["noise"].points
        reason = Reason("noise", points, cues.get("noise", "(no content)"))
        return Scored(points, (reason,), noise=True, signals=frozenset(cues))

    reasons: list[Reason] = []
    for name in ADDITIVE:
        cue = cues.get(name)
        if cue is None and name == "task" and kind == "task":
            cue = "[ ]"
        if cue is not None:
            reasons.append(Reason(name, rules[name].points, cue))
    if "long_lived" in cues:
        reasons.append(Reason("long-lived", rules["long_lived"].points, cues["long_lived"]))
    elif "short_lived" in cues:
        reasons.append(Reason("short-lived", rules["short_lived"].points, cues["short_lived"]))
    if today is not None and "past_due" in cues:
        year = (written or today).year
        if any(d < today for d in mentioned_dates(t, year)):
            reasons.append(Reason("past its date", rules["past_due"].points, cues["past_due"]))
    if mentions > 1:
        reasons.append(Reason("referenced again", min(1.0, 0.5 * (mentions - 1)), f"{mentions} days"))
    if repeats_core:
        reasons.append(Reason("repetition", -1.0, "already in MEMORY.md"))
    if routine is not None:
        reasons.append(Reason("routine event", 0.0, routine))
    if remember is not None:
        reasons.append(Reason("remember this", 0.0, remember))
    total = sum(r.points for r in reasons)
    return Scored(min(MAX_SCORE, max(0.0, total)), tuple(reasons), **flags)


def tier_of(scored: Scored, policy: Policy, mentions: int = 1, task_refs: int = 0) -> Tier:
    """SPEC §4: core from promote_score, mentions or task references, or "remember this"."""
    if scored.noise or scored.score < policy.session_score:
        return Tier.DISCARD
    if scored.remember or scored.score >= policy.promote_score:
        return Tier.CORE
    if not scored.routine and (mentions >= policy.promote_mentions or task_refs >= policy.promote_tasks):
        return Tier.CORE
    if scored.score >= policy.task_score:
        return Tier.TASK
    return Tier.SESSION
