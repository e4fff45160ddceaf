"""Text memcli writes into notes: new entries and the heading of a new daily note."""

from __future__ import annotations

import re
from datetime import date

_HAS_MARKER = re.compile(r"\s*(?:[-+*]|\d{1,9}[.)])[ \t]")


def as_bullet(text: str, pinned: bool = False, importance: int | None = None) -> str:
    """One entry as a list item; continuation lines are indented under it. Ends in LF."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").strip("\n").split("\n")]
    if not _HAS_MARKER.match(lines[0]):
        lines = ["- " + lines[0].lstrip()] + ["  " + line if line else "" for line in lines[1:]]
    if pinned:
        lines[0] += " #pin"
    if importance is not None:
        lines[0] += f" <!-- importance: {importance} -->"
    return "\n".join(lines) + "\n"


def daily_note(day: date, first_entry: str) -> str:
    """A new daily note: its heading, a blank line, the first entry."""
    return f"# {day.isoformat()}\n\n{first_entry}"
