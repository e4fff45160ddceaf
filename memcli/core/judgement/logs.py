"""A log's structure (SPEC §7: promote facts, not logs): commands, stack traces, labelled
fields, status lines, table rows and footers. Read by the promotion (core.judgement.
promotion) and by `check` (core.checks), which needs nothing else of the judgement: this
module imports none of it, so the pre-commit hook starts without it."""

from __future__ import annotations

import re

from memcli.core.entries import Entry

PROMOTE_MAX_LINES = 8  # more is a report or a trace, not one fact

_LABEL = re.compile(
    r"^(\*\*[^*]{1,24}\*\*|\*\*[^*]{1,24}[:：]\*\*|【[^】]{1,12}】|[^:：]{1,16})\s*[:：]?\s*(.*)$"
)
_STATUS = re.compile("[✅❌⏳🟢🔴🟡]")
_BOLD_LABEL = re.compile(r"\*\*[^*]{1,24}\*\*\s*[:：]|\*\*[^*]{1,24}[:：]\*\*")
_ORDERED = re.compile(r"\s*\d{1,9}[.)]\s")
LABEL_ENDS = (":", "：", ":**", "：**")


def is_log(entry: Entry) -> bool:
    """Commands, stack traces, labelled fields, status lines, table rows and footers: the
    structure of a note's record. Copies of them stay in their own notes (a merge leaves
    them, `check` does not call them duplicates): "- Gateway: ✅ 运行中" at 09:00 and again
    at 15:00 is a log, not a repeat."""
    body = entry.body
    first = body.split("\n", 1)[0].strip()
    if first.startswith(("$ ", "> $", "# ", "sudo ", "`", "【", "⚠️", "|")) or _STATUS.search(body):
        return True
    if has_trace(body) or body.count("\n") > PROMOTE_MAX_LINES:
        return True
    last = body.rstrip().rsplit("\n", 1)[-1].strip()
    if first.endswith(LABEL_ENDS) or last.endswith(LABEL_ENDS) or body.count("|") >= 2:
        return True  # a label introduces what follows it: structure, not a fact
    if first.startswith("*") and first.endswith("*") and not first.startswith("**"):
        return True  # an italic footer: *Session 结束 · 2026-04-06 23:44*
    if len(_BOLD_LABEL.findall(body)) >= 2 or _ORDERED.match(entry.text):
        return True  # a form of labelled fields, or a step of a numbered procedure
    label = _LABEL.match(first)
    if label is None or not label.group(2):
        return False
    value = label.group(2).strip()
    bold = label.group(1).startswith(("**", "【"))
    plain = (":" in first or "：" in first) and len(value) < 20 and any(ch.isdigit() for ch in value)
    return (bold and len(value) < 40) or plain


def has_trace(body: str) -> bool:
    return "Traceback (most recent call last)" in body or "\n    at " in body
