"""Typed errors. The CLI maps each class to one exit code and one line on stderr.

Exit codes (SPEC §13): 0 ok, 1 `check` found problems, 2 usage, 3 bad data
(nothing written), 4 conflict or lock timeout (nothing written).
"""

from __future__ import annotations


class MemcliError(Exception):
    """Base class: a message that says what went wrong and a hint how to fix it."""

    exit_code = 3

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def one_line(self) -> str:
        text = self.message if not self.hint else f"{self.message}; {self.hint}"
        return " ".join(text.split())


class UsageError(MemcliError):
    """The command line itself is wrong (bad option value, missing workspace)."""

    exit_code = 2


class DataError(MemcliError):
    """A file or setting cannot be used as it is; nothing was written."""

    exit_code = 3


class ConfigError(DataError):
    """memcli.toml or a MEMCLI_* variable is malformed or names an unknown key."""


class ConflictError(MemcliError):
    """A file changed under us, or a lock is held; nothing was written."""

    exit_code = 4


class LockTimeout(ConflictError):
    """Another memcli (or OpenClaw) process holds the lock for too long."""


class Interrupted(KeyboardInterrupt):
    """Ctrl-C, with what became of the work under way (the CLI prints it, exit 130)."""

    def __init__(self, outcome: str) -> None:
        super().__init__(outcome)
        self.outcome = outcome
