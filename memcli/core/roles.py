"""File roles and the names of daily notes (SPEC §1): pure rules, no disk."""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from enum import StrEnum

MEMORY_DIR = "memory"
SUMMARIES_DIR = "memory/summaries"
ARCHIVE_DIR = "memory/archive"
COLD = f"{ARCHIVE_DIR}/core-cold.md"  # what gc demotes from MEMORY.md (core.lifecycle)
SUPERSEDED = f"{ARCHIVE_DIR}/superseded.md"  # the facts a newer one replaced (core.lifecycle)
STATE_DIR = ".memcli"
CORE_NAMES = ("MEMORY.md", "memory.md")
BOOTSTRAP_NAMES = frozenset(
    {"AGENTS.md", "SOUL.md", "USER.md", "IDENTITY.md", "TOOLS.md", "HEARTBEAT.md", "BOOTSTRAP.md"}
)
TEMP_SUFFIX = ".memcli-tmp"


class Role(StrEnum):
    CORE = "core"
    DAILY = "daily"
    DAILY_SLUG = "daily-with-slug"
    SUMMARY = "summary"
    ARCHIVE = "archive"
    BOOTSTRAP = "bootstrap"
    OTHER = "other"


# Roles whose entries are the agent's working memory (listed, scored, collected).
MEMORY_ROLES = frozenset({Role.CORE, Role.DAILY, Role.DAILY_SLUG, Role.OTHER})


@dataclass(frozen=True, slots=True)
class MemoryFile:
    rel: str  # POSIX path relative to the workspace root
    role: Role
    date: date | None

    @property
    def is_memory(self) -> bool:
        """Counts as memory: core, dated notes, and undated notes under memory/."""
        if self.role is Role.OTHER:
            return self.rel.startswith(MEMORY_DIR + "/")
        return self.role in MEMORY_ROLES

    @property
    def evergreen(self) -> bool:
        """MEMORY.md and undated notes do not decay (SPEC §5)."""
        return self.role is Role.CORE or (self.is_memory and self.date is None)


@dataclass(frozen=True, slots=True)
class BadName:
    rel: str
    reason: str


# --- names -----------------------------------------------------------------------

_DATE_NAME = re.compile(r"(\d{4})-(\d{2})-(\d{2})(?:([-_])(.+))?$")
_BAD_NAMES: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(
            r"\d{4}-\d{2}-\d{2}(?:T|[ _]?T?)\d{1,2}[:.\-]?\d{2}(?:[:.\-]?\d{2})?(?:Z|[+-]\d{2}:?\d{2})?$"
        ),
        "a timestamp, not a date: daily notes are named YYYY-MM-DD.md (extra notes YYYY-MM-DD-slug.md)",
    ),
    (re.compile(r"\d{4}-\d{2}-\d{2}T.*$"), "a timestamp, not a date: name it YYYY-MM-DD.md"),
    (re.compile(r"\d{8}$"), "a date without dashes: name it YYYY-MM-DD.md"),
    (re.compile(r"\d{6}$"), "a two-digit year: name it YYYY-MM-DD.md"),
    (re.compile(r"\d{10}(?:\d{3})?$"), "an epoch timestamp, not a date: name it YYYY-MM-DD.md"),
    (re.compile(r"\d{4}[_.]\d{1,2}[_.]\d{1,2}(?:\D.*)?$"), "a date with '_' or '.': name it YYYY-MM-DD.md"),
    (
        re.compile(r"\d{4}-(?:\d-\d{1,2}|\d{1,2}-\d)(?:[-_].*)?$"),
        "a date without leading zeros: name it YYYY-MM-DD.md",
    ),
)


def parse_date(year: str, month: str, day: str) -> date | None:
    try:
        return date(int(year), int(month), int(day))
    except ValueError:
        return None


def name_date(stem: str) -> tuple[date | None, str | None, str | None]:
    """(date, slug, problem) for a file name without `.md`.

    `2026-03-04` is a daily note, `2026-03-04-retro` one with a slug; names
    that look like dates but are not (`2026-13-01`, `260131`,
    `2026-03-04T10:00`) come back with the problem to report.
    """
    for pattern, reason in _BAD_NAMES[:2]:
        if pattern.match(stem):
            return None, None, reason
    m = _DATE_NAME.match(stem)
    if m:
        day = parse_date(m.group(1), m.group(2), m.group(3))
        if day is None:
            return None, None, f"{m.group(1)}-{m.group(2)}-{m.group(3)} is not a real date"
        return day, m.group(5), None
    for pattern, reason in _BAD_NAMES[2:]:
        if pattern.match(stem):
            return None, None, reason
    return None, None, None


def classify(rel: str) -> MemoryFile | BadName:
    """The role of a workspace-relative Markdown path, or why its name is bad."""
    parts = rel.split("/")
    name = parts[-1]
    stem = name[:-3] if name.lower().endswith(".md") else name
    if len(parts) == 1:
        if name in CORE_NAMES:
            return MemoryFile(rel, Role.CORE, None)
        if name in BOOTSTRAP_NAMES:
            return MemoryFile(rel, Role.BOOTSTRAP, None)
        return MemoryFile(rel, Role.OTHER, None)
    day, slug, problem = name_date(stem)
    if rel.startswith(SUMMARIES_DIR + "/"):
        return MemoryFile(rel, Role.SUMMARY, day)
    if rel.startswith(ARCHIVE_DIR + "/"):
        return MemoryFile(rel, Role.ARCHIVE, day)
    if problem is not None:
        return BadName(rel, problem)
    if day is None:
        return MemoryFile(rel, Role.OTHER, None)
    return MemoryFile(rel, Role.DAILY_SLUG if slug else Role.DAILY, day)


def daily_note_rel(day: date) -> str:
    return f"{MEMORY_DIR}/{day.isoformat()}.md"
