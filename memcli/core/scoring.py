"""Importance 0–10 from transparent rules, with the reasons that produced it (SPEC §3),
and the tier an entry belongs to (SPEC §4).

"I use Windows, mind the backslashes in paths" = 3 (preference) + 2
(environment) = 5: each signal counts once, with the first cue that fired.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date
from enum import StrEnum
from typing import Any

from memcli.core.entries import strip_leading_stamp
from memcli.core.policy import Policy
from memcli.core.rules import COURTESIES, DAY_FIELDS, DEFAULT_RULES, ROWS, YEARLY, Rules

MAX_SCORE = 10.0
REMEMBER_AT_MOST = 8  # "remember this" counts when the entry opens with it
NOISE_SCORE = -1.0

_LEAD = re.compile(r"\s*(?:[-+*]|\d{1,9}[.)])[ \t]+(?:\[[ xX]\][ \t]*)?")
_MARKUP = re.compile(r"\*\*|__|~~|<!--.*?-->|^#+\s|^>\s?", re.MULTILINE)
_MEANINGFUL = re.compile(r"[^\W_]", re.UNICODE)
# Signals that say nothing to keep: a line carrying only these may be noise.
_EMPTY_SIGNALS = frozenset({"noise", "placeholder", "mood", "signature", "data", "routine"})
# What a noise shape may carry besides: a figure or a tool named in passing, never a rule.
_FILLER_SIGNALS = _EMPTY_SIGNALS | {"environment", "short_lived", "done", "unresolved"}
_BLANK_SIGNALS = _EMPTY_SIGNALS | {"task", "past_due", "short_lived"}  # "- TODO", "计划：YYYY-MM-DD"
# Cues a pleasantry may hold ("好嘞，马上": urgency); a line with any other says something.
_NOISE_MAY_CARRY = _FILLER_SIGNALS | _BLANK_SIGNALS | {"urgency", "question", "schedule", "setup"}
_NUMBERING = re.compile(r"\s*\d{1,2}\s*")
_LABEL_ONLY = re.compile(r"\s*[^\W\d_][^:：\n]{0,11}[:：][\s()（）\[\]【】]*")
_SIGN_OFF = re.compile(r"\s*\*[^*\n]{1,80}\*[^\w\n]{0,6}")  # *太一 · 第 1 天 · 23:00* 🪷
_ISO_ANYWHERE = re.compile(r"\d{4}-\d{1,2}-\d{1,2}")
_DECORATION = re.compile(r"[^\w\s.,;:!?，。；：！？()（）'\"“”‘’*#/-]")  # emoji and pictographs
_STATUS_MARKS = "✅❌⚠⏳✔✗☑"
MOOD_MAX_CHARS = 12  # a mood said in passing; longer lines say what it is about
_QUOTE_MARKS = re.compile('[「」『』“”"]')
_DASHED_NAME = re.compile(r"[-—–~]{1,3}\s*[^\s\d][^\s]{0,19}(?:\s[^\s\d][^\s]{0,19})?\s*[^\w\s]{0,4}")
SIGN_OFF_MAX_CHARS = 16
SIGNATURE_WORDS = 4  # "JSCA 🪷": a word or two of signature beside an emoji
THANKS_MAX_CHARS = 40
ACK_REST_UNITS = 2  # "收到，马上办": what an acknowledgement may say besides, and be one
_CJK = re.compile(r"[\u3400-\u9fff]")
_LATIN_WORD = re.compile(r"[a-z0-9][a-z0-9_.+-]*")


def _units(text: str) -> int:
    """CJK characters one each, other words one each."""
    return len(_CJK.findall(text)) + len(_LATIN_WORD.findall(_CJK.sub(" ", text)))


# What a courtesy may carry besides and still say nothing: a time word, a mood, a figure.
_COURTESY_SIGNALS = _EMPTY_SIGNALS | {"short_lived", "question", "urgency"}
_COURTESY_LEAD = re.compile(r"[^\w\u3400-\u9fff]*")  # 🙏, **, "- "
# A diary's header field and its short value: "**星期**: 星期六", "Weather: sunny"
_DAY_FIELD = re.compile(
    r"\s*(?:" + "|".join(map(re.escape, DAY_FIELDS)) + r")\s*[:：]\s*(?P<value>[^\n]{0,20})$"
)
DAY_FIELD_UNITS = 4

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

    def __reduce__(self) -> tuple[type[Reason], tuple[str, float, str]]:
        # pickled as its fields: a memo holds a decade's 680,000 of them, and a frozen
        # dataclass's own state takes twice as long to load
        return (Reason, (self.rule, self.points, self.cue))


@dataclass(frozen=True, slots=True)
class Scored:
    score: float
    reasons: tuple[Reason, ...]
    remember: bool = False
    noise: bool = False
    routine: bool = False
    explicit: bool = False
    signals: frozenset[str] = frozenset()  # every signal whose cue the text carries
    cues: Mapping[str, str] | None = None  # signal -> the first cue of it found (the scan)


# What a line names as code or as a file: a code span, a URL, a path, a file name. A time,
# a date or a template's slot inside them belongs to the name (`~/tax/<year>/`,
# `2026-10-03-ablation.ipynb`, `today.md`), not to what the line says.
_CODE_NAMES = re.compile(
    r"`[^`\n]+`|https?://\S+|"
    r"(?<![\w\[/\\.])(?:~|\.{1,2})?[/\\]?(?:[\w.<>{}$%+-]+[/\\])+[\w.<>{}$%+-]*|"
    r"(?<![\w.])[\w-]+(?:\.[\w-]+)*\.(?!xx\b)[a-z][a-z0-9]{1,4}(?![\w])"
)


def mask_code(t: str) -> str:
    """The text with its code spans, URLs, paths and file names blanked (the same length,
    so places in it stay where they were): what a time, date or template cue may be read in."""
    if "`" not in t and "/" not in t and "\\" not in t and "." not in t:
        return t
    return _CODE_NAMES.sub(lambda m: " " * len(m[0]), t)


def scoring_text(text: str) -> str:
    """The words the rules look at: no list marker, checkbox, leading timestamp or markup."""
    first, _, rest = text.partition("\n")
    first = strip_leading_stamp(_LEAD.sub("", first, count=1))
    body = first + ("\n" + rest if rest else "")
    body = _MARKUP.sub(" ", body)
    return unicodedata.normalize("NFKC", body).casefold()


PLEASANTRY_MAX_CHARS = 80  # longer texts always say something more


def is_pleasantry(text: str, rules: Rules = DEFAULT_RULES) -> bool:
    """Nothing but 好的 / thanks / got it and punctuation."""
    if len(text) > PLEASANTRY_MAX_CHARS:
        return False
    return _MEANINGFUL.search(rules["noise"].matcher.sub(" ", text)) is None


def noise_shape(t: str, cues: dict[str, str], rules: Rules = DEFAULT_RULES) -> str | None:
    """Why a (scoring) text carries no information, or None: a pleasantry, a template's
    blank ("- 无", "计划：YYYY-MM-DD", "功能 1", "地点：（未记录）"), a sign-off ("*记录者：
    太一*", "JSCA 🪷"), a mood line ("🤔 思考…", "🔥 充满期待"), a courtesy that says nothing
    more (a thank-you, an apology, a wish, "在吗？": core.rules COURTESIES), a diary's header
    field ("星期: 星期六", "Weather: sunny": core.rules DAY_FIELDS). A rule, a decision or a
    fact in it (a cue beyond these) makes it no noise."""
    if len(t) > PLEASANTRY_MAX_CHARS or not _NOISE_MAY_CARRY.issuperset(cues):
        return None
    if is_pleasantry(t, rules):
        return cues.get("noise", "(no content)")
    said = set(cues)
    if ("noise" in cues or "mood" in cues) and said <= _FILLER_SIGNALS | {"urgency"}:
        rest = t
        for name in ("noise", "mood", "short_lived", "urgency"):
            rest = rules[name].matcher.sub(" ", rest)
        if _MEANINGFUL.search(rest) is None:
            return (
                cues.get("noise") or cues["mood"]
            )  # "Great work today!", "明天见～", "Feeling great today!"
        if "noise" in cues and t.lstrip(" *_").startswith(cues["noise"]) and _units(rest) <= ACK_REST_UNITS:
            return cues["noise"]  # an acknowledgement and a word: "收到，马上办", "ok, on it now"
    if "placeholder" in cues and said <= _BLANK_SIGNALS | _FILLER_SIGNALS:
        blank = rules["placeholder"].matcher.sub(" ", t)
        if (
            _MEANINGFUL.search(blank) is None
            or _NUMBERING.fullmatch(blank)  # 功能 1
            or (_LABEL_ONLY.fullmatch(blank) and said <= _BLANK_SIGNALS)  # 计划：YYYY-MM-DD
        ):
            return cues["placeholder"]
    stripped = t.strip()
    if (
        "mood" in cues
        and said <= _FILLER_SIGNALS
        and stripped
        and (_DECORATION.match(stripped) or len(stripped) <= MOOD_MAX_CHARS)
    ):
        return cues["mood"]  # "🤔 思考…", "好累啊", "今天好开心"
    signed = cues.get("signature")
    if (
        signed is not None
        and said <= _FILLER_SIGNALS
        and 0 <= stripped.lstrip("*_-—– ").find(signed) <= 1
        and len(stripped.split()) <= SIGNATURE_WORDS
    ):
        return signed  # "**记录者**: 太一", "Signed, Claude"
    if _DASHED_NAME.fullmatch(stripped) and said <= _FILLER_SIGNALS:
        return "(signature)"  # "—— 太一", "— Claude"
    if (
        _SIGN_OFF.fullmatch(stripped)
        and not _ISO_ANYWHERE.search(stripped)
        and not _QUOTE_MARKS.search(stripped)  # an italic motto is a quote, not a signature
        and said <= _FILLER_SIGNALS
    ):
        return "(sign-off)"  # *记录者：太一*, *Session 结束*
    opened = stripped[_COURTESY_LEAD.match(stripped).end() :]  # type: ignore[union-attr]
    if len(stripped) <= THANKS_MAX_CHARS and opened.startswith(COURTESIES) and said <= _COURTESY_SIGNALS:
        return cues.get("noise", "(courtesy)")  # "谢谢你今天的耐心", "Sorry, I was offline."
    day = _DAY_FIELD.match(stripped)
    if (
        day is not None
        and _units(day["value"]) <= DAY_FIELD_UNITS
        and said <= _COURTESY_SIGNALS | {"placeholder"}
    ):
        return "(day header)"  # "**星期**: 星期六", "Weather: sunny"
    if not said <= _EMPTY_SIGNALS:
        return None
    if (
        "routine" not in cues  # a streak beside its emoji ("连续30天零回滚 🧪") is a status line
        and _DECORATION.search(stripped[-2:] or " ")
        and not any(mark in stripped for mark in _STATUS_MARKS)
        and len(_DECORATION.sub("", stripped).strip()) <= SIGN_OFF_MAX_CHARS
        and len(stripped.split()) <= 3
    ):
        return "(sign-off)"
    return None


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
    recurring: int = 0,
) -> Scored:
    """Score one entry's text. `today` enables "past its date"; `written` is the entry's date
    (the year of a date written without one); `mentions` counts distinct days it appears on;
    `recurring`, the days its line shape was written on when that makes it routine
    (core.judgement.routine)."""
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
        recurring=recurring,
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
    recurring: int = 0,
) -> Scored:
    """`score_text` for a text already reduced by `scoring_text` and scanned by `rules.scan`."""
    remember = cues.get("remember")
    if remember is not None and t.find(remember) > REMEMBER_AT_MOST:
        remember = None  # "记住：…" asks; "…值得记住" only remarks
    routine = cues.get("routine")
    if routine is None and recurring:
        routine = f"the same line on {recurring} days"
    flags: dict[str, Any] = {
        "remember": remember is not None,
        "routine": routine is not None,
        "signals": frozenset(cues),
        "cues": cues,
    }
    if importance is not None:
        reason = Reason("importance marker", float(importance), f"<!-- importance: {importance} -->")
        return Scored(float(importance), (reason,), explicit=True, **flags)
    empty = noise_shape(t, cues, rules) if remember is None else None
    if empty is not None:
        points = rules["noise"].points
        reason = Reason("noise", points, empty)
        return Scored(points, (reason,), noise=True, signals=frozenset(cues), cues=cues)

    reasons: list[Reason] = []
    for row in ROWS:
        for name in row:
            cue = cues.get(name)
            if cue is None and name == "task" and kind == "task":
                cue = "[ ]"
            if cue is not None:
                reasons.append(Reason(name, rules[name].points, cue))
                break
    if "long_lived" in cues:
        reasons.append(Reason("long-lived", rules["long_lived"].points, cues["long_lived"]))
    elif "short_lived" in cues:
        reasons.append(Reason("short-lived", rules["short_lived"].points, cues["short_lived"]))
    if "convention" in cues:
        reasons.append(Reason("convention", rules["convention"].points, cues["convention"]))
    for name, rule in (("unresolved", "unresolved"), ("done", "done"), ("setup", "set up")):
        if name in cues:
            reasons.append(Reason(rule, rules[name].points, cues[name]))
    if today is not None and "past_due" in cues and not YEARLY.search(t):  # 每年 3 月 15 日到期 comes again
        year = (written or today).year
        if any(d < today for d in mentioned_dates(mask_code(t), year)):
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
