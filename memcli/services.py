"""Steps several commands share: read the workspace, then ask core about it."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import partial

from memcli.core.analysis import Analysis, analyse
from memcli.core.policy import Policy
from memcli.core.similarity import Description, serial_map
from memcli.runtime import Runtime
from memcli.workspace.snapshot import Snapshot, take_snapshot

PARALLEL_FROM = 20_000  # below this many texts, starting processes costs more than it saves


def parallel_map(function: Callable[[str], Description], texts: Sequence[str]) -> list[Description]:
    """`function` over `texts` on every core (fork-started workers), or in this process
    when the input is small, there is one core, or processes cannot be started."""
    cores = os.cpu_count() or 1
    if len(texts) < PARALLEL_FROM or cores < 2:
        return serial_map(function, texts)
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    try:
        context = multiprocessing.get_context("fork")
    except ValueError:
        return serial_map(function, texts)
    workers = min(cores, 8)
    size = -(-len(texts) // (workers * 4))
    chunks = [texts[i : i + size] for i in range(0, len(texts), size)]
    try:
        with ProcessPoolExecutor(workers, mp_context=context) as pool:
            return [d for part in pool.map(partial(serial_map, function), chunks) for d in part]
    except OSError:
        return serial_map(function, texts)


def assess(
    run: Runtime, policy: Policy | None = None, only_duplicates: bool = False
) -> tuple[Snapshot, Analysis]:
    """Every memory file read and parsed, its entries scored, decayed and grouped
    (with `only_duplicates`, only the entries of duplicate groups are scored)."""
    policy = policy or run.policy
    snap = take_snapshot(run.root, policy.max_file_bytes)
    analysis = analyse(
        [(p.file, p.doc) for p in snap.files],
        policy,
        run.rules,
        run.now_local,
        only_duplicates=only_duplicates,
        mapper=parallel_map,
    )
    return snap, analysis
