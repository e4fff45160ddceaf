"""A secret never leaves its note (SPEC §14).

Whatever memcli would copy elsewhere — a promotion, a summary line, a flush item, a
compaction summary, a superseded or demoted entry — is first read by the detector
`memcli check` uses (core.secrets); a text it flags is left where it is, and the command
says so by place only (`memory/2026-10-01.md:12`), never by quoting it.
"""

from __future__ import annotations

from collections.abc import Sequence

from memcli.core.secrets import find_secrets

SHOWN = 5  # places named in a note; the rest are counted


def holds_secret(*texts: str) -> bool:
    """Whether `memcli check` would flag any of these texts."""
    return any(text and find_secrets(text) for text in texts)


def left_out(places: Sequence[str], noun: str = "entry", plural: str = "entries") -> str:
    """One line naming where the withheld texts are: "left out 2 entries holding a secret:
    memory/2026-10-01.md:12, memory/2026-10-02.md:3"."""
    unique = list(dict.fromkeys(places))
    named = ", ".join(unique[:SHOWN])
    if len(unique) > SHOWN:
        named += f" and {len(unique) - SHOWN:,} more"
    word = noun if len(unique) == 1 else plural
    return (
        f"left out {len(unique):,} {word} holding a secret: {named} "
        "(not copied or moved; `memcli check` shows where)"
    )
