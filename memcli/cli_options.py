"""The global options of every command, as parsed by the root of the command line.

Kept apart (and free of imports) so that building the command line stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class GlobalOptions:
    workspace: str | None = None
    config: str | None = None
    now: str | None = None
    json: bool = False
    quiet: bool = False
    verbose: int = 0
