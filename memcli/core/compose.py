"""Text memcli writes into notes: new entries and the heading of a new daily note."""

from __future__ import annotations

import re
import unicodedata
from datetime import date

from memcli.core.entries import parse
from memcli.errors import UsageError

_HAS_MARKER = re.compile(r"(?:[-+*]|\d{1,9}[.)])[ \t]")


def check_entry_text(text: str) -> str:
    """The text of a new entry, refused when it is empty, not UTF-8 or holds control characters."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise UsageError("the text is not valid UTF-8", "pass UTF-8 text") from None
    bad = next(
        (ch for ch in text if unicodedata.category(ch) == "Cc" and ch not in "\t\n\r"),
        None,
    )
    if bad is not None:
        raise UsageError(f"the text holds a control character (U+{ord(bad):04X})", "remove it")
    if not text.strip():
        raise UsageError("nothing to add: the text is empty")
    return text


def as_bullet(text: str, pinned: bool = False, importance: int | None = None) -> str:
    """One entry as a top-level list item; continuation lines are indented under it. Ends in LF."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").strip("\n").split("\n")]
    lines[0] = lines[0].lstrip()
    if not _HAS_MARKER.match(lines[0]):
        lines = ["- " + lines[0]] + ["  " + line if line else "" for line in lines[1:]]
    if pinned:
        lines[0] += " #pin"
    if importance is not None:
        lines[0] += f" <!-- importance: {importance} -->"
    return "\n".join(lines) + "\n"


def daily_note(day: date, first_entry: str) -> str:
    """A new daily note: its heading, a blank line, the first entry."""
    return f"# {day.isoformat()}\n\n{first_entry}"


def separator_before(existing: str, entry: str) -> str | None:
    """What must come between a note's text and new text (one entry, or a block such as a
    heading and its items) so that the new text stands on its own: "" or a blank line;
    None when no separator helps (the note ends inside a fence or comment).

    It stands on its own when the note's entries are still there, unchanged in number,
    and are followed by exactly the entries the new text has when parsed alone."""
    base = existing if not existing or existing.endswith("\n") else existing + "\n"
    alone = [e.text.lstrip("\ufeff") for e in parse(entry).entries]
    if not alone:  # only a heading, or blank: it cannot merge into an entry
        alone_blocks = len(parse(entry).blocks)
        for sep in ("", "\n"):
            if len(parse(base + sep + entry).blocks) == len(parse(base).blocks) + alone_blocks:
                return sep
        return None
    before = len(parse(base).entries)
    for sep in ("", "\n"):
        entries = parse(base + sep + entry).entries
        added = [e.text.lstrip("\ufeff") for e in entries[before:]]
        if len(entries) == before + len(alone) and added == alone:
            return sep
    return None
