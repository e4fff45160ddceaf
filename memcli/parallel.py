"""Work spread over the machine's cores: fork-started worker processes that inherit the
function to apply (so it need not be picklable) and receive only its inputs."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any, TypeVar, cast

PARALLEL_FROM = 8_000  # below this many items, starting processes costs more than it saves
S = TypeVar("S")
T = TypeVar("T")
_task: Callable[[Any], object] | None = None  # the function forked workers apply


def set_task(function: Callable[[Any], object] | None) -> None:
    """The function workers forked from now on will apply (None once they are done)."""
    global _task
    _task = function


def run_task(items: Sequence[Any]) -> list[object]:
    """What a worker runs: the inherited function over its share of the items."""
    assert _task is not None
    return [_task(item) for item in items]


_inherited: set[int] = set()  # descriptors a worker must not keep (the workspace lock's flock)


def not_for_workers(fd: int) -> None:
    """Workers forked from now on close `fd`: a flock a worker kept would outlive a killed
    parent and lock every later run out."""
    _inherited.add(fd)


def for_workers_again(fd: int) -> None:
    _inherited.discard(fd)


def worker_starts(parent: int) -> None:
    """In each worker, first: die with the parent (a killed gc must not leave workers that
    wait for work for ever), and close what it must not hold."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent died before the line above
        os._exit(1)
    for fd in list(_inherited):
        with contextlib.suppress(OSError):
            os.close(fd)


def start_pool() -> Any:
    """A pool of fork-started workers, one per core (at most 8); None where fork is missing."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        context = multiprocessing.get_context("fork")
        return ProcessPoolExecutor(
            min(os.cpu_count() or 1, 8),
            mp_context=context,
            initializer=worker_starts,
            initargs=(os.getpid(),),
        )
    except (ValueError, OSError):
        return None


def parallel_map(function: Callable[[S], T], items: Sequence[S], min_items: int = PARALLEL_FROM) -> list[T]:
    """`function` over `items` on every core, or in this process when there are fewer than
    `min_items`, one core, or processes cannot be started."""
    cores = os.cpu_count() or 1
    if len(items) < min_items or cores < 2:
        return [function(item) for item in items]
    set_task(function)
    try:
        pool = start_pool()
        if pool is None:
            return [function(item) for item in items]
        size = -(-len(items) // (min(cores, 8) * 4))
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        with pool:
            return [cast(T, d) for part in pool.map(run_task, chunks) for d in part]
    except OSError:
        return [function(item) for item in items]
    finally:
        set_task(None)
