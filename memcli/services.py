"""Steps several commands share: read the workspace, then ask core about it."""

from __future__ import annotations

from memcli.core.analysis import Analysis, analyse
from memcli.runtime import Runtime
from memcli.workspace.snapshot import Snapshot, take_snapshot


def assess(run: Runtime) -> tuple[Snapshot, Analysis]:
    """Every memory file read and parsed, every entry scored, decayed and grouped."""
    snap = take_snapshot(run.root, run.policy.max_file_bytes)
    analysis = analyse([(p.file, p.doc) for p in snap.files], run.policy, run.rules, run.now_local)
    return snap, analysis
