"""The frozen policy every decision is made under (SPEC §12 defaults).

Loading it (memcli.toml, MEMCLI_* variables, flags) is memcli.config's job;
this module only says what the settings are and what they default to.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from memcli.core.rules import RuleOverride

MiB = 1 << 20
# Upper bounds: a day count past a century, a wait past a day or a size past these cannot be
# meant, and would overflow date arithmetic (timedelta), sleep or read calls later on.
MAX_DAYS = 36_500
MAX_SECONDS = 86_400.0
MAX_TOKENS = 1_000_000_000
MAX_COUNT = 1_000_000
GiB = 1 << 30


def _key(
    default: Any,
    doc: str,
    minimum: float | None = 0,
    maximum: float | None = None,
    choices: tuple[str, ...] = (),
) -> Any:
    return field(default=default, metadata={"doc": doc, "min": minimum, "max": maximum, "choices": choices})


@dataclass(frozen=True)
class Policy:
    half_life_days: float = _key(30.0, "days for an entry's importance to halve (decay)", 0.001, MAX_DAYS)
    stale_below: float = _key(1.0, "an entry is stale when its decayed score falls below this")
    short_term_days: int = _key(7, "the short-term window; older daily notes get summarised", 0, MAX_DAYS)
    core_unused_days: int = _key(30, "a MEMORY.md entry not mentioned for this long is demoted", 0, MAX_DAYS)
    task_archive_hours: float = _key(
        24.0, "a finished task note is archived this long after done", 0, MAX_DAYS * 24
    )
    promote_score: float = _key(5.0, "score from which an entry belongs in MEMORY.md (L4 core)")
    task_score: float = _key(2.0, "score from which an entry is task memory (L3)")
    session_score: float = _key(0.0, "score from which an entry is session memory (L2)", None)
    promote_mentions: int = _key(3, "days a fact must be mentioned on to be promoted", 1, MAX_DAYS)
    promote_tasks: int = _key(3, "tasks that must reference a fact for it to be promoted", 1, MAX_COUNT)
    dedupe_threshold: float = _key(0.80, "similarity (0-1) from which two entries are duplicates", 0.01, 1)
    core_max_chars: int = _key(12_000, "MEMORY.md budget in characters (OpenClaw's smallest cap)", 1, GiB)
    max_removal_share: float = _key(0.25, "a plan removing more of a file's entries needs --force", 0, 1)
    context_window: int = _key(
        200_000, "the model's context window when a session does not say", 1, MAX_TOKENS
    )
    reserve_tokens_floor: int = _key(
        20_000, "tokens kept free for the reply (flush threshold)", 0, MAX_TOKENS
    )
    soft_threshold_tokens: int = _key(
        4_000, "flush this many tokens before the reserve is reached", 0, MAX_TOKENS
    )
    reserve_tokens: int = _key(
        20_000, "compaction starts when context exceeds window minus this", 0, MAX_TOKENS
    )
    keep_recent_tokens: int = _key(
        20_000, "tokens of recent transcript compaction keeps verbatim", 0, MAX_TOKENS
    )
    force_flush_transcript_bytes: int = _key(
        2 * MiB, "a transcript this large is flushed anyway", 0, 1024 * GiB
    )
    gc_every_turns: int = _key(10, "watch: run a light gc every this many turns", 1, MAX_COUNT)
    summary_every_turns: int = _key(20, "summarise long conversations every this many turns", 1, MAX_COUNT)
    timezone: str = _key("", "IANA time zone of the user's dates; empty means the host's", None)
    open_days: int = _key(2, "today's and yesterday's notes are only appended to (2 = both)", 0, MAX_DAYS)
    max_file_bytes: int = _key(10 * MiB, "notes larger than this are refused as bad input", 1, GiB)
    lock_timeout_seconds: float = _key(10.0, "how long to wait for another memcli to finish", 0, MAX_SECONDS)
    templates_dir: str = _key("", "a folder of summary templates, searched after <workspace>/templates", None)
    summary_language: str = _key(
        "", "headings of summaries: zh or en; empty follows the workspace", None, choices=("", "zh", "en")
    )
    summary_tokens: int = _key(800, "token budget of a summary", 50, MAX_COUNT)
    summarizer_cmd: str = _key("", "a command that turns the summary prompt (stdin) into a summary", None)
    summarizer_timeout_seconds: float = _key(60.0, "how long --summarizer-cmd may take", 1, MAX_SECONDS)
    archive_globs: tuple[str, ...] = _key(
        (),
        "dated notes outside memory/ and memory/daily/ that gc may also summarise and archive "
        '(glob patterns of workspace paths, * crossing folders: ["memory/projects/*.md"])',
        None,
    )

    rules: tuple[RuleOverride, ...] = field(default=(), metadata={"doc": "[rules] overrides", "table": True})


# Scalar settings (one `key = value` each); tables such as [rules] are handled apart.
POLICY_FIELDS = {f.name: f for f in dataclasses.fields(Policy) if not f.metadata.get("table")}
