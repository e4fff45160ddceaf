"""Whether an entry goes to MEMORY.md, and under which heading (SPEC §7: promote facts,
not logs).

The importance label (core.judgement.importance) says whether an entry is core; this
module adds what a copy in MEMORY.md needs besides: a list item or paragraph (not a task,
quote, table or code), short enough (~160 tokens) and not a log's structure. A line
stamped with the time of day is core only when it states a standing rule, preference or
decision (core.judgement.importance); its copy leaves the stamp out (core.verbatim). The
planner (core.lifecycle) decides the rest: whether MEMORY.md holds it already, whether a
newer entry replaced it, and the budget.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Protocol

from memcli.core.entries import Entry
from memcli.core.judgement.importance import Verdict, may_be_core
from memcli.core.judgement.logs import PROMOTE_MAX_LINES as PROMOTE_MAX_LINES
from memcli.core.judgement.logs import has_trace
from memcli.core.judgement.logs import is_log as is_log
from memcli.core.scoring import Reason, Scored
from memcli.core.tokens import estimate_tokens

PROMOTE_MAX_TOKENS = 160
PROMOTE_KINDS = frozenset({"bullet", "paragraph"})  # quotes cite someone else; they are not promoted

# Where a promoted entry lands: its kind of fact, the titles of a new section in English
# and Chinese, and the words of an existing heading that fit it (whole English words,
# Chinese anywhere in the title).
CATEGORIES: tuple[tuple[str, str, str, frozenset[str]], ...] = (
    (
        "preference",
        "Preferences",
        "偏好",
        frozenset({"preference", "preferences", "prefs", "偏好", "喜好", "习惯"}),
    ),
    ("decision", "Decisions", "决策", frozenset({"decision", "decisions", "决策", "决定"})),
    (
        "environment",
        "Environment",
        "环境",
        frozenset(
            {"environment", "env", "setup", "tools", "tooling", "system", "systems", "环境", "工具", "系统"}
        ),
    ),
    (
        "knowledge",
        "Knowledge",
        "经验教训",
        frozenset(
            {"knowledge", "lessons", "lesson", "learnings", "pitfalls", "gotchas", "知识", "经验", "教训"}
        ),
    ),
    (
        "fact",
        "Facts",
        "事实",
        frozenset({"facts", "fact", "memory", "memories", "misc", "general", "事实", "备忘", "记忆"}),
    ),
)
# The reasons that choose a category, first come first: the importance label's (a standing
# rule is a preference, a place an environment fact) and the rubric's. A decision or a
# lesson says what it is even when it names a tool or a habit.
_CATEGORY_OF = {
    "decision": "decision",
    "decision field": "decision",
    "lesson": "knowledge",
    "lesson field": "knowledge",
    "knowledge": "knowledge",
    "standing preference": "preference",
    "preference": "preference",
    "preference field": "preference",
    "standing": "preference",
    "long-lived": "preference",
    "convention": "preference",
    "rule": "preference",
    "rule field": "preference",
    "personal fact": "fact",  # 外婆糖尿病…, "Jonah is allergic to peanuts": no environment
    "where it lives": "environment",
    "where it lives field": "environment",
    "environment": "environment",
    "environment field": "environment",
    "place": "environment",
    "set up to last": "environment",
    "schedule": "environment",
    "tool use": "environment",
    "tool use field": "environment",
    "setting field": "environment",
}
_TITLE_WORD = re.compile(r"[a-z]+")


class _Judged(Protocol):
    """What promotion reads of an assessed entry (core.analysis.Assessed)."""

    @property
    def entry(self) -> Entry: ...

    @property
    def scored(self) -> Scored: ...


def fits(entry: Entry) -> bool:
    """Whether an entry has the shape of a fact MEMORY.md can hold: a list item or a
    paragraph, short (~160 tokens), not a stack trace or a table row. (A time stamp is
    the importance label's to weigh: a standing rule said at 09:15 is still a rule.)"""
    if entry.kind not in PROMOTE_KINDS:
        return False
    body = entry.body
    if body.count("\n") > PROMOTE_MAX_LINES or estimate_tokens(entry.text) > PROMOTE_MAX_TOKENS:
        return False
    return not (has_trace(body) or body.count("|") >= 2)


def promotion(a: _Judged, verdict: Callable[[], Verdict]) -> str | None:
    """Why this entry should be copied into MEMORY.md, or None. The planner asks only of
    entries of daily notes that MEMORY.md does not hold yet and nothing newer replaced;
    `verdict` gives the entry's importance label, asked only of an entry that fits."""
    if not asks_label(a):
        return None
    judged = verdict()
    if not judged.core:
        return None
    if a.scored.remember:
        return "asked to remember it"
    return f"{judged.why}; score {a.scored.score:g}"


def asks_label(a: _Judged) -> bool:
    """Whether `promotion` asks for this entry's importance label: it fits in MEMORY.md and
    its score may make it core."""
    return fits(a.entry) and may_be_core(a.scored, a.entry.text)


def category(reasons: Iterable[Reason]) -> str:
    """The kind of fact an entry's reasons (its label's, then the rubric's) make of it:
    decision, knowledge, preference, environment, else fact."""
    found = {r.rule for r in reasons}
    return next((kind for name, kind in _CATEGORY_OF.items() if name in found), "fact")


class _Section(Protocol):
    @property
    def heading(self) -> object: ...


def section_for(kind: str, found: Sequence[_Section]) -> _Section | None:
    """The first `##`/`###` section whose title has a word that fits this kind of fact."""
    words = next(c[3] for c in CATEGORIES if c[0] == kind)
    for section in found:
        heading = section.heading
        title = heading.title.casefold()  # type: ignore[attr-defined]
        english = set(_TITLE_WORD.findall(title))
        if heading.level >= 2 and (  # type: ignore[attr-defined]
            english & words or any(w in title for w in words if not w.isascii())
        ):
            return section
    return None


def title(kind: str, chinese: bool) -> str:
    """The heading of a new section for this kind of fact, in the language of MEMORY.md."""
    english, zh = next((c[1], c[2]) for c in CATEGORIES if c[0] == kind)
    return zh if chinese else english
