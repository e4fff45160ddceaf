"""Routine: recurring status and activity lines that report nothing new (SPEC §7).

"Checked the build", "heartbeat OK", "看了一下日志" are events, not facts: they are never
promoted by their mention count, and the same event on different days is not a duplicate
to merge away. memcli knows one two ways:

- by its cues (core.rules ROUTINE: heartbeat, 巡检, no new notifications, 连续 N 天 …);
- by its recurrence across the workspace: a line *shape* — the line as dedupe compares it,
  its figures blanked — written on `ROUTINE_MIN_DAYS` days or more ("Shellmates: checked,
  quiet", "系统稳定", "磁盘空间：✅ 19%") is routine, whatever words it uses.

A fact restated on many days is not routine: a line that carries a standing rule, a
decision or a lasting fact (a durable signal) recurs as that fact — unless its figures
change from day to day, which makes it a reading ("Gateway on 18789: 41 sessions").
Mentions promote facts, never routine.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Hashable, Iterable
from datetime import date
from typing import TypeVar

ROUTINE_MIN_DAYS = 5  # "many days": more than promote_mentions (3) a fact needs, with room
# What makes a recurring line a fact said again rather than routine.
DURABLE = frozenset(
    {
        "preference", "decision", "lesson", "long_lived", "remember", "convention", "constraint",
        "place", "environment", "knowledge", "tooling", "setting",
    }
)  # fmt: skip
# What a recurring reading may carry and still be routine: figures vary, no rule stands.
STANDING = frozenset({"preference", "decision", "lesson", "long_lived", "remember"})
_FIGURES = re.compile(r"\d+(?:[.,:/]\d+)*")


def shape(normalised: str) -> str:
    """A line without its figures: the same shape on two days is the same kind of line
    ("served 41 sessions", "served 7 sessions")."""
    return _FIGURES.sub("#", normalised)


H = TypeVar("H", bound=Hashable)


def _gather(into: dict[str, H | set[H]], key: str, value: H) -> None:
    """`value` held under `key`: itself while it is the only one (most keys have one), a
    set of them once another comes."""
    held = into.get(key)
    if held is None:
        into[key] = value
    elif isinstance(held, set):
        held.add(value)
    elif held != value:
        into[key] = {held, value}


def learn(
    dated: Iterable[tuple[str, date]],
    normalised: Callable[[str], str],
    signals: Callable[[str], Collection[str]],
    min_days: int = ROUTINE_MIN_DAYS,
) -> dict[str, int]:
    """The texts that are routine by recurrence, each with the number of days its shape
    was written on. `dated` holds every (text, day) of the daily notes; `normalised` is the
    text as dedupe compares it; `signals` the scoring signals a text carries."""
    days: dict[str, date | set[date]] = {}
    texts: dict[str, str | set[str]] = {}  # (most shapes have one text: no set for it)
    for text, day in dated:
        norm = normalised(text)
        if not norm:
            continue
        key = shape(norm)
        _gather(days, key, day)
        _gather(texts, key, text)
    found: dict[str, int] = {}
    for key, seen in days.items():
        if not isinstance(seen, set) or len(seen) < min_days:
            continue
        held = texts[key]
        members = held if isinstance(held, set) else {held}
        readings = len({normalised(t) for t in members}) > 1  # its figures change
        for text in members:
            said = signals(text)
            if not STANDING.isdisjoint(said) or (not readings and not DURABLE.isdisjoint(said)):
                continue  # a rule or a fact said again, not routine
            found[text] = len(seen)
    return found
