"""The moment a run takes as now (--now, MEMCLI_NOW, else the clock) and wall-clock time in
a zone: the standard library only, so that the fast paths (memcli.quick) share it."""

from __future__ import annotations

from datetime import datetime, tzinfo

from memcli.errors import UsageError


def to_local(moment: datetime, tz: tzinfo | None) -> datetime:
    """The naive wall-clock time of an aware `moment` in `tz` (None: the host's zone)."""
    try:
        return (moment.astimezone(tz) if tz is not None else moment.astimezone()).replace(tzinfo=None)
    except (OverflowError, OSError, ValueError):
        raise UsageError(f"{moment.isoformat()} is out of range", "use a date from 1970 to 9999") from None


def parse_now(text: str | None, tz: tzinfo | None, source: str = "--now") -> datetime:
    """--now / MEMCLI_NOW as an aware datetime; the real clock when absent."""
    if not text:
        return datetime.now(tz) if tz is not None else datetime.now().astimezone()
    try:
        value = datetime.fromisoformat(text.strip())
        aware = (
            value
            if value.tzinfo is not None
            else (value.replace(tzinfo=tz) if tz is not None else value.astimezone())
        )
        to_local(aware, tz)
    except (ValueError, OverflowError, OSError):
        raise UsageError(
            f"{source} {text!r} is not a usable ISO date or time",
            "use e.g. 2026-10-31 or 2026-10-31T09:00+08:00",
        ) from None
    return aware
