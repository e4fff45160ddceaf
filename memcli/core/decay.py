"""Exponential decay of importance with age (SPEC §5).

decayed = score × exp(−ln 2 / half_life_days × age_days): with the default
half-life of 30 days an entry keeps half its weight after a month, a quarter
after two. MEMORY.md, undated notes and pinned entries are evergreen.
"""

from __future__ import annotations

import math
from datetime import date, datetime, time

SECONDS_PER_DAY = 86_400.0


def entry_moment(day: date, clock: str | None) -> datetime:
    """The naive local datetime an entry was written (midnight when only the date is known)."""
    if clock:
        hours, minutes = clock.split(":")
        return datetime.combine(day, time(int(hours), int(minutes)))
    return datetime.combine(day, time())


def age_days(day: date | None, clock: str | None, now_local: datetime) -> float:
    """Days from the entry to `now_local` (naive, the user's time zone); 0 for undated or future."""
    if day is None:
        return 0.0
    seconds = (now_local - entry_moment(day, clock)).total_seconds()
    return max(0.0, seconds / SECONDS_PER_DAY)


def decay_factor(age: float, half_life_days: float) -> float:
    return math.exp(-math.log(2) / half_life_days * age)


def decayed_score(score: float, age: float, half_life_days: float, evergreen: bool) -> float:
    if evergreen or score <= 0:
        return score
    return score * decay_factor(age, half_life_days)


def is_stale(decayed: float, stale_below: float) -> bool:
    return decayed < stale_below
