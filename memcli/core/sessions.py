"""When a session's durable notes must be flushed to memory (SPEC §9), decided purely.

OpenClaw flushes when a session's prompt nears its window: `totalTokens ≥ contextTokens −
reserve_tokens_floor − soft_threshold_tokens`, once per compaction cycle. memcli does it
better: a session never flushed is due (OpenClaw's `0 == 0` guard skips it), a stale
`totalTokens` (`totalTokensFresh: false`) is replaced by an estimate from the
transcript, a transcript over `force_flush_transcript_bytes` is flushed whatever its
count says, and a cooldown keeps two flushes apart. A `memoryFlushAt` that is no usable
time (another type, or out of the years 1 to 9999) counts as never flushed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from memcli.core.policy import Policy

UNATTENDED = ("heartbeat", "cron")  # key parts of sessions no person talks in


@dataclass(frozen=True, slots=True)
class FlushDecision:
    due: bool
    why: str
    tokens: int
    window: int
    threshold: int


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
# the epoch milliseconds datetime can hold (years 1 to 9999), a day kept free at each end so
# that the time can still be moved to any time zone
FIRST_MS = (datetime(1, 1, 2, tzinfo=UTC) - _EPOCH) // _MS
LAST_MS = (datetime(9999, 12, 30, tzinfo=UTC) - _EPOCH) // _MS


def flush_time(entry: Mapping[str, Any]) -> datetime | None:
    """When the session was last flushed (`memoryFlushAt`, epoch ms) as an aware UTC time;
    None when it never was, or when the value is no usable time (not a whole number of
    milliseconds within the years 1 to 9999): such a session counts as never flushed, and
    its next flush records a good time over the bad one."""
    ms = _int(entry.get("memoryFlushAt"))
    if ms is None or not FIRST_MS <= ms <= LAST_MS:
        return None
    return _EPOCH + ms * _MS


def bad_flush_time(entry: Mapping[str, Any]) -> bool:
    """Whether `memoryFlushAt` is there (not null) but no usable time."""
    return entry.get("memoryFlushAt") is not None and flush_time(entry) is None


def session_tokens(entry: Mapping[str, Any], estimate: int | None) -> tuple[int, bool]:
    """The session's prompt tokens, and whether they were estimated from the transcript
    (when `totalTokens` is missing or marked stale)."""
    total = _int(entry.get("totalTokens"))
    if total is not None and entry.get("totalTokensFresh") is not False:
        return total, False
    if estimate is not None:
        return estimate, True
    return total or 0, False


def flush_decision(
    key: str,
    entry: Mapping[str, Any],
    policy: Policy,
    now_ms: int,
    transcript_bytes: int | None,
    estimate: int | None,
    read_only: bool = False,
    cooldown_minutes: float = 10.0,
) -> FlushDecision:
    window = _int(entry.get("contextTokens")) or policy.context_window
    threshold = max(0, window - policy.reserve_tokens_floor - policy.soft_threshold_tokens)
    tokens, estimated = session_tokens(entry, estimate)

    def no(why: str) -> FlushDecision:
        return FlushDecision(False, why, tokens, window, threshold)

    if read_only:
        return no("the workspace is read-only")
    if any(part in UNATTENDED for part in key.casefold().split(":")):
        return no("a heartbeat or cron session")
    big = transcript_bytes is not None and transcript_bytes >= policy.force_flush_transcript_bytes
    if tokens < threshold and not big:
        counted = "estimated from the transcript" if estimated else "totalTokens"
        return no(f"{tokens:,} tokens ({counted}), below {threshold:,}")
    flushed_at = _int(entry.get("memoryFlushAt")) if flush_time(entry) is not None else None
    cycle = _int(entry.get("compactionCount")) or 0
    if flushed_at is not None and _int(entry.get("memoryFlushCompactionCount")) == cycle:
        return no(f"already flushed in compaction cycle {cycle}")
    if flushed_at is not None and now_ms - flushed_at < cooldown_minutes * 60_000:
        return no(f"flushed {(now_ms - flushed_at) / 60_000:.0f} min ago (cooldown {cooldown_minutes:g} min)")
    if big and tokens < threshold:
        assert transcript_bytes is not None
        return FlushDecision(True, f"transcript is {transcript_bytes:,} bytes", tokens, window, threshold)
    never = " (never flushed)" if flushed_at is None else f" (new compaction cycle {cycle})"
    if bad_flush_time(entry):
        never = " (never flushed: its memoryFlushAt is no usable time)"
    source = "estimated" if estimated else "totalTokens"
    why = f"{tokens:,} tokens ({source}) ≥ {threshold:,}{never}"
    return FlushDecision(True, why, tokens, window, threshold)


def compaction_due(entry: Mapping[str, Any], policy: Policy, estimate: int | None) -> tuple[bool, str]:
    """Whether the context exceeds `contextTokens − reserve_tokens`."""
    window = _int(entry.get("contextTokens")) or policy.context_window
    limit = max(0, window - policy.reserve_tokens)
    tokens, estimated = session_tokens(entry, estimate)
    counted = "estimated" if estimated else "totalTokens"
    if tokens > limit:
        return True, f"{tokens:,} tokens ({counted}) > {limit:,}"
    return False, f"{tokens:,} tokens ({counted}), within {limit:,}"


def cut_index(costs: Sequence[int], roles: Sequence[str], keep_recent_tokens: int) -> int:
    """Where compaction cuts a branch of messages: the first message kept, so that the kept
    ones hold about `keep_recent_tokens` (at least the last message), and a tool result is
    never kept without the call that asked for it."""
    total = 0
    i = len(costs)
    while i > 0 and (total == 0 or total + costs[i - 1] <= keep_recent_tokens):
        total += costs[i - 1]
        i -= 1
    while 0 < i < len(roles) and roles[i] == "toolResult":
        i -= 1  # keep the call with its result
    return i
