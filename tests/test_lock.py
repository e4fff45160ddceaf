"""The workspace lock keeps overlapping runs apart and recognises a holder that died."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from memcli.errors import LockTimeout
from memcli.workspace.lock import WorkspaceLock

HOLDER = """
import sys, time
from pathlib import Path
from memcli.workspace.lock import WorkspaceLock
lock = WorkspaceLock(Path(sys.argv[1]), "gc", timeout=5).acquire()
print("held", flush=True)
time.sleep(60)
"""


def test_a_second_run_waits_then_times_out_and_a_killed_holder_is_taken_over(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path)], stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
        with pytest.raises(LockTimeout, match=rf"locked by `memcli gc` \(pid {proc.pid}"):
            WorkspaceLock(tmp_path, "add", timeout=0.2).acquire()
    finally:
        proc.kill()
        proc.wait()
    with WorkspaceLock(tmp_path, "add", timeout=1) as lock:
        assert lock.stale is not None and lock.stale.pid == proc.pid and lock.stale.command == "gc"
    with WorkspaceLock(tmp_path, "add", timeout=1) as lock:
        assert lock.stale is None  # a clean release leaves no holder record behind


def test_the_lock_is_reentrant_across_sequential_runs_in_one_process(tmp_path: Path) -> None:
    for _ in range(3):
        with WorkspaceLock(tmp_path, "add", timeout=0.1) as lock:
            assert lock.fd is not None
    assert (tmp_path / ".memcli" / "lock").read_bytes() == b""
