"""The JSON contract (SPEC §13, docs/memcli.schema.json): the shapes several commands share.

Every entry-shaped object (`list`, `dedupe`, `search` hits, `context` items, `add`, the
entry of a gc action) carries ENTRY_KEYS; a place is `path:line`; a gc action names where
its entry comes from as `from` and its target as `to`; an error under --json is
`{"error", "fix", "exit"}` on stdout (written by memcli.cli.app, which keeps its imports few).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from typing import Any

from memcli.core.analysis import Assessed
from memcli.core.lifecycle import Action

ENTRY_KEYS = ("id", "file", "line", "text", "tier", "score", "decayed", "date", "mentions", "last_seen")
PLACE = re.compile(r":\d+$")


def _iso(day: date | None) -> str | None:
    return day.isoformat() if day else None


def entry_json(a: Assessed) -> dict[str, Any]:
    """The keys every entry-shaped object carries (SPEC §13), plus where and what it is."""
    e = a.entry
    return {
        "id": e.id,
        "file": e.file,
        "line": e.first_line,
        "end_line": e.last_line,
        "text": e.text,
        "tier": a.tier.value,
        "score": a.scored.score,
        "decayed": round(a.decayed, 4),
        "date": _iso(e.date),
        "time": e.time,
        "mentions": a.mentions,
        "last_seen": _iso(a.last_seen),
        "first_seen": _iso(a.first_seen),
        "stale": a.stale,
        "evergreen": a.evergreen,
        "kind": e.kind,
        "section": e.section_path,
        "importance": e.importance,
        "pinned": e.pinned,
        "done": e.done,
    }


class Entries:
    """The assessed entries of an analysis, found by the place (`path:line`) or the id an
    action names."""

    def __init__(self, assessed: Sequence[Assessed]) -> None:
        self.by_place = {f"{a.entry.file}:{a.entry.first_line}": a for a in assessed}
        self.by_id: dict[str, Assessed] = {}
        for a in assessed:
            self.by_id.setdefault(a.entry.id, a)

    def find(self, place: str | None, entry_id: str | None) -> Assessed | None:
        found = self.by_place.get(place) if place else None
        if found is None or (entry_id is not None and found.entry.id != entry_id):
            found = self.by_id.get(entry_id) if entry_id else None
        return found


def action_json(action: Action, entries: Entries | None = None) -> dict[str, Any]:
    """A gc (or restore) action as SPEC §13 has it: `from` a place (`path:line`; a whole
    note moved to the archive is its line 1, and `files` names it), the target in `to` (a
    merge's `into` too), and the entry it acts on, with every key of an entry, as `entry`."""
    data = action.to_json()
    source = data.get("from")
    if isinstance(source, str) and not PLACE.search(source):
        data["from"] = f"{source}:1"
    if "to" not in data and "into" in data:
        data["to"] = data["into"]
    if entries is not None and action.id is not None:
        found = entries.find(action.source, action.id)
        if found is not None:
            data["entry"] = entry_json(found)
    return data
