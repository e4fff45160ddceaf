"""The phases of long work on stderr: a progress bar (or a spinner, when the amount is not
known) once a run has taken DELAY seconds, on a terminal only; with -v, each phase's time.

rich is imported only when the bar is drawn, so a quick run never pays for it. The bar
is transient: it is gone before anything is printed (Output pauses it).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any

from memcli.phases import END

DELAY = 1.0  # seconds of work before a bar appears


def _count(done: int, total: int | None) -> str:
    return f"{done:,}/{total:,}" if total else ""


class Reporter:
    """A `memcli.phases.Report` that draws (when `show`) and times (when `timings`)."""

    def __init__(self, show: bool, timings: bool) -> None:
        self.show = show
        self.timings = timings
        self.lock = threading.RLock()
        self.phase: str | None = None
        self.started = 0.0
        self.done = 0
        self.total: int | None = None
        self.timer: threading.Timer | None = None
        self.bar: Any = None  # rich.progress.Progress while it is drawn
        self.task: Any = None

    def __call__(self, phase: str, done: int, total: int | None) -> None:
        with self.lock:
            if done == END:
                if phase == self.phase:
                    self._end()
                return
            if phase != self.phase:
                if self.phase is not None:
                    self._end()
                self.phase, self.started = phase, time.perf_counter()
                if self.show and self.bar is None and self.timer is None:
                    self.timer = threading.Timer(DELAY, self._draw)
                    self.timer.daemon = True
                    self.timer.start()
                if self.bar is not None:  # a new phase: a new line, its own count
                    self.bar.remove_task(self.task)
                    self.task = self.bar.add_task(phase, completed=done, total=total, count="")
            self.done, self.total = done, total
            if self.bar is not None:
                self.bar.update(self.task, completed=done, total=total, count=_count(done, total))

    def _end(self) -> None:
        if self.timings and self.phase is not None:
            self._say(f"timing: {self.phase} {time.perf_counter() - self.started:.2f} s")
        self.phase = None

    def _say(self, text: str) -> None:
        if self.bar is not None:
            self.bar.console.print(text, highlight=False, markup=False)
        else:
            sys.stderr.write(text + "\n")
            sys.stderr.flush()

    def _draw(self) -> None:
        """Start the bar (on the timer's thread), if work is still under way."""
        with self.lock:
            self.timer = None
            if self.phase is None or self.bar is not None:
                return
            from rich.console import Console
            from rich.progress import BarColumn, Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                SpinnerColumn(),
                TextColumn("{task.description}"),
                BarColumn(),
                TextColumn("{task.fields[count]}"),
                TimeElapsedColumn(),
                console=Console(stderr=True),
                transient=True,
            )
            self.task = self.bar.add_task(
                self.phase, completed=self.done, total=self.total, count=_count(self.done, self.total)
            )
            self.bar.start()

    def pause(self) -> None:
        """Take the bar off the screen (something is about to be printed); a later phase
        may bring it back."""
        with self.lock:
            if self.timer is not None:
                self.timer.cancel()
                self.timer = None
            if self.bar is not None:
                self.bar.stop()
                self.bar = None

    def close(self) -> None:
        with self.lock:
            self.pause()
            if self.phase is not None:
                self._end()
