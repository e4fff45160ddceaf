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
    state_dir: str | None = None  # OpenClaw's state folder (--state-dir)
    agent: str | None = None  # the OpenClaw agent whose sessions to work on (--agent)
    color: str = "auto"  # --color: auto, always or never
