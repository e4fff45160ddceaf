"""When a session's durable notes must be flushed to memory (SPEC §9), decided purely.

OpenClaw flushes when a session's prompt nears its window: `totalTokens ≥ contextTokens −
reserve_tokens_floor − soft_threshold_tokens`, once per compaction cycle. memcli does it
better: a session never flushed is due (OpenClaw's `0 == 0` guard skips it), a stale
`totalTokens` (`totalTokensFresh: false`) is replaced by an estimate from the
transcript, a transcript over `force_flush_transcript_bytes` is flushed whatever its
count says, and a cooldown keeps two flushes apart. A `memoryFlushAt` that is no usable
time (another type, or out of the years 1 to 9999) counts as never flushed.

The decision needs the store's numbers and the transcript's size only. A stale
`totalTokens` asks for the transcript to be read (`needs_estimate`) only when nothing
else rules the session out: not when it was flushed in its cycle, is in its cooldown, or
when its transcript is too small to hold `threshold` tokens (`max_tokens`).

Where the flush is recorded depends on the store: `memoryFlushAt` and
`memoryFlushCompactionCount` in `sessions.json` (memcli writes them); in OpenClaw 2026.8+
databases `memoryFlush: {"kind": "succeeded", "compactionCount": N}` (OpenClaw's own flush,
without a time) and memcli's own record under `.memcli/` (`OwnFlush`), since memcli never
writes the database.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from memcli.core.policy import Policy

UNATTENDED = ("heartbeat", "cron")  # key parts of sessions no person talks in

# OpenClaw's archives of a transcript: /new and /reset (`.reset.<time>Z`), a deleted
# session (`.deleted.<time>Z`), backups (`.bak.<time>Z`, `.bak-<pid>-<ms>`). History: never
# flushed, never compacted.
_HISTORY = re.compile(r"\.(?:reset|deleted)\.|\.bak(?:[.-]|$)")


def is_history(name: str) -> str | None:
    """The kind of archive a transcript's file name says it is ("reset", "deleted",
    "backup"), or None for a live transcript."""
    m = _HISTORY.search(name)
    if m is None:
        return None
    text = m.group()
    return "reset" if "reset" in text else "deleted" if "deleted" in text else "backup"


@dataclass(frozen=True, slots=True)
class FlushDecision:
    due: bool
    why: str
    tokens: int
    window: int
    threshold: int
    # totalTokens is stale and nothing else rules the session out: decide again with an
    # estimate read from the transcript
    needs_estimate: bool = False


@dataclass(frozen=True, slots=True)
class OwnFlush:
    """memcli's own record of its last flush of a session, kept under .memcli/ where the
    store has no field memcli may write (OpenClaw 2026.8+ databases)."""

    at_ms: int | None
    cycle: int | None


@dataclass(frozen=True, slots=True)
class Mark:
    """One record of a flush: when (None: OpenClaw 2026.8+ records no time), in which
    compaction cycle, and by whom ("memoryFlushAt", "OpenClaw", "memcli")."""

    at_ms: int | None
    cycle: int | None
    by: str


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
# the epoch milliseconds datetime can hold (years 1 to 9999), a day kept free at each end so
# that the time can still be moved to any time zone
FIRST_MS = (datetime(1, 1, 2, tzinfo=UTC) - _EPOCH) // _MS
LAST_MS = (datetime(9999, 12, 30, tzinfo=UTC) - _EPOCH) // _MS


def _usable_ms(value: Any) -> int | None:
    ms = _int(value)
    return ms if ms is not None and FIRST_MS <= ms <= LAST_MS else None


def flush_time(entry: Mapping[str, Any]) -> datetime | None:
    """When the session was last flushed (`memoryFlushAt`, epoch ms) as an aware UTC time;
    None when it never was, or when the value is no usable time (not a whole number of
    milliseconds within the years 1 to 9999): such a session counts as never flushed, and
    its next flush records a good time over the bad one."""
    ms = _usable_ms(entry.get("memoryFlushAt"))
    return None if ms is None else _EPOCH + ms * _MS


def ms_time(ms: int | None) -> datetime | None:
    """Epoch milliseconds as an aware UTC time (None when unusable)."""
    usable = _usable_ms(ms)
    return None if usable is None else _EPOCH + usable * _MS


def bad_flush_time(entry: Mapping[str, Any]) -> bool:
    """Whether `memoryFlushAt` is there (not null) but no usable time."""
    return entry.get("memoryFlushAt") is not None and flush_time(entry) is None


def flush_marks(entry: Mapping[str, Any], own: OwnFlush | None = None) -> list[Mark]:
    """Every record of the session's last flush: the store's (`memoryFlushAt` with
    `memoryFlushCompactionCount`, or OpenClaw 2026.8+'s `memoryFlush` when it succeeded)
    and memcli's own."""
    marks: list[Mark] = []
    at = _usable_ms(entry.get("memoryFlushAt"))
    if at is not None:
        marks.append(Mark(at, _int(entry.get("memoryFlushCompactionCount")), "memoryFlushAt"))
    record = entry.get("memoryFlush")
    if isinstance(record, dict) and record.get("kind") == "succeeded":
        marks.append(Mark(None, _int(record.get("compactionCount")), "OpenClaw"))
    if own is not None:
        marks.append(Mark(_usable_ms(own.at_ms), own.cycle, "memcli"))
    return marks


def session_tokens(entry: Mapping[str, Any], estimate: int | None) -> tuple[int, bool]:
    """The session's prompt tokens, and whether they were estimated from the transcript
    (when `totalTokens` is missing or marked stale)."""
    total = _int(entry.get("totalTokens"))
    if total is not None and entry.get("totalTokensFresh") is not False:
        return total, False
    if estimate is not None:
        return estimate, True
    return total or 0, False


def stale_tokens(entry: Mapping[str, Any]) -> bool:
    """Whether `totalTokens` cannot be trusted (missing, or marked stale)."""
    return _int(entry.get("totalTokens")) is None or entry.get("totalTokensFresh") is False


def max_tokens(transcript_bytes: int) -> int:
    """The most tokens a transcript of this many bytes can hold by memcli's estimate (one
    token per CJK character, three UTF-8 bytes; one per four other characters; one more
    per message for rounding, and a message line takes more than 64 bytes)."""
    return transcript_bytes // 3 + transcript_bytes // 64 + 1


def flush_decision(
    key: str,
    entry: Mapping[str, Any],
    policy: Policy,
    now_ms: int,
    transcript_bytes: int | None,
    estimate: int | None,
    read_only: bool = False,
    cooldown_minutes: float = 10.0,
    own: OwnFlush | None = None,
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
    marks = flush_marks(entry, own)
    cycle = _int(entry.get("compactionCount")) or 0
    done = [m for m in marks if m.cycle == cycle]
    times = [m.at_ms for m in marks if m.at_ms is not None]
    last_at = max(times) if times else None
    cooling = last_at is not None and now_ms - last_at < cooldown_minutes * 60_000

    def blocked() -> FlushDecision | None:
        if done:
            by = " by OpenClaw" if all(m.by == "OpenClaw" for m in done) else ""
            return no(f"already flushed in compaction cycle {cycle}{by}")
        if cooling:
            assert last_at is not None
            minutes = (now_ms - last_at) / 60_000
            return no(f"flushed {minutes:.0f} min ago (cooldown {cooldown_minutes:g} min)")
        return None

    if estimate is None and stale_tokens(entry) and transcript_bytes is not None and not big:
        # deciding must not read the transcript: only when nothing else rules it out
        ruled_out = blocked()
        if ruled_out is not None:
            return ruled_out
        most = max_tokens(transcript_bytes)
        if most < threshold:
            return no(
                f"totalTokens is stale; its transcript ({transcript_bytes:,} bytes) holds at most "
                f"~{most:,} tokens, below {threshold:,}"
            )
        return FlushDecision(
            False,
            "totalTokens is stale: the transcript is read to estimate it",
            tokens,
            window,
            threshold,
            True,
        )
    if tokens < threshold and not big:
        counted = "estimated from the transcript" if estimated else "totalTokens"
        return no(f"{tokens:,} tokens ({counted}), below {threshold:,}")
    ruled_out = blocked()
    if ruled_out is not None:
        return ruled_out
    if big and tokens < threshold:
        assert transcript_bytes is not None
        return FlushDecision(True, f"transcript is {transcript_bytes:,} bytes", tokens, window, threshold)
    never = " (never flushed)" if not marks else f" (new compaction cycle {cycle})"
    if not marks and bad_flush_time(entry):
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
    ones hold at most `keep_recent_tokens` (as many as fit; at least the last message), and
    a tool result is never kept without the call that asked for it. A cut that would
    strand a result moves later, past the results (the call and its results are summarised
    together), keeping the tail within the budget; only when no message after them could
    be kept does it move earlier, to the call."""
    total = 0
    i = len(costs)
    while i > 0 and (total == 0 or total + costs[i - 1] <= keep_recent_tokens):
        total += costs[i - 1]
        i -= 1
    later = i
    while 0 < later < len(roles) and roles[later] == "toolResult":
        later += 1
    if later < len(roles):
        return later
    while 0 < i < len(roles) and roles[i] == "toolResult":
        i -= 1  # the last messages are all results: keep the call with them
    return i
