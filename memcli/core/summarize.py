"""Extractive summaries: keep the best entries of a period within a token budget (SPEC §8).

Entries are classified with the scoring rules (preference, decision, environment,
knowledge, open task, done, other), ranked by decayed score, and kept while the
budget lasts. Noise and routine events never make it into a summary.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date, datetime, timedelta

from memcli.core.analysis import Assessed
from memcli.core.edit import promoted_text
from memcli.core.scoring import Tier
from memcli.core.tokens import estimate_tokens

SUMMARY_TOKENS = 800

CLASSES = ("preference", "decision", "environment", "knowledge", "pending", "done", "other")
HEADINGS = {
    "en": {
        "preference": "Preferences",
        "decision": "Decisions",
        "environment": "Environment",
        "knowledge": "Knowledge and lessons",
        "pending": "Open items",
        "done": "Done",
        "other": "Notes",
    },
    "zh": {
        "preference": "重要的用户偏好",
        "decision": "决策",
        "environment": "环境",
        "knowledge": "学到的新知识",
        "pending": "待解决",
        "done": "已完成",
        "other": "其他",
    },
}


def week_of(day: date) -> tuple[str, date]:
    """The ISO week a day belongs to ("2026-W44") and the last day (Sunday) of that week."""
    year, week, weekday = day.isocalendar()
    return f"{year}-W{week:02d}", day + timedelta(days=7 - weekday)


def classify(a: Assessed) -> str:
    if a.entry.kind == "task":
        return "done" if a.entry.done else "pending"
    rules = {r.rule for r in a.scored.reasons}
    for name in ("preference", "decision", "environment", "knowledge"):
        if name in rules:
            return name
    return "other"


def select(entries: Sequence[Assessed], budget: int = SUMMARY_TOKENS) -> list[tuple[str, Assessed]]:
    """The highest-ranked entries that fit in `budget` tokens, each with its class."""
    ranked = sorted(
        (a for a in entries if a.tier is not Tier.DISCARD and not a.scored.routine),
        key=lambda a: (-a.scored.score, -a.decayed, a.entry.file, a.entry.first_line),
    )
    kept: list[tuple[str, Assessed]] = []
    seen_groups: set[int] = set()
    used = 0
    for a in ranked:
        if used >= budget:
            break
        if a.group is not None:
            if a.group in seen_groups:
                continue
            seen_groups.add(a.group)
        cost = estimate_tokens(a.entry.text)
        if used + cost > budget:
            continue
        kept.append((classify(a), a))
        used += cost
    return kept


def weekly_summary(
    period: str, entries: Sequence[Assessed], sources: Sequence[str], generated: datetime, language: str
) -> str:
    """A summary note of one period, with front matter memcli and readers can rely on."""
    heads = HEADINGS["zh" if language == "zh" else "en"]
    kept = select(entries)
    lines = [
        "---",
        "kind: weekly-digest",
        f"period: {period}",
        "sources:",
        *(f"  - {s}" for s in sources),
        f"generated: {generated.isoformat(timespec='seconds')}",
        "---",
        "",
        f"# {period}",
        "",
    ]
    for name in CLASSES:
        chosen = [a for c, a in kept if c == name]
        if not chosen:
            continue
        lines += [f"## {heads[name]}", ""]
        for a in sorted(chosen, key=lambda a: (a.entry.date or date.min, a.entry.file, a.entry.first_line)):
            lines.append(promoted_text(a.entry).rstrip("\n"))
        lines.append("")
    if not kept:
        lines += ["Nothing in this period was worth keeping beyond the archived notes.", ""]
    return "\n".join(lines)
