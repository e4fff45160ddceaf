"""Long work reported by phase ("reading notes", "indexing", "planning", "writing"), so the
command line can show a progress bar and, with -v, each phase's time. The steps only call
a `Report`; drawing it is the command line's business (memcli.cli.progress)."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

# report(phase, done, total): `done` of `total` items (None: unknown); END closes the phase
Report = Callable[[str, int, "int | None"], None]
END = -1


def silent(phase: str, done: int, total: int | None) -> None:
    """The report of a run nobody watches."""


@contextlib.contextmanager
def phase(report: Report, name: str, total: int | None = None) -> Iterator[Callable[[int, int | None], None]]:
    """A phase from start to end; what it yields reports `done` items of `total`."""
    report(name, 0, total)
    try:
        yield lambda done, of: report(name, done, of)
    finally:
        report(name, END, total)
